import { Session as InspectorSession } from 'node:inspector/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openDatabase } from '../src/main/store/database';
import { SqliteCheckpointStore } from '../src/main/store/sqlite-checkpoint-store';
import type { WorkbenchCore } from '../src/main/core/workbench-core';
import { temporaryFolder } from '../test/helpers';
import { startTestHost } from '../test/host/host';
import { LoopbackTransport } from '../test/host/loopback-transport';
import { createNodeCore } from '../test/host/node-core';
import { recordSessions, type RecordedSession } from '../test/recorded-session';
import { ScriptedModelServer } from '../test/scripted-model-server';
import { addSelfTimes, formatSelfTimes, profileClock, type CpuProfile } from './cpu-profile';
import { launchChromium, openAppPage, prepareChromium, timeOpen } from './ui-page';

/*
 * Opening a session and starting a turn in it, for sessions of 10, 1,000 and 10,000 journal
 * events recorded through the runtime with one turn shape (test/recorded-session.ts), so they
 * differ only in how much history comes before the last turn. A turn of that shape is about 27
 * events, so the "10" session is one turn. Through the IPC handlers on a loopback transport:
 *  - start: from `run:send` to the moment the model request has fully arrived at the scripted
 *    server (what a person waits for after pressing Enter), and to `run:send` returning. Every
 *    start uses a copy of its own, so the session does not grow from one sample to the next; it
 *    is opened first as the renderer opens it. The copies are imported before anything is
 *    measured, and their checkpoints compacted as the idle app does, so they are stored like
 *    sessions the app has had for a while. The first message sent in an opened session reads
 *    its conversation from the checkpoints; the next one (`start, next`) starts from the
 *    conversation the turn before ended with, as a person's second message does.
 *  - open: `session:open` with the renderer's `recentTurns`, and without (the whole line).
 * Warm: one core, after warm-up rounds. Cold: the first open and start after a new core has opened
 * the database (in this process, so compiled code stays warm). Sizes take turns in every round so
 * that a busy moment of the machine falls on all of them. Then the real UI in Chromium: selecting
 * the 10,000-event session until its last answer is painted, against the one-turn session, each
 * in a freshly loaded page. Ratios are against the smallest session measured in the same run;
 * for opening also against the 1,000-event one, which like the 10,000 has more turns than the
 * renderer asks for, so both answers hold the same 30 turns.
 */

const sizes = [10, 1_000, 10_000] as const;
type Size = (typeof sizes)[number];
const titles: Record<Size, string> = { 10: 'One turn', 1_000: 'A thousand events', 10_000: 'Ten thousand events' };
/** The turns the renderer asks for first (`recentTurnsFirst` in src/renderer/src/store.ts). */
const recentTurns = 30;

const numberFromEnvironment = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};
const warmups = 5;
const repeats = numberFromEnvironment('SESSION_OPEN_REPEATS', 30);
const coldRepeats = numberFromEnvironment('SESSION_OPEN_COLD_REPEATS', 15);
const uiRepeats = numberFromEnvironment('SESSION_OPEN_UI_REPEATS', 10);

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};
const percentile = (values: readonly number[], p: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? Number.NaN;
const milliseconds = (value: number): number => Number(value.toFixed(3));
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

setFlagsFromString('--expose-gc');
const fullCollection = runInNewContext('gc') as () => void;

/**
 * Every sample starts after a full garbage collection and a moment's rest, so the garbage left by
 * preparing it (importing a 4 MB copy, the sample before) is not charged to it. What the measured
 * call allocates itself, and collects meanwhile, still counts.
 */
async function settle(): Promise<void> {
  fullCollection();
  await pause(20);
}

/** Samples per size, and their medians. */
class Samples {
  private readonly bySize = new Map<Size, number[]>();
  add(size: Size, value: number): void {
    this.bySize.set(size, [...(this.bySize.get(size) ?? []), value]);
  }
  median(size: Size): number {
    return median(this.bySize.get(size) ?? []);
  }
  /** Medians keyed by size, for the JSON line. */
  medians(): Record<string, number> {
    return Object.fromEntries(sizes.map((size) => [String(size), milliseconds(this.median(size))]));
  }
  /** The median with the 10th to 90th percentile around it, for people. */
  describe(size: Size): string {
    const values = this.bySize.get(size) ?? [];
    return `${this.median(size).toFixed(2)} ms (p10 ${percentile(values, 10).toFixed(2)}, p90 ${percentile(values, 90).toFixed(2)}, n ${values.length})`;
  }
  /** The 10,000-event session's median over a smaller one's. */
  ratio(over: Size = 10): number {
    return Number((this.median(10_000) / this.median(over)).toFixed(2));
  }
}

/** A model request as it reached the model server: when it had fully arrived, and its size. */
interface Arrival {
  readonly at: number;
  readonly bytes: number;
}

/** The scripted model: answers every request with "Done." and tells when the next one has arrived. */
async function startModel(): Promise<{ server: ScriptedModelServer; nextArrival: () => Promise<Arrival> }> {
  let waiting: ((arrival: Arrival) => void) | null = null;
  const server = await ScriptedModelServer.start({
    fallback: (request) => {
      waiting?.({ at: request.receivedAt, bytes: Number(request.headers['content-length'] ?? Number.NaN) });
      waiting = null;
      return { steps: [{ kind: 'text', text: 'Done.' }] };
    },
  });
  return { server, nextArrival: () => new Promise<Arrival>((resolve) => (waiting = resolve)) };
}

interface RunningCore {
  readonly core: WorkbenchCore;
  call<T>(channel: string, payload: unknown): Promise<T>;
}

/** The app's core on `dataDir`, reached only through its IPC channels, as the renderer reaches it. */
async function startCore(dataDir: string): Promise<RunningCore> {
  const transport = new LoopbackTransport();
  transport.recordEvents = false;
  const { core } = await createNodeCore({ dataDir, transport, validateOutputs: false });
  return {
    core,
    async call<T>(channel: string, payload: unknown): Promise<T> {
      const result = await transport.invoke(channel, payload);
      if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
      return result.value as T;
    },
  };
}

/** Opens a session as the renderer does: its last turns first, then the whole line if that was not all. Returns the first call's time. */
async function openAsRenderer(running: RunningCore, sessionId: string): Promise<number> {
  const started = performance.now();
  const recent = await running.call<{ complete: boolean }>('session:open', { sessionId, recentTurns });
  const elapsed = performance.now() - started;
  if (!recent.complete) await running.call('session:open', { sessionId });
  return elapsed;
}

type Model = Awaited<ReturnType<typeof startModel>>;

/** Sends a message to an open, idle session; times it to `run:send` returning and to the request reaching the model. */
async function timeStart(
  running: RunningCore,
  model: Model,
  sessionId: string,
): Promise<{ reached: number; returned: number; requestBytes: number }> {
  // A person reads the opened session before typing: what the open left behind has settled.
  await settle();
  const arrival = model.nextArrival();
  const started = performance.now();
  const sent = await running.call<{ queued: boolean }>('run:send', { sessionId, text: 'And what comes after it?' });
  const returned = performance.now() - started;
  if (sent.queued) throw new Error('the session was busy');
  const { at, bytes } = await arrival;
  await running.core.runtime?.whenIdle(sessionId);
  return { reached: at - started, returned, requestBytes: bytes };
}

async function importSession(running: RunningCore, recorded: RecordedSession): Promise<string> {
  return (await running.call<{ id: string }>('session:import', { document: recorded.document })).id;
}

/** Profiles `work` in this process, adding each function's own time to `into`. */
async function profiled<T>(inspector: InspectorSession | null, into: Map<string, number>, work: () => Promise<T>): Promise<T> {
  if (!inspector) return work();
  await settle();
  await inspector.post('Profiler.start');
  const from = profileClock();
  try {
    return await work();
  } finally {
    const to = profileClock();
    const { profile } = (await inspector.post('Profiler.stop')) as { profile: CpuProfile };
    addSelfTimes(profile, into, { from, to });
  }
}

/**
 * Writes every checkpoint segment that is due, as the app does while it is idle, so that imported
 * copies are stored like sessions the app has had for a while. Done on a closed database with the
 * store's public API, as bench/checkpoints.ts does.
 */
function compactCheckpoints(dataDir: string): void {
  const { db } = openDatabase(join(dataDir, 'workbench.sqlite'));
  try {
    new SqliteCheckpointStore(db).compact(Number.MAX_SAFE_INTEGER);
  } finally {
    db.close();
  }
}

/** Opening and starting through the core's IPC handlers, warm and cold. */
async function measureCore(documents: ReadonlyMap<Size, RecordedSession>) {
  const folder = temporaryFolder('workbench-bench-open-');
  const model = await startModel();
  let running = await startCore(folder.path);
  const results = {
    open: new Samples(),
    openWhole: new Samples(),
    start: new Samples(),
    startReturn: new Samples(),
    startNext: new Samples(),
    startNextReturn: new Samples(),
    openCold: new Samples(),
    startCold: new Samples(),
    startColdReturn: new Samples(),
  };
  // The model request carries the conversation, so it grows with the session whatever the core does.
  const requestBytes = new Map<Size, number>();
  const profiles = { start: new Map<string, number>(), open: new Map<string, number>(), openWhole: new Map<string, number>() };
  const profiling = Boolean(process.env['SESSION_OPEN_PROFILE']);
  let inspector: InspectorSession | null = null;
  try {
    const provider = await running.call<{ id: string }>('provider:save', {
      kind: 'openai-compatible',
      name: 'Scripted',
      baseUrl: model.server.openaiBaseUrl,
    });
    // A window that holds the largest session whole: what is measured is opening and starting, not summarizing.
    await running.call('settings:update', {
      defaultModel: { providerId: provider.id, model: 'scripted-model' },
      contextWindows: [{ providerId: provider.id, model: 'scripted-model', tokens: 1_000_000 }],
    });

    // A start adds a turn to its session, so every start gets a copy of its own, all imported before
    // any is measured: nothing an import leaves behind falls on a sample.
    const copies = new Map<Size, string[]>();
    const copiesPerSize = 1 + warmups + repeats + 1 + coldRepeats + (profiling ? 10 : 0);
    for (const size of sizes) {
      const ids: string[] = [];
      for (let copy = 0; copy < copiesPerSize; copy += 1) ids.push(await importSession(running, documents.get(size) as RecordedSession));
      copies.set(size, ids);
    }
    const takeCopy = (size: Size): string => copies.get(size)?.pop() ?? '';
    await running.core.close();
    compactCheckpoints(folder.path);
    running = await startCore(folder.path);

    // Opening does not change a session: one copy per size, opened again and again.
    const opened = new Map(sizes.map((size) => [size, takeCopy(size)]));
    for (let round = -warmups; round < repeats; round += 1) {
      for (const size of sizes) {
        const sessionId = opened.get(size) as string;
        await settle();
        let started = performance.now();
        await running.call('session:open', { sessionId, recentTurns });
        const recent = performance.now() - started;
        await settle();
        started = performance.now();
        await running.call('session:open', { sessionId });
        const whole = performance.now() - started;
        if (round < 0) continue;
        results.open.add(size, recent);
        results.openWhole.add(size, whole);
      }
    }

    for (let round = -warmups; round < repeats; round += 1) {
      for (const size of sizes) {
        const sessionId = takeCopy(size);
        await openAsRenderer(running, sessionId);
        const { reached, returned, requestBytes: bytes } = await timeStart(running, model, sessionId);
        requestBytes.set(size, bytes);
        // The next message in the same session: its conversation is the one the last turn ended with.
        const next = await timeStart(running, model, sessionId);
        if (round < 0) continue;
        results.start.add(size, reached);
        results.startReturn.add(size, returned);
        results.startNext.add(size, next.reached);
        results.startNextReturn.add(size, next.returned);
      }
    }

    if (profiling) {
      // Where the largest session's time goes, sampled every 100 µs over ten of each.
      inspector = new InspectorSession();
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
      const sessionId = opened.get(10_000) as string;
      for (let round = 0; round < 10; round += 1) {
        await profiled(inspector, profiles.open, () => running.call('session:open', { sessionId, recentTurns }));
        await profiled(inspector, profiles.openWhole, () => running.call('session:open', { sessionId }));
        const copy = takeCopy(10_000);
        await openAsRenderer(running, copy);
        const arrival = model.nextArrival();
        await profiled(inspector, profiles.start, async () => {
          await running.call('run:send', { sessionId: copy, text: 'And what comes after it?' });
          await arrival;
        });
        await running.core.runtime?.whenIdle(copy);
      }
    }

    // Cold: the core is closed and started again on the same database before each sample.
    for (let round = -1; round < coldRepeats; round += 1) {
      for (const size of sizes) {
        const sessionId = takeCopy(size);
        await running.core.close();
        running = await startCore(folder.path);
        await settle();
        const open = await openAsRenderer(running, sessionId);
        const { reached, returned } = await timeStart(running, model, sessionId);
        if (round < 0) continue;
        results.openCold.add(size, open);
        results.startCold.add(size, reached);
        results.startColdReturn.add(size, returned);
      }
    }
  } finally {
    inspector?.disconnect();
    await running.core.close();
    await model.server.close();
    folder.remove();
  }
  return { ...results, requestBytes, profiles: profiling ? profiles : null };
}

/** Time to first paint in the real UI: the one-turn and the 10,000-event sessions, each selected in a freshly loaded page. */
async function measureUi(small: RecordedSession, large: RecordedSession): Promise<{ small: number[]; large: number[] }> {
  const executablePath = await prepareChromium();
  const folder = temporaryFolder('workbench-bench-open-ui-');
  const host = await startTestHost({ dataDir: folder.path, validateOutputs: false });
  const browser = await launchChromium(executablePath);
  const times = { small: [] as number[], large: [] as number[] };
  try {
    for (const recorded of [small, large]) {
      const imported = await host.invoke('session:import', { document: recorded.document });
      if (!imported.ok) throw new Error(imported.error.message);
    }
    // The newest session is the one a loaded page shows; both measured sessions are then selected from it.
    const elsewhere = await host.invoke('session:create', { title: 'Elsewhere' });
    if (!elsewhere.ok) throw new Error(elsewhere.error.message);
    for (let round = -1; round < uiRepeats; round += 1) {
      for (const [recorded, into] of [
        [small, times.small],
        [large, times.large],
      ] as const) {
        const page = await openAppPage(browser, host.url);
        await page.getByRole('button', { name: /^Elsewhere/ }).waitFor();
        // A page that has just loaded is still busy; a person clicks a moment later.
        await page.waitForTimeout(500);
        const elapsed = await timeOpen(page, recorded.title, recorded.lastAnswer);
        if (round >= 0) into.push(elapsed);
        if (round === uiRepeats - 1 && recorded === large)
          await page.screenshot({ path: 'test-results/screenshots/bench-open-10000-events.png' });
        await page.context().close();
      }
    }
  } finally {
    await browser.close();
    await host.close();
    folder.remove();
  }
  return times;
}

export async function runSessionOpenBench(): Promise<void> {
  let started = performance.now();
  const recorded = await recordSessions(sizes, (target) => titles[target as Size]);
  const documents = new Map(recorded.map((session) => [session.target as Size, session]));
  console.log(
    `recorded in ${((performance.now() - started) / 1000).toFixed(1)} s: ${recorded
      .map((session) => `${session.events} events (${session.turns} turns)`)
      .join(', ')}`,
  );
  started = performance.now();
  const core = await measureCore(documents);
  console.log(`core measured in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const ui = await measureUi(documents.get(10) as RecordedSession, documents.get(10_000) as RecordedSession);

  for (const size of sizes) {
    console.log(`${(documents.get(size) as RecordedSession).events} events (nominal ${size}):`);
    console.log(`  start, warm: to the model ${core.start.describe(size)}; run:send returns ${core.startReturn.describe(size)}`);
    console.log(`  start, next: to the model ${core.startNext.describe(size)}; run:send returns ${core.startNextReturn.describe(size)}`);
    console.log(`  start, cold: to the model ${core.startCold.describe(size)}; run:send returns ${core.startColdReturn.describe(size)}`);
    console.log(`  open, warm: last ${recentTurns} turns ${core.open.describe(size)}; whole line ${core.openWhole.describe(size)}`);
    console.log(`  open, cold: last ${recentTurns} turns ${core.openCold.describe(size)}`);
    console.log(`  the model request: ${((core.requestBytes.get(size) ?? Number.NaN) / 1024).toFixed(1)} KB`);
  }
  console.log(
    `ratios 10,000/10: start warm ${core.start.ratio()} (run:send returning ${core.startReturn.ratio()}), next ${core.startNext.ratio()} (run:send returning ${core.startNextReturn.ratio()}), cold ${core.startCold.ratio()}; open warm ${core.open.ratio()}, cold ${core.openCold.ratio()}`,
  );
  // The one-turn session has fewer turns than the renderer asks for; the 1,000-event one has more, so
  // against it both opens return the same 30 turns and only the history before them differs.
  console.log(
    `open ratio 10,000/1,000 (both answer ${recentTurns} turns): warm ${core.open.ratio(1_000)}, cold ${core.openCold.ratio(1_000)}`,
  );
  const paintLarge = median(ui.large);
  const paintSmall = median(ui.small);
  console.log(
    `UI, selecting a session to the first paint of its last answer: 10,000 events ${paintLarge.toFixed(0)} ms, one turn ${paintSmall.toFixed(0)} ms (medians of ${ui.large.length})`,
  );
  if (core.profiles) {
    for (const [name, self] of Object.entries(core.profiles))
      console.log(`own time by function, ${name} of the 10,000-event session, 10 runs:\n${formatSelfTimes(self, 15)}`);
  }
  console.log(
    JSON.stringify({
      bench: 'session-open',
      events: Object.fromEntries(recorded.map((session) => [String(session.target), session.events])),
      start_ms: core.start.medians(),
      start_return_ms: core.startReturn.medians(),
      start_ratio: core.start.ratio(),
      start_return_ratio: core.startReturn.ratio(),
      start_next_ms: core.startNext.medians(),
      start_next_return_ms: core.startNextReturn.medians(),
      start_next_ratio: core.startNext.ratio(),
      start_next_return_ratio: core.startNextReturn.ratio(),
      start_cold_ms: core.startCold.medians(),
      start_cold_ratio: core.startCold.ratio(),
      start_cold_return_ratio: core.startColdReturn.ratio(),
      open_ms: core.open.medians(),
      open_ratio: core.open.ratio(),
      open_whole_ms: core.openWhole.medians(),
      open_cold_ms: core.openCold.medians(),
      open_cold_ratio: core.openCold.ratio(),
      open_ratio_over_1000: core.open.ratio(1_000),
      request_kb: Object.fromEntries(sizes.map((size) => [String(size), Math.round((core.requestBytes.get(size) ?? Number.NaN) / 1024)])),
      first_paint_10000_ms: Math.round(paintLarge),
      first_paint_one_turn_ms: Math.round(paintSmall),
      first_paint_ratio: Number((paintLarge / paintSmall).toFixed(2)),
    }),
  );
}
