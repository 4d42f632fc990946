import { readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** A layer and where it lives: folders end with `/`, anything else names one file. */
export interface LayerPlace {
  readonly name: string;
  readonly paths: readonly string[];
  /** What the layer holds, in a line: the README's module map says it. */
  readonly description: string;
}

/**
 * The layer rule of the design (section 2), as data: the layers of the main process, lowest first. A file may
 * import its own layer and the layers before it, never one after it. The adapters are ordered among themselves
 * too, so that two of them can never import each other. eslint.config.js states the same order for the lint
 * rule, and the test checks that the two agree.
 */
export const orderedLayers = [
  {
    name: 'shared',
    paths: ['src/shared/'],
    description: "the IPC contract, the event union, domain types, errors and the session view's reducer: pure TypeScript and zod",
  },
  // The agent runtime, in rooms by idea, lowest first.
  {
    name: 'agent-ports',
    paths: ['src/main/agent/ports/'],
    description: 'the interfaces the runtime is given (stores, providers, tools, the clock) and its ids',
  },
  {
    name: 'agent-rules',
    paths: ['src/main/agent/rules/'],
    description:
      'what decides, with no journal of its own: the autonomy matrix and rules, gates, profiles, budgets, retries, signs of prompt injection',
  },
  {
    name: 'agent-context',
    paths: ['src/main/agent/context/'],
    description: 'what the model sees: the system prompt, the tool catalogue, the conversation fitted to the window, compaction',
  },
  {
    name: 'agent-history',
    paths: ['src/main/agent/history/'],
    description: 'the journal and what is read from it: where each line stands, conversations, branches, checkpoints, transfer, the audit',
  },
  {
    name: 'agent-turn',
    paths: ['src/main/agent/turn/'],
    description: 'one turn: the loop, its states and its steps (model, tools, gates, compaction), and where a stopped turn goes on',
  },
  {
    name: 'agent-session',
    paths: ['src/main/agent/session/'],
    description: "sessions: the runtime's face, the scheduler of turns, versions, time travel, changes, recovery, the archive",
  },
  { name: 'store', paths: ['src/main/store/'], description: 'SQLite: the database and its migrations, and the store of each interface' },
  { name: 'settings', paths: ['src/main/settings/'], description: 'the settings store' },
  { name: 'secrets', paths: ['src/main/secrets/'], description: 'API keys, encrypted' },
  {
    name: 'workspace',
    paths: ['src/main/workspace/'],
    description: 'the workspace folder: safe paths, walks that follow no link, reading, file history, instruction files',
  },
  {
    name: 'shell',
    paths: ['src/main/shell/'],
    description: 'shell commands parsed with tree-sitter-bash and judged by what they run and where they write',
  },
  {
    name: 'code-map',
    paths: ['src/main/code-map/'],
    description: "the workspace's code read with tree-sitter: definitions and references, their index, the ranked map",
  },
  {
    name: 'git',
    paths: ['src/main/git/'],
    description: "the person's git, run with arguments and no shell: repositories, their status, commits of named paths, branches",
  },
  { name: 'tools', paths: ['src/main/tools/'], description: "the agent's tools, the pty and the sandbox" },
  {
    name: 'diagnostics',
    paths: ['src/main/diagnostics/'],
    description: "the checks after an edit: the workspace's language servers, sandboxed, asked for the changed files' problems",
  },
  { name: 'models', paths: ['src/main/models/'], description: 'models on this computer: GGUF files, the library, downloads' },
  {
    name: 'providers',
    paths: ['src/main/providers/'],
    description: 'model endpoints: Anthropic, OpenAI-compatible and Ollama through their SDKs and wire formats, discovery, checks',
  },
  { name: 'runtime', paths: ['src/main/runtime/'], description: 'the built-in runtime (node-llama-cpp) in a process of its own' },
  { name: 'mcp', paths: ['src/main/mcp/'], description: "MCP servers' tools" },
  {
    name: 'updates',
    paths: ['src/main/updates/'],
    description: "updates from a feed: the person's settings under the organization's policy, the schedule, the updater's state",
  },
  { name: 'ipc', paths: ['src/main/ipc/'], description: 'the IPC router, the handlers by domain, batching of events' },
  // The composition root: one file today, a folder if it grows.
  {
    name: 'core',
    paths: ['src/main/core/'],
    description: 'the one composition root: `createCore` builds and owns everything, `createWorkbenchCore` serves it over IPC',
  },
  { name: 'cli', paths: ['src/main/cli/'], description: 'the terminal runner' },
  {
    name: 'electron-edge',
    paths: ['src/main/index.ts', 'src/main/electron/'],
    description: 'the only code that imports Electron: the window, the app:// protocol, IPC over ipcMain, launches',
  },
] as const satisfies readonly LayerPlace[];

/** Layers outside the order: each imports src/shared and itself only. */
export const sideLayers = [
  { name: 'preload', paths: ['src/preload/'], description: 'the bridge built from the contract, bundled into one CommonJS file' },
  { name: 'renderer', paths: ['src/renderer/'], description: 'the React UI; it sees only `window.workbench`' },
] as const satisfies readonly LayerPlace[];

export type OrderedLayer = (typeof orderedLayers)[number]['name'];
export type Layer = OrderedLayer | (typeof sideLayers)[number]['name'];

const withoutExtension = (path: string): string => path.replace(/\.(tsx?|jsx?|mjs|cjs)$/, '');

/** Whether a project-relative path (a file, or an import resolved without its extension) lies in a place. */
function within(path: string, place: string): boolean {
  if (place.endsWith('/')) return path.startsWith(place) || path === place.slice(0, -1);
  return withoutExtension(path) === withoutExtension(place);
}

/** The layer a project-relative path belongs to; throws for a path in none, so a new folder must be placed in the order. */
export function layerOf(file: string): Layer {
  const path = file.split(sep).join('/');
  for (const layer of [...orderedLayers, ...sideLayers]) {
    if (layer.paths.some((place) => within(path, place))) return layer.name;
  }
  throw new Error(`${file} is in no layer: add its folder to orderedLayers in test/architecture/layers.ts and to eslint.config.js`);
}

const rank = (layer: OrderedLayer): number => orderedLayers.findIndex((entry) => entry.name === layer);
const isOrdered = (layer: Layer): layer is OrderedLayer => orderedLayers.some((entry) => entry.name === layer);

/** Whether a file in one layer may import a file in another. */
export function mayImport(from: Layer, to: Layer): boolean {
  if (isOrdered(from)) return isOrdered(to) && rank(to) <= rank(from);
  return to === 'shared' || to === from;
}

const nativeAndPlatform = ['electron', 'electron-store', 'better-sqlite3', 'node-pty', 'conf', 'openai', '@anthropic-ai/sdk', 'ws'];
const isBuiltin = (name: string): boolean => name.startsWith('node:') || builtinModules.includes(name);

/** Whether a layer may import a package (not a relative path). */
function packageAllowed(layer: Layer, name: string): boolean {
  const root = name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : (name.split('/')[0] ?? name);
  switch (layer) {
    case 'shared':
      return root === 'zod';
    case 'agent-ports':
    case 'agent-rules':
    case 'agent-context':
    case 'agent-history':
    case 'agent-turn':
    case 'agent-session':
      return root === 'zod' || isBuiltin(name);
    case 'electron-edge':
      return true;
    case 'preload':
      return root === 'electron' || root === 'zod';
    case 'renderer':
      return !isBuiltin(name) && !nativeAndPlatform.includes(root);
    default:
      // Everything else in main runs under plain Node: only the edge touches Electron.
      return root !== 'electron' && root !== 'electron-store';
  }
}

export interface Violation {
  readonly file: string;
  readonly specifier: string;
  readonly reason: string;
}

const importPattern =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

/** Every module specifier a source text imports or re-exports, type-only imports included. */
export function importsOf(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(importPattern)) {
    const specifier = match[1] ?? match[2] ?? match[3] ?? match[4];
    if (specifier) found.push(specifier);
  }
  return found;
}

/** Every .ts and .tsx file under a folder, as absolute paths. */
export function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

/** Every import in `src` under a project root that breaks the layer rule. */
export function findViolations(projectRoot: string): Violation[] {
  const violations: Violation[] = [];
  for (const absolute of sourceFiles(join(projectRoot, 'src'))) {
    const file = relative(projectRoot, absolute).split(sep).join('/');
    const layer = layerOf(file);
    for (const specifier of importsOf(readFileSync(absolute, 'utf8'))) {
      if (specifier.startsWith('.')) {
        const target = relative(projectRoot, resolve(dirname(absolute), specifier))
          .split(sep)
          .join('/');
        let targetLayer: Layer;
        try {
          targetLayer = layerOf(target);
        } catch {
          violations.push({ file, specifier, reason: 'imports from outside the layers' });
          continue;
        }
        if (!mayImport(layer, targetLayer)) violations.push({ file, specifier, reason: `${layer} may not import ${targetLayer}` });
      } else if (!packageAllowed(layer, specifier)) {
        violations.push({ file, specifier, reason: `${layer} may not import the package ${specifier}` });
      }
    }
  }
  return violations;
}
