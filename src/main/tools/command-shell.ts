/*
 * The shell the agent's commands run in on this system (bash; on Windows Git for Windows' bash), or why there is none,
 * and how the pty runner starts it so that no command text crosses a command line.
 */

import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import { findGitBash } from './git-bash';

/** The shell `run_command` uses, or why it cannot be offered. */
export type CommandShell =
  | { readonly available: true; readonly kind: 'bash' | 'git-bash'; readonly path: string }
  | { readonly available: false; readonly reason: string };

/**
 * Finds the shell: `/bin/bash` (or the first bash on the PATH where a system has none there, as NixOS), and on Windows
 * Git for Windows' bash (see `findGitBash`). The system, environment and file system are given in tests.
 */
export function detectCommandShell(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  exists: (path: string) => boolean = existsSync,
): CommandShell {
  if (platform === 'win32') {
    const found = findGitBash(env, exists);
    return found.found ? { available: true, kind: 'git-bash', path: found.path } : { available: false, reason: found.reason };
  }
  if (exists('/bin/bash')) return { available: true, kind: 'bash', path: '/bin/bash' };
  for (const folder of (env['PATH'] ?? '').split(':')) {
    if (!folder.startsWith('/')) continue;
    const bash = posix.join(folder, 'bash');
    if (exists(bash)) return { available: true, kind: 'bash', path: bash };
  }
  return {
    available: false,
    reason: 'bash was not found (neither /bin/bash nor on the PATH), so the agent cannot run commands; install bash.',
  };
}

/** What the window says of the shell, for the person: which one, or how to get one. */
export function commandShellDescription(shell: CommandShell): string {
  if (!shell.available) return shell.reason;
  return shell.kind === 'git-bash'
    ? `Commands run in Git for Windows' bash (${shell.path}).`
    : `Commands run in bash (${shell.path}), without your profile.`;
}

/**
 * The arguments the outer shell starts with. Its line is read from the file `$WB_OUTER` names rather than given with
 * `-c`: on Windows a command line is one string that every program splits by its own rules (MSYS's differ from
 * Microsoft's: quotes, backslashes and globs), so the only text on it is this fixed line, whose characters mean the same
 * to all of them. Word splitting and globs are off while the path is read, so a folder with spaces or `*` in its name
 * is read as it is; the file turns them on again first (`outerFileText`).
 */
export function outerShellArguments(): string[] {
  return ['--noprofile', '--norc', '-c', 'set -f;IFS=;. $WB_OUTER'];
}

/** The text of the outer shell's file: the shell's defaults back, then its line. */
export function outerFileText(line: string): string {
  return `set +f; unset IFS; ${line}\n`;
}

/** A path as bash is given it: on Windows with `/` (MSYS reads `C:/x`), elsewhere as it is. */
export function shellPathText(path: string, platform: NodeJS.Platform): string {
  return platform === 'win32' ? path.replace(/\\/g, '/') : path;
}
