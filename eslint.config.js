import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Patterns a layer may not import (design section 2). The architecture test checks the same rule on every build. */
const electronOnly = { group: ['electron', 'electron-store'], message: 'Only src/main/index.ts and src/main/electron/ import Electron.' };
const mainInternals = { group: ['**/main/*', '**/main/**'], message: 'This layer may not import the main process.' };
const adapters = {
  group: [
    '**/store/*',
    '**/providers/*',
    '**/settings/*',
    '**/secrets/*',
    '**/ipc/*',
    '**/workspace/*',
    '**/electron/*',
    '**/workbench-core',
    '!**/shared/ipc/*',
  ],
  message: 'The agent layer depends on interfaces only, never on adapters.',
};
const nodeAndNative = {
  group: ['node:*', 'better-sqlite3', 'node-pty', 'openai', '@anthropic-ai/sdk', 'conf', 'ws', 'electron', 'electron-store'],
  message: 'This layer runs without Node: import from src/shared only.',
};

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-syntax': ['error', { selector: "CallExpression[callee.property.name='only']", message: 'No focused tests.' }],
    },
  },
  { files: ['scripts/**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  {
    files: ['src/shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!zod$|\\.).*', message: 'src/shared imports nothing but zod.' }, mainInternals] },
      ],
    },
  },
  {
    files: ['src/main/agent/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            electronOnly,
            adapters,
            {
              group: ['better-sqlite3', 'node-pty', 'openai', '@anthropic-ai/sdk', 'conf', 'ws'],
              message: 'The agent layer uses interfaces, not packages.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/main/**'],
    ignores: ['src/main/index.ts', 'src/main/electron/**', 'src/main/agent/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [electronOnly] }] },
  },
  {
    files: ['src/renderer/**', 'src/preload/**'],
    ignores: ['src/preload/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [nodeAndNative, mainInternals] }] },
  },
  {
    files: ['src/preload/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            mainInternals,
            {
              group: ['node:*', 'better-sqlite3', 'node-pty', 'openai', '@anthropic-ai/sdk', 'conf', 'ws', 'electron-store'],
              message: 'The sandboxed preload bundles shared code and Electron only.',
            },
          ],
        },
      ],
    },
  },
);
