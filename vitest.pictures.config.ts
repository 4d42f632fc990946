import { defineConfig } from 'vitest/config';

/* `npm run pictures`: takes the README's pictures from the real UI (test/pictures), not a test run. */
export default defineConfig({
  test: {
    include: ['test/pictures/**/*.pictures.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
