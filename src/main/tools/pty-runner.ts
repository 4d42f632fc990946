/*
 * Runs one shell command in a pty: in the sandbox where there is one, under its limits, streamed as it runs, and
 * its process group killed at a timeout or Stop.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { DisposableStore, toDisposable } from '../../shared/lifecycle';
import { outerFileText, outerShellArguments, shellPathText } from './command-shell';
import { PtyOutput, type PtyOutputOptions } from './pty-output';
import { completionMarker, outerShellLine, scanForMarker, type ResourceLimits } from './pty-shell-line';

export type { ResourceLimits } from './pty-shell-line';

export interface PtyRunOptions {
  readonly command: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** Live output, at most once per `frameMs`, never more than `liveLimitBytes` in all. */
  readonly onOutput?: (text: string) => void;
  readonly frameMs?: number;
  readonly liveLimitBytes?: number;
  /** Bytes kept from the start and from the end of the output; the middle of a longer one is dropped. */
  readonly keepBytes?: number;
  /** The pty is paused above this many bytes read but not yet handled, and resumed below `lowWatermark`. */
  readonly highWatermark?: number;
  readonly lowWatermark?: number;
  /**
   * How much lower than the app's the command's CPU priority is (`nice`; 0 or absent: the same), so
   * that a command keeping every core busy cannot starve the window that shows it.
   */
  readonly niceness?: number;
  /** Wraps the shell in a sandbox: given the folder holding the command file, returns the program and its arguments to run first. */
  readonly sandbox?: (runFolder: string) => { program: string; args: string[] };
  /** Resource limits the shell sets before the command runs; a limit left out is not set. */
  readonly limits?: ResourceLimits;
  /** The run is stopped, like a timeout, once the command has printed more than this many bytes. */
  readonly maxOutputBytes?: number;
  /** The bash to start (Git for Windows' bash.exe on Windows); `/bin/bash` unless given. */
  readonly shellPath?: string;
  /** The system the command runs on, which decides how paths are given to bash and how the command is stopped. */
  readonly platform?: NodeJS.Platform;
}

export interface PtyRunResult {
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  /** Stopped because the output passed `maxOutputBytes`. */
  readonly outputLimitReached: boolean;
  /** The start and the end of the output (the middle dropped past `keepBytes`), ANSI escapes included. */
  readonly output: string;
  readonly totalBytes: number;
  readonly droppedBytes: number;
  readonly pauses: number;
  readonly maxPendingBytes: number;
}

/**
 * Stops the command and everything it started. Elsewhere than on Windows the pty's process group is killed; Windows has
 * no process groups to signal, and there node-pty's kill ends every process attached to the pseudo console.
 */
export function stopAll(child: Pick<pty.IPty, 'pid' | 'kill'>, platform: NodeJS.Platform): void {
  if (platform !== 'win32') {
    killGroup(child.pid);
    return;
  }
  try {
    child.kill();
  } catch {
    // Already gone.
  }
}

/** Kills a process group: politely, then for sure a moment later. Never blocks. */
function killGroup(pid: number): void {
  const send = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  };
  send('SIGTERM');
  // Not owned by the run on purpose: the group must die even after the run has let everything go.
  // Unreferenced, it never keeps the app alive.
  setTimeout(() => send('SIGKILL'), 300).unref();
}

/** The run's defaults for what its options leave out. */
function outputOptions(options: PtyRunOptions): PtyOutputOptions {
  return {
    ...(options.onOutput ? { onOutput: options.onOutput } : {}),
    frameMs: options.frameMs ?? 16,
    liveLimitBytes: options.liveLimitBytes ?? 2 * 1024 * 1024,
    keepBytes: options.keepBytes ?? 512 * 1024,
    highWatermark: options.highWatermark ?? 1024 * 1024,
    lowWatermark: options.lowWatermark ?? 256 * 1024,
  };
}

/**
 * Starts the outer shell in a pty (inside the sandbox, when there is one), with its line and the command in files of
 * the run's folder, and the marker's token.
 */
function spawnShell(options: PtyRunOptions, runFolder: string, scriptPath: string, token: string): pty.IPty {
  const platform = options.platform ?? process.platform;
  const outerPath = join(runFolder, 'outer.sh');
  writeFileSync(outerPath, outerFileText(outerShellLine(options.limits ?? {}, options.niceness ?? 0)), { mode: 0o600 });
  const shell = [options.shellPath ?? '/bin/bash', ...outerShellArguments()];
  const wrapper = options.sandbox?.(runFolder);
  const [program, ...args] = wrapper ? [wrapper.program, ...wrapper.args, ...shell] : shell;
  return pty.spawn(program as string, args, {
    name: 'xterm-256color',
    cols: 160,
    rows: 48,
    cwd: options.cwd,
    env: {
      ...options.env,
      WB_OUTER: shellPathText(outerPath, platform),
      WB_SCRIPT: shellPathText(scriptPath, platform),
      WB_TOKEN: token,
    },
  });
}

type RunEnd = Pick<PtyRunResult, 'exitCode' | 'timedOut' | 'cancelled'> & { readonly outputLimitReached?: boolean };

/**
 * Runs one command in a pty and resolves when the shell has printed the completion marker, not on
 * the exit event: node-pty can drop the last kilobytes of a process that exits at once (its issue
 * 72), but everything before the marker has arrived once the marker has. The command runs from a
 * file by a child shell, so its quoting cannot break the marker line; the outer shell then waits
 * on input so it does not exit before its output is read. The limits are set by the outer shell
 * before the command starts. Stop, the timeout and too much output kill the whole process group.
 */
export function runInPty(options: PtyRunOptions): Promise<PtyRunResult> {
  const token = randomBytes(9).toString('hex');
  const marker = completionMarker(token);
  const runFolder = mkdtempSync(join(tmpdir(), 'workbench-run-'));
  const scriptPath = join(runFolder, 'command.sh');
  writeFileSync(scriptPath, `${options.command}\n`, { mode: 0o600 });
  const maxOutput = options.maxOutputBytes ?? Number.POSITIVE_INFINITY;

  return new Promise<PtyRunResult>((resolve) => {
    const child = spawnShell(options, runFolder, scriptPath, token);
    // What the run holds, released when it finishes: newest first, so the process group is killed
    // after its listeners and timers are gone, and its folder removed last.
    const owned = new DisposableStore();
    owned.add(toDisposable(() => rmSync(runFolder, { recursive: true, force: true })));
    owned.add(toDisposable(() => stopAll(child, options.platform ?? process.platform)));
    const output = new PtyOutput(outputOptions(options), child, owned);
    let scan = '';
    let finished = false;

    const finish = (end: RunEnd): void => {
      if (finished) return;
      finished = true;
      output.flush();
      owned.dispose().catch((error: unknown) => console.error('Could not release what a command held:', error));
      resolve({ outputLimitReached: false, ...end, ...output.kept() });
    };
    /** Ends the run with what has arrived so far. */
    const stop = (end: RunEnd): void => {
      if (finished) return;
      output.take(scan);
      scan = '';
      finish(end);
    };

    owned.add(
      child.onData((data) => {
        if (finished) return;
        scan += data;
        const found = scanForMarker(scan, marker);
        if (found.kind === 'incomplete') return;
        if (found.kind === 'ended') {
          output.take(found.before);
          finish({ exitCode: found.exitCode, timedOut: false, cancelled: false });
          return;
        }
        if (found.safe > 0) {
          output.take(scan.slice(0, found.safe));
          scan = scan.slice(found.safe);
        }
        if (output.totalBytes > maxOutput) {
          finish({ exitCode: null, timedOut: false, cancelled: false, outputLimitReached: true });
          return;
        }
        output.holdBack();
      }),
    );
    // The marker comes before the exit; an exit without it means the shell was killed.
    owned.add(child.onExit(() => stop({ exitCode: null, timedOut: false, cancelled: options.signal.aborted })));
    owned.timeout(() => stop({ exitCode: null, timedOut: true, cancelled: false }), options.timeoutMs);
    const onAbort = (): void => stop({ exitCode: null, timedOut: false, cancelled: true });
    if (options.signal.aborted) onAbort();
    else owned.listen(options.signal, 'abort', onAbort, { once: true });
  });
}
