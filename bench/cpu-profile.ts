/** A V8 CPU profile, as Chrome's and Node's inspectors return it. */
export interface CpuProfile {
  readonly nodes: ReadonlyArray<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  /** Microseconds of the monotonic clock (`process.hrtime` in Node), like each sample's time. */
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Now, on the clock a profile of this process uses: microseconds of the monotonic clock. */
export const profileClock = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * Adds each function's own time in a profile (ms, by name, file and line) to `into`; profiles of
 * several runs add up. With `window` (on `profileClock`), only samples taken inside it count:
 * starting the profiler takes a while, and that time lands on the first samples.
 */
export function addSelfTimes(
  profile: CpuProfile,
  into: Map<string, number> = new Map(),
  window?: { readonly from: number; readonly to: number },
): Map<string, number> {
  return addSelfTimesIn(profile, [window ?? { from: -Infinity, to: Infinity }], into);
}

/** The functions with the most own time, one a line. */
export function formatSelfTimes(self: ReadonlyMap<string, number>, count = 25): string {
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, ms]) => `${ms.toFixed(1)} ms ${key}`)
    .join('\n');
}

type ProfileNode = CpuProfile['nodes'][number];

/** A function as the summaries name it: its name, file and line. */
function frameKey(node: ProfileNode | undefined): string {
  return `${node?.callFrame.functionName || '(anonymous)'} ${node?.callFrame.url.split('/').at(-1) ?? ''}:${node?.callFrame.lineNumber ?? 0}`;
}

/** Calls `visit` with each sample taken inside any of `windows` (sorted by start, not overlapping), in one pass. */
function eachSampleIn(
  profile: CpuProfile,
  windows: ReadonlyArray<{ readonly from: number; readonly to: number }>,
  visit: (id: number, ms: number) => void,
): void {
  let at = profile.startTime;
  let index = 0;
  profile.samples.forEach((id, sample) => {
    at += profile.timeDeltas[sample] ?? 0;
    while (index < windows.length && (windows[index]?.to ?? 0) < at) index += 1;
    const window = windows[index];
    if (window && at >= window.from) visit(id, (profile.timeDeltas[sample] ?? 0) / 1000);
  });
}

/** Adds each function's own time inside any of `windows` (on `profileClock`) to `into`. */
export function addSelfTimesIn(
  profile: CpuProfile,
  windows: ReadonlyArray<{ readonly from: number; readonly to: number }>,
  into: Map<string, number> = new Map(),
): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  eachSampleIn(profile, windows, (id, ms) => {
    const key = frameKey(byId.get(id));
    into.set(key, (into.get(key) ?? 0) + ms);
  });
  return into;
}

/**
 * Adds each function's total time (its own and its callees', counted once per sample) inside any
 * of `windows` to `into`: where time goes by caller, for the functions of this project.
 */
export function addTotalTimesIn(
  profile: CpuProfile & { readonly nodes: ReadonlyArray<{ id: number; children?: readonly number[] }> },
  windows: ReadonlyArray<{ readonly from: number; readonly to: number }>,
  into: Map<string, number> = new Map(),
): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  eachSampleIn(profile, windows, (id, ms) => {
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) {
      const key = frameKey(byId.get(current));
      if (seen.has(key)) continue;
      seen.add(key);
      into.set(key, (into.get(key) ?? 0) + ms);
    }
  });
  return into;
}
