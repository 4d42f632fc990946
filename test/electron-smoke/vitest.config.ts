import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

/* `npm run test:electron`: the real app in Electron, driven by Playwright (test/electron-smoke/). One app at a time. */
export default defineConfig({
  // The project's root, whichever folder vitest is started from.
  root: resolve(import.meta.dirname, '../..'),
  test: {
    include: ['test/electron-smoke/**/*.smoke.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
