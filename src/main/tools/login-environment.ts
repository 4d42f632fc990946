/*
 * The environment of the person's login shell, read once at start on macOS and Linux: an app started from the Dock,
 * Finder or a desktop launcher does not get the PATH their shell profile sets (Homebrew, nvm, pyenv, cargo), so the
 * agent's commands, the person's terminals, git and language servers would not find their programs.
 */

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { homedir, userInfo } from 'node:os';
import { isatty } from 'node:tty';
import { z } from 'zod';

/** What reading the login environment came to. */
export type LoginEnvironment =
  | { readonly kind: 'read'; readonly shell: string; readonly variables: Readonly<Record<string, string>> }
  | { readonly kind: 'skipped'; readonly reason: string }
  | { readonly kind: 'failed'; readonly note: string };

export interface LoginEnvironmentOptions {
  readonly platform: NodeJS.Platform;
  /** The app's own environment, which the login shell starts with. */
  readonly env: NodeJS.ProcessEnv;
  /** The app was started from a terminal: it has the shell's environment already (see `startedFromTerminal`). */
  readonly fromTerminal: boolean;
  /** The login shell; `$SHELL`, else the account's shell, else /bin/sh. */
  readonly shell?: string;
  /** How long the shell may take; 10 s unless given. */
  readonly timeoutMs?: number;
  /** How much it may print; 4 MB unless given. */
  readonly maxBytes?: number;
}

/** Set while the login shell runs, so that a profile can skip slow work it does not need for this. */
export const resolvingVariable = 'WORKBENCH_RESOLVING_ENVIRONMENT';

/**
 * Whether the app was started from a terminal: its standard input is one. Then its environment came from the person's
 * shell already, and reading it again would only cost time. Started from the Dock, Finder or a desktop launcher, the
 * standard input is /dev/null or a pipe. `TERM` is no sign: some launchers set it, and a terminal can run the app with
 * `nohup` and no terminal at all.
 */
export function startedFromTerminal(isTerminal: (fd: number) => boolean = isatty): boolean {
  return isTerminal(0);
}

/** The login shell: `$SHELL` when it is a path, else the account's, else /bin/sh. */
function loginShell(env: NodeJS.ProcessEnv): string {
  const named = env['SHELL'];
  if (named && named.startsWith('/')) return named;
  try {
    const account = userInfo().shell;
    if (account && account.startsWith('/')) return account;
  } catch {
    // No account entry (a container's user): the system's shell.
  }
  return '/bin/sh';
}

/**
 * The command the login shell runs: one simple command, the same in every shell (bash, zsh, fish, tcsh, nu), that
 * prints the environment between two markers. `env -0` separates variables by NUL, so a value with a newline stays
 * whole; macOS's env before Ventura has no -0, and then the newline form is printed, marked `n` instead of `0`.
 */
function printCommand(marker: string): string {
  const script =
    'printf %s "$1"; if /usr/bin/env -0 >/dev/null 2>&1; then printf 0; /usr/bin/env -0; else printf n; /usr/bin/env; fi; printf %s "$1"';
  return `/bin/sh -c '${script}' sh ${marker}`;
}

/** The arguments that make `shell` a login, interactive shell that runs `command`: csh's take `-l` only alone. */
export function loginShellArguments(shell: string, command: string): string[] {
  const name = shell.slice(shell.lastIndexOf('/') + 1);
  if (name === 'tcsh' || name === 'csh') return ['-ic', command];
  if (name === 'pwsh' || name === 'powershell') return ['-Login', '-Command', command];
  return ['-i', '-l', '-c', command];
}

const variableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);

/**
 * The variables printed between the markers, or null when they are not there whole. Names that are not a variable's
 * (bash's exported functions, `BASH_FUNC_x%%`) are dropped. In the newline form a line that does not start a
 * `NAME=` goes on the value before it.
 */
export function parseEnvironmentOutput(output: string, marker: string): Record<string, string> | null {
  const start = output.indexOf(marker);
  const end = output.lastIndexOf(marker);
  if (start === -1 || end <= start) return null;
  const format = output.charAt(start + marker.length);
  const body = output.slice(start + marker.length + 1, end);
  if (format !== '0' && format !== 'n') return null;
  const records: string[] = [];
  if (format === '0') records.push(...body.split('\0'));
  else
    for (const line of body.replace(/\n$/, '').split('\n')) {
      if (/^[^=\s]+=/.test(line) || records.length === 0) records.push(line);
      else records[records.length - 1] += `\n${line}`;
    }
  const variables: Record<string, string> = {};
  for (const record of records) {
    const equals = record.indexOf('=');
    if (equals <= 0) continue;
    const name = record.slice(0, equals);
    if (variableName.safeParse(name).success) variables[name] = record.slice(equals + 1);
  }
  return variables;
}

/** Variables the shell sets for itself, or the terminal it thinks it has: never the app's. */
const shellOwned = new Set([
  '_',
  'SHLVL',
  'PWD',
  'OLDPWD',
  'TERM',
  'COLUMNS',
  'LINES',
  'PS1',
  'PS2',
  'PS4',
  'PROMPT_COMMAND',
  resolvingVariable,
]);
/** Variables the app and what packs it set for themselves (Electron, an AppImage, a snap, the runner's own). */
const appOwned = ['ELECTRON_', 'CHROME_', 'WB_', 'SNAP', 'APPIMAGE', 'APPDIR', 'ARGV0', 'OWD'];
/**
 * Variables that change what code the app's own processes load (its runtime and binary-test processes, and the Node
 * programs it starts): a profile's choice for a terminal, not something the app takes on at start.
 */
const loaderOwned = new Set(['NODE_OPTIONS', 'LD_PRELOAD', 'DYLD_INSERT_LIBRARIES']);

/**
 * A PATH without its relative entries (`.`, `node_modules/.bin`, and the empty entry, which means `.`): the app starts
 * git and language servers in the workspace's folder, where such an entry would run the folder's own programs.
 */
function absoluteEntries(path: string): string {
  return path
    .split(':')
    .filter((entry) => entry.startsWith('/'))
    .join(':');
}

/**
 * The app's environment with the login shell's merged in: its PATH (absolute entries only) and every other variable the
 * profile sets, except those the shell keeps for itself, those the app sets for itself (see `appOwned`) and those that
 * change what its processes load (see `loaderOwned`), which stay as they are.
 * Variables the profile does not print stay too: this adds and updates, never removes.
 */
export function mergeLoginEnvironment(current: NodeJS.ProcessEnv, login: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...current };
  for (const [name, value] of Object.entries(login)) {
    if (shellOwned.has(name) || loaderOwned.has(name) || appOwned.some((prefix) => name.startsWith(prefix))) continue;
    merged[name] = name === 'PATH' ? absoluteEntries(value) : value;
  }
  return merged;
}

/**
 * Runs the person's login shell (`-i -l -c`) once, and reads the environment it prints between two markers. Not on
 * Windows (an app there gets the person's environment from the system), nor when started from a terminal. A shell
 * that takes longer than the timeout, prints more than the cap, or prints no environment is stopped (its whole
 * process group) and the app goes on with its own environment; the result says why.
 */
export function readLoginEnvironment(options: LoginEnvironmentOptions): Promise<LoginEnvironment> {
  if (options.platform === 'win32') return Promise.resolve({ kind: 'skipped', reason: 'Windows gives apps the environment itself' });
  if (options.fromTerminal) return Promise.resolve({ kind: 'skipped', reason: 'started from a terminal, whose environment it has' });
  const shell = options.shell ?? loginShell(options.env);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
  const marker = `__workbench_environment_${randomBytes(12).toString('hex')}__`;
  return new Promise<LoginEnvironment>((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let errors = '';
    let settled = false;
    // A session of its own: the shell has no terminal to take, and its whole group can be stopped.
    const child = spawn(shell, loginShellArguments(shell, printCommand(marker)), {
      cwd: options.env['HOME'] ?? homedir(),
      env: { ...options.env, [resolvingVariable]: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const stopGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    };
    const timer = setTimeout(() => failed(`did not finish within ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
    const finish = (result: LoginEnvironment): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // What a profile started in the background and left running is the person's; only a shell given up on is stopped.
      if (result.kind === 'failed') stopGroup();
      // The app lets go of the pipes, which a background job may hold for as long as it runs.
      child.stdout.destroy();
      child.stderr.destroy();
      child.unref();
      resolve(result);
    };
    const failed = (why: string): void => {
      const said = errors.trim().split('\n').slice(-3).join(' ').slice(0, 300);
      finish({
        kind: 'failed',
        note: `The login shell ${shell} ${why}${said ? ` (it said: ${said})` : ''}; the app's own environment is used.`,
      });
    };
    // The environment is read once its closing marker has come, without waiting for the pipe to close: a job the profile
    // started in the background (an ssh-agent, a daemon) holds the pipe open for as long as it runs.
    let tail = '';
    const parsed = (): LoginEnvironment | null => {
      const variables = parseEnvironmentOutput(Buffer.concat(chunks).toString('utf8'), marker);
      return variables && variables['PATH'] ? { kind: 'read', shell, variables } : null;
    };
    const read = (): void => {
      const result = parsed();
      if (result) finish(result);
      else failed('did not print its environment');
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (settled) return;
      bytes += chunk.length;
      if (bytes > maxBytes) return failed(`printed more than ${Math.round(maxBytes / 1024)} KB`);
      chunks.push(chunk);
      tail = (tail + chunk.toString('latin1')).slice(-marker.length);
      if (tail === marker && bytes > 2 * marker.length) {
        const result = parsed();
        if (result) finish(result);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (errors.length < 4096) errors += chunk.toString('utf8');
    });
    child.on('error', (error) => failed(`could not start (${error.message})`));
    // The shell has ended: what it printed may still be on its way; a pipe a background job keeps open never closes.
    child.on('exit', () => setTimeout(() => settled || read(), 500).unref());
    child.on('close', () => settled || read());
  });
}

/**
 * Reads the login environment (see `readLoginEnvironment`) and merges it into `target`, the environment every program
 * the app starts inherits. A failure is told on `note`, quietly: the app works on with what it has.
 */
export async function applyLoginEnvironment(
  target: NodeJS.ProcessEnv,
  options: Omit<LoginEnvironmentOptions, 'env'>,
  note: (text: string) => void = (text) => console.warn(text),
): Promise<LoginEnvironment> {
  const login = await readLoginEnvironment({ ...options, env: target });
  if (login.kind === 'failed') note(login.note);
  if (login.kind !== 'read') return login;
  const merged = mergeLoginEnvironment(target, login.variables);
  for (const [name, value] of Object.entries(merged)) if (value !== undefined) target[name] = value;
  return login;
}
