/*
 * The shell line a pty run starts: the limits and the lower priority it sets, the command file it runs in a child shell,
 * and the completion marker it prints after it, which the runner waits for.
 */

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

/** The start of the marker the outer shell prints once the command has ended: its exit code and BEL follow. */
export function completionMarker(token: string): string {
  return `\u001b]7777;workbench-done;${token};`;
}

/**
 * The outer shell's line. It runs the command file (`$WB_SCRIPT`) in a child shell, so the command's quoting cannot break
 * the marker line, prints the marker with `$WB_TOKEN` and the exit code, then waits on input so that it does not exit
 * before its output is read. `niceness` is clamped to what `nice` takes.
 */
export function outerShellLine(limits: ResourceLimits, niceness: number): string {
  const nice = Math.max(0, Math.min(19, Math.trunc(niceness)));
  // The pty starts a session of its own, which Linux may schedule as a group of its own
  // (autogroup): the group is made nicer too, where it can be. Where `nice` is missing the command
  // still runs, at the app's priority.
  const nicer =
    nice > 0
      ? `{ [ -w /proc/self/autogroup ] && echo ${nice} > /proc/self/autogroup; } 2>/dev/null; command -v nice >/dev/null 2>&1 && wb_nice="nice -n ${nice}"; `
      : '';
  // The outer shell's own stderr goes nowhere while the command runs (the command's goes to the pty through fd 3): when
  // a limit kills the command's shell, the outer one would otherwise print its internals ("$wb_nice bash ... $WB_SCRIPT").
  return `${ulimitCommands(limits)}wb_nice=; ${nicer}{ $wb_nice bash --noprofile --norc "$WB_SCRIPT" </dev/null 2>&3 3>&-; } 3>&2 2>/dev/null; wb_code=$?; printf '\\033]7777;workbench-done;%s;%d\\007' "$WB_TOKEN" "$wb_code"; IFS= read -r wb_line`;
}

/**
 * What a scan of the output found: the marker whole (the text before it, and the exit code), the marker without its end
 * yet (nothing is passed on until the rest arrives), or no marker (the first `safe` characters may be passed on).
 */
export type MarkerScan =
  | { readonly kind: 'ended'; readonly before: string; readonly exitCode: number }
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'output'; readonly safe: number };

/**
 * Looks for the whole marker (up to its BEL) in what has arrived but not been passed on. Without it, everything may be
 * passed on except what could be the start of a marker split across two chunks.
 */
export function scanForMarker(scan: string, marker: string): MarkerScan {
  const at = scan.indexOf(marker);
  if (at !== -1) {
    const end = scan.indexOf('\u0007', at);
    if (end === -1) return { kind: 'incomplete' };
    return { kind: 'ended', before: scan.slice(0, at), exitCode: Number(scan.slice(at + marker.length, end)) };
  }
  // Hold back only what could be the start of a marker split across two chunks.
  let safe = scan.length;
  const escape = scan.lastIndexOf('\u001b', scan.length - 1);
  if (escape !== -1 && scan.length - escape < marker.length + 24) {
    const rest = scan.slice(escape);
    if (marker.startsWith(rest) || rest.startsWith(marker)) safe = escape;
  }
  return { kind: 'output', safe };
}
