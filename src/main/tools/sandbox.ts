/*
 * The OS sandbox commands run in, bubblewrap on Linux and Seatbelt on macOS: how it is found, and how a command is put
 * inside it.
 */

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isWithin } from '../workspace/path-case';

/** Whether commands run in an OS sandbox here, and if not, why. */
export type SandboxStatus =
  | { readonly available: true; readonly kind: 'bubblewrap' | 'seatbelt'; readonly path: string }
  | { readonly available: false; readonly reason: string };

/** How far a command may reach: the workspace only, the workspace and the network, or everything. */
export type SandboxMode = 'workspace' | 'network' | 'none';

const seatbeltPath = '/usr/bin/sandbox-exec';

/**
 * Finds the OS sandbox: bubblewrap on Linux (checked by making one, as user namespaces may be
 * off), Seatbelt's sandbox-exec on macOS. Elsewhere there is none, and that is said plainly.
 */
export function detectSandbox(platform: NodeJS.Platform = process.platform, exists: (path: string) => boolean = existsSync): SandboxStatus {
  if (platform === 'darwin') {
    return exists(seatbeltPath)
      ? { available: true, kind: 'seatbelt', path: seatbeltPath }
      : { available: false, reason: 'no sandbox: sandbox-exec (Seatbelt) was not found' };
  }
  if (platform !== 'linux') return { available: false, reason: `no sandbox is used on ${platform} yet; commands run with your rights` };
  const probe = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-net', '--die-with-parent', 'true'], {
    encoding: 'utf8',
    timeout: 5_000,
  });
  if (probe.error) return { available: false, reason: 'bubblewrap (bwrap) is not installed; install it to sandbox commands' };
  if (probe.status !== 0)
    return { available: false, reason: `bubblewrap cannot make a sandbox here: ${(probe.stderr || '').trim() || `exit ${probe.status}`}` };
  return { available: true, kind: 'bubblewrap', path: 'bwrap' };
}

/**
 * The bubblewrap arguments for one command: the whole file system read-only, the workspace and a
 * private /tmp writable, the workspace's .git and the app's data read-only again, the command's
 * own folder readable, its own process IDs, and no network unless the mode grants it. The process
 * dies with the app.
 */
export function bubblewrapArguments(options: {
  workspace: string;
  runFolder: string;
  protectedFolders: readonly string[];
  mode: Exclude<SandboxMode, 'none'>;
}): string[] {
  const args = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--bind',
    options.workspace,
    options.workspace,
  ];
  const git = join(options.workspace, '.git');
  if (existsSync(git)) args.push('--ro-bind', git, git);
  for (const folder of options.protectedFolders)
    if (existsSync(folder) && isWithin(options.workspace, folder)) args.push('--ro-bind', folder, folder);
  // A PID namespace of its own: when the sandbox's first process ends or is killed, the kernel ends
  // every process in it, a fork bomb's included, and the command sees only its own processes.
  args.push('--ro-bind', options.runFolder, options.runFolder, '--chdir', options.workspace, '--unshare-pid', '--die-with-parent');
  if (options.mode === 'workspace') args.push('--unshare-net');
  return args;
}

/** Signs in a command's output that the sandbox stopped it, told to the model and the person. */
export function sandboxBlock(output: string): string | null {
  if (/Read-only file system/.test(output)) return 'a write outside the workspace (or into .git) was blocked by the sandbox';
  if (
    /Could not resolve host|Temporary failure in name resolution|Network is unreachable|getaddrinfo (EAI_AGAIN|ENOTFOUND)|Name or service not known/.test(
      output,
    )
  )
    return 'network access was blocked by the sandbox';
  return null;
}

const sbplString = (path: string): string => `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/**
 * The Seatbelt profile for one command on macOS, the same rules as bubblewrap's: writes only in
 * the workspace and the temporary folders, never into its .git or the app's data, no network
 * unless the mode grants it.
 */
export function seatbeltProfile(options: {
  workspace: string;
  protectedFolders: readonly string[];
  mode: Exclude<SandboxMode, 'none'>;
  /** Whether the workspace's file system ignores case, as macOS's does by default; asked of the disk when absent. */
  caseIgnored?: boolean;
}): string {
  // By the file system's case rules: the app's data at `/Users/me/WS/.data` lies in the workspace `/Users/me/ws`.
  const inWorkspace = (folder: string) => isWithin(options.workspace, folder, options.caseIgnored);
  const denied = [join(options.workspace, '.git'), ...options.protectedFolders.filter(inWorkspace)];
  return [
    '(version 1)',
    '(allow default)',
    '(deny file-write*)',
    `(allow file-write* (subpath ${sbplString(options.workspace)}) (subpath "/private/tmp") (subpath "/private/var/folders") (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/ttys[0-9]+$"))`,
    ...denied.map((folder) => `(deny file-write* (subpath ${sbplString(folder)}))`),
    ...(options.mode === 'workspace' ? ['(deny network*)', '(allow network* (local unix-socket))'] : []),
  ].join('\n');
}

/** The program and arguments that put a shell in the sandbox. */
export function sandboxWrapper(
  status: Extract<SandboxStatus, { available: true }>,
  options: { workspace: string; runFolder: string; protectedFolders: readonly string[]; mode: Exclude<SandboxMode, 'none'> },
): { program: string; args: string[] } {
  if (status.kind === 'seatbelt') return { program: status.path, args: ['-p', seatbeltProfile(options)] };
  return { program: status.path, args: bubblewrapArguments(options) };
}
