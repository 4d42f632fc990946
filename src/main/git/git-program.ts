/*
 * The person's own git, run as a program with arguments (never through a shell), with the settings that keep a
 * repository's configuration from running programs of its own on the app's read-only calls.
 */

import { spawn } from 'node:child_process';
import { WorkbenchError } from '../../shared/errors';

/** The oldest git the app works with: `switch` (2.23) and `--end-of-options` (2.24) are used. */
export const minimumGitVersion: readonly [number, number] = [2, 25];

/** How long a stopped git has to remove its locks and end before it is killed. */
const stopGraceMs = 5_000;

/** A git command that failed, or git missing: the message says what happened and what to do. */
export class GitError extends WorkbenchError {}

/**
 * What the configuration may run during a call. `none`: nothing (status, diff, log, show and the app's own figures:
 * no fsmonitor, no filter, no hook, no pager, no external diff or textconv). `hooks`: the person's commit and
 * checkout machinery (hooks and filters) runs, as it would for their own `git commit`; still no fsmonitor or pager.
 */
export type ProgramsAllowed = 'none' | 'hooks';

export interface GitRunOptions {
  readonly programs?: ProgramsAllowed;
  /** Names of the filter drivers the configuration defines, switched off when programs are `none`. */
  readonly filters?: readonly string[];
  readonly input?: string;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  /** Output past this many bytes is cut (and `truncated` says so). */
  readonly maxBytes?: number;
  /** A failure exit is returned rather than thrown (a check whose answer is its exit code). */
  readonly allowFailure?: boolean;
}

export interface GitResult {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly exitCode: number;
  readonly truncated: boolean;
}

export type GitAvailability =
  { readonly available: true; readonly version: string } | { readonly available: false; readonly reason: string };

/** Variables of the app's environment that would point git elsewhere than the folder it is asked about. */
const redirecting = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_CEILING_DIRECTORIES',
  'GIT_EXTERNAL_DIFF',
  'GIT_PAGER',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_LITERAL_PATHSPECS',
  'GIT_GLOB_PATHSPECS',
  'GIT_ICASE_PATHSPECS',
  'GIT_NOGLOB_PATHSPECS',
];

/**
 * The `-c` settings every call carries: no fsmonitor daemon or pager, paths as bytes, no colour. On read-only calls
 * the filter drivers and hooks are switched off too (their names come from the configuration: a filter set to an
 * empty command is not run).
 */
export function safeConfigArguments(programs: ProgramsAllowed, filters: readonly string[]): string[] {
  // No signature checks either: `log.showSignature` would run the configured gpg.program on every signed commit shown.
  const settings = [
    'core.fsmonitor=false',
    'core.pager=cat',
    'core.quotePath=false',
    'color.ui=false',
    'advice.detachedHead=false',
    'log.showSignature=false',
  ];
  if (programs === 'none') {
    // A partial clone fetches missing objects on demand through the remote's transport (core.sshCommand and the like).
    settings.push('core.hooksPath=/dev/null', 'protocol.allow=never');
    for (const name of filters)
      settings.push(`filter.${name}.clean=`, `filter.${name}.smudge=`, `filter.${name}.process=`, `filter.${name}.required=false`);
  }
  return [...settings.flatMap((setting) => ['-c', setting]), '--no-pager', '--literal-pathspecs'];
}

/** The environment of a git call: the app's own, without what would redirect git, in the C locale so messages can be read. */
export function gitEnvironment(programs: ProgramsAllowed, source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) if (value !== undefined && !redirecting.includes(name)) env[name] = value;
  return {
    ...env,
    LC_ALL: 'C',
    LANGUAGE: 'C',
    GIT_TERMINAL_PROMPT: '0',
    // No editor is ever opened: messages come with -F.
    GIT_EDITOR: ':',
    // Reads take no lock on the index, so a person's own git is never told the index is locked (as VS Code does).
    ...(programs === 'none' ? { GIT_OPTIONAL_LOCKS: '0', GIT_NO_LAZY_FETCH: '1' } : {}),
  };
}

/** A failure's stderr in the person's words, where git's are known. */
export function describeGitFailure(stderr: string, args: readonly string[]): string {
  const text = stderr.trim();
  const command = args.find((arg) => !arg.startsWith('-') && !arg.includes('=')) ?? 'git';
  if (/index\.lock'?: File exists/.test(text))
    return "The repository's index is locked: another git is running, or one stopped and left .git/index.lock behind. Nothing was changed; try again when it is done, or delete the lock file if no git is running.";
  if (/detected dubious ownership/.test(text))
    return "Git refuses this repository: it belongs to another user (git's safe.directory). Nothing was changed; add it with `git config --global --add safe.directory <folder>` if you trust it.";
  if (/Please tell me who you are|empty ident name|unable to auto-detect email/.test(text))
    return 'Git has no name and email for commits: set user.name and user.email (git config --global user.name "…"). Nothing was committed.';
  const lines = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('hint:'));
  return `git ${command} failed: ${lines.slice(0, 12).join('\n') || 'no message'}`;
}

/** The person's git: found on the PATH (or at a path given), its version checked once. */
export class GitProgram {
  private availability: Promise<GitAvailability> | null = null;

  constructor(
    readonly program = 'git',
    readonly baseEnv: NodeJS.ProcessEnv = process.env,
  ) {}

  /** Whether git is there and new enough, asked once. */
  check(): Promise<GitAvailability> {
    this.availability ??= this.version();
    return this.availability;
  }

  /** Runs git in `cwd` with these arguments after the safe settings; throws a `GitError` on failure unless allowed. */
  async run(cwd: string, args: readonly string[], options: GitRunOptions = {}): Promise<GitResult> {
    const availability = await this.check();
    if (!availability.available) throw new GitError('git_unavailable', availability.reason);
    const programs = options.programs ?? 'none';
    const full = [...safeConfigArguments(programs, options.filters ?? []), ...args];
    const result = await this.spawn(cwd, full, programs, options);
    if (result.exitCode !== 0 && !options.allowFailure)
      throw new GitError('git_failed', describeGitFailure(result.stderr, args), { detail: result.stderr.slice(0, 4000) });
    return result;
  }

  private async version(): Promise<GitAvailability> {
    try {
      const result = await this.spawn(process.cwd(), ['--version'], 'none', { timeoutMs: 10_000 });
      const found = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(result.stdout.toString('utf8'));
      if (!found) return { available: false, reason: `The program "${this.program}" did not say which git it is.` };
      const major = Number(found[1]);
      const minor = Number(found[2]);
      const version = `${major}.${minor}${found[3] === undefined ? '' : `.${found[3]}`}`;
      const [needMajor, needMinor] = minimumGitVersion;
      if (major < needMajor || (major === needMajor && minor < needMinor))
        return { available: false, reason: `Git ${version} is too old: the app needs git ${needMajor}.${needMinor} or newer.` };
      return { available: true, version };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return {
        available: false,
        reason:
          code === 'ENOENT'
            ? 'Git was not found on this computer (no "git" on the PATH): install git to see branches and commit from the app.'
            : `Git could not be started: ${(error as Error).message}`,
      };
    }
  }

  private spawn(cwd: string, args: readonly string[], programs: ProgramsAllowed, options: GitRunOptions): Promise<GitResult> {
    const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted) {
        reject(new WorkbenchError('cancelled', 'Stopped before git ran.'));
        return;
      }
      // A group of its own, so a stop reaches the hooks git runs too.
      const group = process.platform !== 'win32';
      const child = spawn(this.program, args, {
        cwd,
        env: gitEnvironment(programs, this.baseEnv),
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
        detached: group,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      let stderr = '';
      let ended: string | null = null;
      let killer: NodeJS.Timeout | null = null;
      const signal = (name: NodeJS.Signals): void => {
        try {
          if (group && child.pid !== undefined) process.kill(-child.pid, name);
          else child.kill(name);
        } catch {
          // Gone already.
        }
      };
      // SIGTERM first: git removes its lock files when it is told to stop, and SIGKILL would leave index.lock behind.
      const stop = (why: string): void => {
        ended ??= why;
        signal('SIGTERM');
        killer ??= setTimeout(() => signal('SIGKILL'), stopGraceMs);
      };
      // Calls that run the person's hooks have no time limit of the app's: a long pre-commit check is theirs to run.
      const limit = options.timeoutMs ?? (programs === 'hooks' ? null : 60_000);
      const timer = limit === null ? null : setTimeout(() => stop(`git did not finish within ${Math.round(limit / 1000)} s`), limit);
      const onAbort = (): void => stop('stopped');
      options.signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout.on('data', (chunk: Buffer) => {
        if (size >= maxBytes) {
          truncated = true;
          return;
        }
        const room = maxBytes - size;
        if (chunk.length > room) truncated = true;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.length, room);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 64_000) stderr += chunk.toString('utf8');
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input ?? '');
      const finish = (): void => {
        if (timer) clearTimeout(timer);
        if (killer) clearTimeout(killer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      child.on('error', (error) => {
        finish();
        reject(error);
      });
      child.on('close', (code) => {
        finish();
        if (ended === 'stopped') reject(new WorkbenchError('cancelled', 'Stopped while git was running.'));
        else if (ended !== null) reject(new GitError('git_failed', `${ended}; it was stopped.`));
        else resolve({ stdout: Buffer.concat(chunks), stderr, exitCode: code ?? 1, truncated });
      });
    });
  }
}
