/*
 * The resource limits one of the agent's commands runs under, and the notes that tell the model when a limit probably
 * stopped it.
 */

import type { CommandLimits } from '../../shared/domain';
import type { ResourceLimits } from './pty-runner';

/** Where the person changes the limits, named in every note so the model can tell them. */
const where = 'Settings → Command limits';

/**
 * The limits one command runs under. Memory and CPU time everywhere; processes only in bubblewrap, whose user namespace
 * makes the kernel count the sandbox's processes alone: without it (no sandbox, or Seatbelt on macOS, where the count
 * is per user too) the limit would count every process of the person's desktop, and their desktop could not start one.
 */
export function resourceLimitsFor(limits: CommandLimits, countsOwnProcesses: boolean): ResourceLimits {
  return {
    memoryMb: limits.memoryMb,
    cpuSeconds: limits.cpuSeconds,
    ...(countsOwnProcesses ? { processes: limits.processes } : {}),
  };
}

const megabytes = (mb: number): string => (mb >= 1024 && mb % 1024 === 0 ? `${mb / 1024} GB` : `${mb} MB`);

/** A duration in the largest whole unit: "4 h", "90 min", "45 s". */
export function cpuTime(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

// What bash, Python, Node, libstdc++, the JVM and Go say when a new process or thread cannot be made.
const forkFailed =
  /fork: (retry: )?Resource temporarily unavailable|BlockingIOError: \[Errno 11\]|spawn \S* ?EAGAIN|pthread_create\b.*(Resource temporarily unavailable|EAGAIN)|unable to create (new )?native thread|failed to create new OS thread|Cannot fork/;
// What allocators and runtimes say when memory runs out: glibc's strerror, coreutils, bash, C++, Node, Python, Perl,
// Rust, the JVM and Go.
const memoryFailed =
  /Cannot allocate memory|memory exhausted|xmalloc: |xrealloc: |std::bad_alloc|JavaScript heap out of memory|MemoryError|Out of memory!|memory allocation of \d+ bytes failed|OutOfMemoryError|runtime: out of memory|cannot allocate \d+ bytes/;

/**
 * The note for the model when a limit probably ended the command, naming the limit, its value and where the person can
 * raise it; null when nothing points to one. Read from the exit code and the output, as the kernel tells nothing else:
 * SIGXCPU (bash's 152, "CPU time limit exceeded") for CPU time, failed forks for processes, failed allocations for memory.
 */
export function limitNote(run: { exitCode: number | null; output: string }, limits: ResourceLimits): string | null {
  const { exitCode, output } = run;
  if (limits.cpuSeconds !== undefined && (exitCode === 152 || /CPU time limit exceeded/.test(output)))
    return `[a process used up its CPU time limit (${cpuTime(limits.cpuSeconds)} per process) and was stopped. If the work needs more, the person can raise the limit in ${where}.]`;
  if (exitCode === 0) return null;
  if (limits.processes !== undefined && forkFailed.test(output))
    return `[the command reached the process limit (${limits.processes} processes and threads at once in the sandbox): starting another failed. Run fewer at a time (for example make -j4), or the person can raise the limit in ${where}.]`;
  if (limits.memoryMb !== undefined && memoryFailed.test(output))
    return `[a process seems to have run out of memory: each may use at most ${megabytes(limits.memoryMb)} (the memory limit). Use less, or the person can raise the limit in ${where}.]`;
  return null;
}

/** The note for a run stopped because it printed too much. */
export function outputLimitNote(outputMb: number): string {
  return `[stopped: the command printed more than ${megabytes(outputMb)}, the output limit; the start and the end of its output are above. Print less (write to a file, filter with grep, head or tail), or the person can raise the limit in ${where}.]`;
}
