/*
 * The language servers the checks after an edit know (the files each reads and how it is started), and how one is
 * started: in the OS sandbox where there is one, read-only, with no network, no sockets of the session and the
 * environment the agent's commands get.
 */

import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, sep } from 'node:path';
import type { CheckedLanguage } from '../../shared/diagnostics';
import { scrubbedEnvironment } from '../tools/run-command';
import type { SandboxStatus } from '../tools/sandbox';
import type { ServerLaunch } from './language-server';

/** A language's server: the files it checks (by extension, with the language id it knows each by) and how it is started. */
export interface ServerSpec {
  readonly language: CheckedLanguage;
  readonly extensions: Readonly<Record<string, string>>;
  readonly program: string;
  readonly args: readonly string[];
  /** Looked for in the workspace's `node_modules/.bin` before the PATH. */
  readonly fromWorkspace: boolean;
}

export const specs: readonly ServerSpec[] = [
  {
    language: 'typescript',
    extensions: {
      '.ts': 'typescript',
      '.mts': 'typescript',
      '.cts': 'typescript',
      '.tsx': 'typescriptreact',
      '.js': 'javascript',
      '.mjs': 'javascript',
      '.cjs': 'javascript',
      '.jsx': 'javascriptreact',
    },
    program: 'typescript-language-server',
    args: ['--stdio'],
    fromWorkspace: true,
  },
  {
    language: 'python',
    extensions: { '.py': 'python', '.pyi': 'python' },
    program: 'pyright-langserver',
    args: ['--stdio'],
    fromWorkspace: true,
  },
  { language: 'go', extensions: { '.go': 'go' }, program: 'gopls', args: [], fromWorkspace: false },
  { language: 'rust', extensions: { '.rs': 'rust' }, program: 'rust-analyzer', args: [], fromWorkspace: false },
  {
    language: 'c',
    extensions: { '.c': 'c', '.h': 'c', '.cc': 'cpp', '.cpp': 'cpp', '.cxx': 'cpp', '.hpp': 'cpp', '.hh': 'cpp' },
    program: 'clangd',
    args: [],
    fromWorkspace: false,
  },
];

/** The app's own TypeScript, for a workspace that has none of its own; null when the app carries none. */
let appTypescript: string | null | undefined;
export function fallbackTsserver(): string | null {
  if (appTypescript === undefined) {
    try {
      appTypescript = dirname(createRequire(import.meta.url).resolve('typescript/lib/tsserver.js'));
    } catch {
      appTypescript = null;
    }
  }
  return appTypescript;
}

/** The folders bubblewrap's private /tmp and /run would hide that these programs need: their `node_modules`, or their folder. */
function hiddenByTmpfs(paths: ReadonlyArray<string | null>): string[] {
  const folders = new Set<string>();
  for (const path of paths) {
    if (path === null) continue;
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      continue;
    }
    if (!/^\/(tmp|run)\//.test(real)) continue;
    const modules = real.lastIndexOf(`${sep}node_modules${sep}`);
    folders.add(modules >= 0 ? real.slice(0, modules + `${sep}node_modules`.length) : dirname(real));
  }
  return [...folders];
}

/** How a server is started: in the sandbox where there is one, reading everything and writing only its own /tmp, with no network. */
export function serverLaunch(options: {
  readonly program: string;
  readonly args: readonly string[];
  readonly root: string;
  readonly sandbox?: SandboxStatus;
  /** The environment it is found with: its PATH is passed on, the rest as the agent's commands get it. */
  readonly env: NodeJS.ProcessEnv;
}): ServerLaunch {
  const { program, args, root, sandbox } = options;
  // The environment of the agent's commands (no API keys, no tokens of the app's), with the PATH servers are found on.
  const source = options.env;
  const base: NodeJS.ProcessEnv = { ...scrubbedEnvironment(source), ...(source['PATH'] === undefined ? {} : { PATH: source['PATH'] }) };
  if (sandbox?.available && sandbox.kind === 'bubblewrap') {
    // Its caches go to the sandbox's own /tmp; the home folder stays readable, where the tools' own packages are.
    const env = { ...base, XDG_CACHE_HOME: '/tmp/.cache', GOCACHE: '/tmp/.cache/go-build' };
    const wrapped = [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      // No sockets of the session's services (its message bus, a container daemon) to act through.
      '--tmpfs',
      '/run',
      // The workspace again, read-only, where a private /tmp would hide it, and so the server's own package.
      '--ro-bind',
      root,
      root,
      ...hiddenByTmpfs([program, fallbackTsserver()]).flatMap((folder) => ['--ro-bind', folder, folder]),
      '--unshare-net',
      '--unshare-pid',
      '--unshare-ipc',
      // No terminal to type into.
      '--new-session',
      '--die-with-parent',
      '--chdir',
      root,
      program,
      ...args,
    ];
    return { program: sandbox.path, args: wrapped, env, cwd: root, seesApp: false };
  }
  if (sandbox?.available && sandbox.kind === 'seatbelt') {
    const profile = [
      '(version 1)',
      '(allow default)',
      '(deny file-write*)',
      '(allow file-write* (subpath "/private/tmp") (subpath "/private/var/folders") (literal "/dev/null"))',
      '(deny network*)',
    ].join('\n');
    return { program: sandbox.path, args: ['-p', profile, program, ...args], env: base, cwd: root, seesApp: true };
  }
  return { program, args, env: base, cwd: root, seesApp: true };
}
