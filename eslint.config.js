import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Patterns a layer may not import (design section 2). The architecture test checks the same rule on every build. */
const electronOnly = { group: ['electron', 'electron-store'], message: 'Only src/main/index.ts and src/main/electron/ import Electron.' };
const mainInternals = { group: ['**/main/*', '**/main/**'], message: 'This layer may not import the main process.' };

/**
 * The layers of src/main, lowest first (design section 2): a layer may import itself and the layers before it, never one
 * after it, so that no two adapters import each other. test/architecture/layers.ts holds the same order, and its test
 * checks this config against it.
 */
/**
 * The agent runtime's rooms, lowest first: interfaces and ids; the rules; what the model sees; the journal and what is
 * read from it; one turn; sessions. Inside the agent a room is imported as `../<room>/...`, so its pattern names the
 * room's folder alone.
 */
const agentRooms = ['ports', 'rules', 'context', 'history', 'turn', 'session'].map((room) => ({
  name: `agent/${room}`,
  files: [`src/main/agent/${room}/**`],
  imports: [`**/agent/${room}/*`, `**/${room}/*`],
}));

const mainLayers = [
  ...agentRooms,
  { name: 'store', files: ['src/main/store/**'], imports: ['**/store/*'] },
  { name: 'settings', files: ['src/main/settings/**'], imports: ['**/settings/*'] },
  { name: 'secrets', files: ['src/main/secrets/**'], imports: ['**/secrets/*'] },
  { name: 'workspace', files: ['src/main/workspace/**'], imports: ['**/workspace/*'] },
  { name: 'shell', files: ['src/main/shell/**'], imports: ['**/shell/*'] },
  { name: 'code-map', files: ['src/main/code-map/**'], imports: ['**/code-map/*'] },
  { name: 'git', files: ['src/main/git/**'], imports: ['**/git/*'] },
  { name: 'tools', files: ['src/main/tools/**'], imports: ['**/tools/*'] },
  { name: 'diagnostics', files: ['src/main/diagnostics/**'], imports: ['**/diagnostics/*'] },
  { name: 'models', files: ['src/main/models/**'], imports: ['**/models/*'] },
  { name: 'providers', files: ['src/main/providers/**'], imports: ['**/providers/*'] },
  { name: 'runtime', files: ['src/main/runtime/**'], imports: ['**/runtime/*'] },
  { name: 'mcp', files: ['src/main/mcp/**'], imports: ['**/mcp/*'] },
  { name: 'updates', files: ['src/main/updates/**'], imports: ['**/updates/*'] },
  { name: 'ipc', files: ['src/main/ipc/**'], imports: ['**/ipc/*'] },
  { name: 'core', files: ['src/main/core/**'], imports: ['**/core/*'] },
  { name: 'cli', files: ['src/main/cli/**'], imports: ['**/cli/*'] },
  { name: 'the Electron edge', files: ['src/main/index.ts', 'src/main/electron/**'], imports: ['**/electron/*'] },
];

const layerNames = ['shared', ...mainLayers.map((layer) => layer.name)].join(' < ');

/** The pattern that keeps a layer from importing the layers after it. */
function layersAbove(index, message) {
  const above = mainLayers.slice(index + 1);
  return {
    // src/shared/ipc/ is the contract, not the ipc adapter, so it stays importable from everywhere.
    group: [...above.flatMap((layer) => layer.imports), '!**/shared/**'],
    message:
      message ??
      `Layers point down (${layerNames}): ${mainLayers[index].name} may not import ${above.map((layer) => layer.name).join(', ')}.`,
  };
}

const nodeAndNative = {
  group: [
    'node:*',
    'better-sqlite3',
    'node-pty',
    'node-llama-cpp',
    'openai',
    '@anthropic-ai/sdk',
    'conf',
    'ws',
    'electron',
    'electron-store',
  ],
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
  { files: ['scripts/**/*.mjs', 'test/fixtures/**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  {
    files: ['src/shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!zod$|\\.).*', message: 'src/shared imports nothing but zod.' }, mainInternals] },
      ],
    },
  },
  // The agent's rooms: interfaces and zod only, and nothing from the rooms above.
  ...agentRooms.map((room, index) => ({
    files: room.files,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            electronOnly,
            layersAbove(
              index,
              index === agentRooms.length - 1 ? 'The agent layer depends on interfaces only, never on adapters.' : undefined,
            ),
            {
              group: ['better-sqlite3', 'node-pty', 'node-llama-cpp', 'openai', '@anthropic-ai/sdk', 'conf', 'ws'],
              message: 'The agent layer uses interfaces, not packages.',
            },
          ],
        },
      ],
    },
  })),
  {
    files: ['src/main/**'],
    ignores: ['src/main/index.ts', 'src/main/electron/**', 'src/main/agent/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [electronOnly] }] },
  },
  // Each adapter, the core and the command line: Node only, and nothing from the layers above.
  ...mainLayers.slice(agentRooms.length, -1).map((layer, offset) => ({
    files: layer.files,
    rules: { 'no-restricted-imports': ['error', { patterns: [electronOnly, layersAbove(offset + agentRooms.length)] }] },
  })),
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
              group: [
                'node:*',
                'better-sqlite3',
                'node-pty',
                'node-llama-cpp',
                'openai',
                '@anthropic-ai/sdk',
                'conf',
                'ws',
                'electron-store',
              ],
              message: 'The sandboxed preload bundles shared code and Electron only.',
            },
          ],
        },
      ],
    },
  },
);
