import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { DisposableStore, toDisposable, type Disposable } from '../../shared/lifecycle';

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
}

/** Limits set with `ulimit`, so every process the command starts inherits them. */
export interface ResourceLimits {
  /** Per process: its data (heap and private writable mappings, RLIMIT_DATA), not the address space that V8 and JVMs reserve. */
  readonly memoryMb?: number;
  /**
   * Processes and threads at once (RLIMIT_NPROC). The kernel counts them per user and per user namespace (Linux 5.14 and
   * later), so this only means "the command's processes" inside a sandbox with a user namespace of its own; anywhere else it
   * would count every process of the person. Root is never held to it.
   */
  readonly processes?: number;
  /** CPU seconds per process (RLIMIT_CPU): SIGXCPU when used up, SIGKILL a few seconds later if that was ignored. */
  readonly cpuSeconds?: number;
}

/**
 * The shell text that sets the limits. Each is both soft and hard, so the command cannot raise it again; a hard limit the
 * person already has that is lower makes `ulimit` fail, and then theirs, the stricter, stays. The CPU's hard limit comes a
 * few seconds after the soft one: at the hard limit Linux sends SIGKILL, which would hide why the process ended.
 */
function ulimitCommands(limits: ResourceLimits): string {
  const whole = (value: number): number => Math.max(1, Math.trunc(value));
  const parts: string[] = [];
  if (limits.memoryMb !== undefined) parts.push(`ulimit -d ${whole(limits.memoryMb) * 1024}`);
  if (limits.processes !== undefined) parts.push(`ulimit -u ${whole(limits.processes)}`);
  if (limits.cpuSeconds !== undefined) parts.push(`ulimit -St ${whole(limits.cpuSeconds)}`, `ulimit -Ht ${whole(limits.cpuSeconds) + 5}`);
  return parts.map((part) => `${part} 2>/dev/null; `).join('');
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
  const marker = `\u001b]7777;workbench-done;${token};`;
  const runFolder = mkdtempSync(join(tmpdir(), 'workbench-run-'));
  const scriptPath = join(runFolder, 'command.sh');
  writeFileSync(scriptPath, `${options.command}\n`, { mode: 0o600 });
  const niceness = Math.max(0, Math.min(19, Math.trunc(options.niceness ?? 0)));
  // The pty starts a session of its own, which Linux may schedule as a group of its own
  // (autogroup): the group is made nicer too, where it can be. Where `nice` is missing the command
  // still runs, at the app's priority.
  const nicer =
    niceness > 0
      ? `{ [ -w /proc/self/autogroup ] && echo ${niceness} > /proc/self/autogroup; } 2>/dev/null; command -v nice >/dev/null 2>&1 && wb_nice="nice -n ${niceness}"; `
      : '';
  // The outer shell's own stderr goes nowhere while the command runs (the command's goes to the pty through fd 3): when
  // a limit kills the command's shell, the outer one would otherwise print its internals ("$wb_nice bash ... $WB_SCRIPT").
  const outer = `${ulimitCommands(options.limits ?? {})}wb_nice=; ${nicer}{ $wb_nice bash --noprofile --norc "$WB_SCRIPT" </dev/null 2>&3 3>&-; } 3>&2 2>/dev/null; wb_code=$?; printf '\\033]7777;workbench-done;%s;%d\\007' "$WB_TOKEN" "$wb_code"; IFS= read -r wb_line`;
  const frameMs = options.frameMs ?? 16;
  const liveLimit = options.liveLimitBytes ?? 2 * 1024 * 1024;
  const keep = options.keepBytes ?? 512 * 1024;
  const high = options.highWatermark ?? 1024 * 1024;
  const low = options.lowWatermark ?? 256 * 1024;
  const maxOutput = options.maxOutputBytes ?? Number.POSITIVE_INFINITY;

  return new Promise<PtyRunResult>((resolve) => {
    const shell = ['/bin/bash', '--noprofile', '--norc', '-c', outer];
    const wrapper = options.sandbox?.(runFolder);
    const [program, ...args] = wrapper ? [wrapper.program, ...wrapper.args, ...shell] : shell;
    const child = pty.spawn(program as string, args, {
      name: 'xterm-256color',
      cols: 160,
      rows: 48,
      cwd: options.cwd,
      env: { ...options.env, WB_SCRIPT: scriptPath, WB_TOKEN: token },
    });
    let head = '';
    let tail = '';
    let headBytes = 0;
    let totalBytes = 0;
    let liveBytes = 0;
    let pending: string[] = [];
    let pendingBytes = 0;
    let maxPendingBytes = 0;
    let paused = false;
    let pauses = 0;
    let scan = '';
    let finished = false;
    let timer: Disposable | null = null;
    // What the run holds, released when it finishes: newest first, so the process group is killed
    // after its listeners and timers are gone, and its folder removed last.
    const owned = new DisposableStore();
    owned.add(toDisposable(() => rmSync(runFolder, { recursive: true, force: true })));
    owned.add(toDisposable(() => killGroup(child.pid)));

    const take = (text: string): void => {
      const bytes = Buffer.byteLength(text);
      totalBytes += bytes;
      if (headBytes < keep) {
        head += text;
        headBytes += bytes;
      } else {
        tail += text;
        if (tail.length > keep * 2) tail = tail.slice(-keep);
      }
      if (options.onOutput && liveBytes < liveLimit) {
        pending.push(text);
        pendingBytes += bytes;
        maxPendingBytes = Math.max(maxPendingBytes, pendingBytes);
        timer ??= owned.timeout(flush, frameMs);
      }
    };
    const flush = (): void => {
      timer = null;
      if (pending.length === 0) return;
      let text = pending.join('');
      pending = [];
      pendingBytes = 0;
      if (liveBytes + Buffer.byteLength(text) > liveLimit)
        text = `${text.slice(0, Math.max(0, liveLimit - liveBytes))}\r\n[… live output stops here; the end is kept …]\r\n`;
      liveBytes += Buffer.byteLength(text);
      options.onOutput?.(text);
      if (paused && pendingBytes < low) {
        paused = false;
        child.resume();
      }
    };
    const finish = (result: { exitCode: number | null; timedOut: boolean; cancelled: boolean; outputLimitReached?: boolean }): void => {
      if (finished) return;
      finished = true;
      flush();
      owned.dispose().catch((error: unknown) => console.error('Could not release what a command held:', error));
      const droppedBytes = Math.max(0, totalBytes - Buffer.byteLength(head) - Buffer.byteLength(tail.slice(-keep)));
      const output = droppedBytes > 0 ? `${head}\r\n[… ${droppedBytes} bytes of output omitted …]\r\n${tail.slice(-keep)}` : head + tail;
      resolve({ outputLimitReached: false, ...result, output, totalBytes, droppedBytes, pauses, maxPendingBytes });
    };

    owned.add(
      child.onData((data) => {
        if (finished) return;
        scan += data;
        const at = scan.indexOf(marker);
        if (at !== -1) {
          const end = scan.indexOf('\u0007', at);
          if (end === -1) return;
          take(scan.slice(0, at));
          finish({ exitCode: Number(scan.slice(at + marker.length, end)), timedOut: false, cancelled: false });
          return;
        }
        // Hold back only what could be the start of a marker split across two chunks.
        let safe = scan.length;
        const escape = scan.lastIndexOf('\u001b', scan.length - 1);
        if (escape !== -1 && scan.length - escape < marker.length + 24) {
          const rest = scan.slice(escape);
          if (marker.startsWith(rest) || rest.startsWith(marker)) safe = escape;
        }
        if (safe > 0) {
          take(scan.slice(0, safe));
          scan = scan.slice(safe);
        }
        if (totalBytes > maxOutput) {
          finish({ exitCode: null, timedOut: false, cancelled: false, outputLimitReached: true });
          return;
        }
        if (!paused && pendingBytes > high) {
          paused = true;
          pauses += 1;
          child.pause();
        }
      }),
    );
    owned.add(
      child.onExit(() => {
        // The marker comes before the exit; an exit without it means the shell was killed.
        if (!finished) {
          take(scan);
          finish({ exitCode: null, timedOut: false, cancelled: options.signal.aborted });
        }
      }),
    );
    owned.timeout(() => {
      take(scan);
      scan = '';
      finish({ exitCode: null, timedOut: true, cancelled: false });
    }, options.timeoutMs);
    const onAbort = (): void => {
      take(scan);
      scan = '';
      finish({ exitCode: null, timedOut: false, cancelled: true });
    };
    if (options.signal.aborted) onAbort();
    else owned.listen(options.signal, 'abort', onAbort, { once: true });
  });
}
