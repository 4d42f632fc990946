import { z } from 'zod';
import type { ModelInfo } from '../src/shared/domain';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '../src/main/agent/ports/model-provider';
import { Session as InspectorSession } from 'node:inspector/promises';
import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { defineTool } from '../src/main/agent/ports/tools';
import { OpenAICompatibleProvider } from '../src/main/providers/openai-compatible-provider';
import { temporaryFolder } from '../test/helpers';
import { testDatabaseKeys } from '../test/host/test-keychain';
import { LoopbackTransport } from '../test/host/loopback-transport';
import { createNodeCore } from '../test/host/node-core';
import { scriptedSession } from './scripted-session';
import { RemoteScriptedServer } from '../test/scripted-model-server/remote';
import type { ScriptedTurn } from '../test/scripted-model-server';
import { addSelfTimesIn, addTotalTimesIn, formatSelfTimes, profileClock, type CpuProfile } from './cpu-profile';

/*
 * A 1,000-step scripted session (each step: one model response with one read-only tool call). The
 * runtime's overhead per step is the time between one model stream ending and the next one
 * starting, less the tool's own time. The baseline drives the same responses through the provider
 * alone, where that gap is the loop's bare minimum. Both run in this process, in the same run,
 * against the scripted server in a child process.
 */

/** Model calls in the session: every one but the last asks for a tool. */
const steps = 1_000;
const turns = (): ScriptedTurn[] => [
  ...Array.from({ length: steps - 1 }, (_, index): ScriptedTurn => ({
    steps: [{ kind: 'tool_call', id: `c${index}`, name: 'lookup', arguments: JSON.stringify({ key: `k${index}` }) }],
  })),
  { steps: [{ kind: 'text', text: 'Done.' }] },
];

/** RUNTIME_BENCH_DETAIL=1: the shape of the gaps, and what the longest held (collections, the process's CPU time). */
const detail = Boolean(process.env['RUNTIME_BENCH_DETAIL']);

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** How long the main thread has waited, runnable, for a CPU (ms; Linux's scheduler statistics, else 0). */
function queuedMs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return 0;
  }
}

/** Wraps a provider to time each stream: when it was asked for, and when its last event came. */
class TimedProvider implements ModelProvider {
  readonly kind;
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  /** The same moments on the CPU profile's clock. */
  readonly startsOnProfile: number[] = [];
  readonly endsOnProfile: number[] = [];
  /** The process's CPU time (user and system, in ms) at the same moments. */
  readonly startsCpu: number[] = [];
  readonly endsCpu: number[] = [];
  /** The main thread's time waiting for a CPU at the same moments. */
  readonly startsQueued: number[] = [];
  readonly endsQueued: number[] = [];
  constructor(private readonly inner: ModelProvider) {
    this.kind = inner.kind;
  }
  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    this.starts.push(performance.now());
    this.startsOnProfile.push(profileClock());
    if (detail) this.startsCpu.push(cpuMs());
    if (detail) this.startsQueued.push(queuedMs());
    for await (const event of this.inner.stream(request, signal)) {
      if (event.type === 'done' || event.type === 'error') {
        this.ends.push(performance.now());
        this.endsOnProfile.push(profileClock());
        if (detail) this.endsCpu.push(cpuMs());
        if (detail) this.endsQueued.push(queuedMs());
      }
      yield event;
    }
  }
  listModels(signal: AbortSignal): Promise<ModelInfo[]> {
    return this.inner.listModels(signal);
  }
}

/** Garbage collections seen while the bench runs (RUNTIME_BENCH_DETAIL=1): when each began, and how long it took. */
const collections: { start: number; duration: number; kind: number }[] = [];
/** The collections within the gaps of the first session run through the runtime. */
let firstRunCollections: { ms: number; kinds: Set<number>; cpu: number; queued: number }[] | null = null;

/** The collection time within each gap between streams, and the kinds seen there. */
function collectionsIn(provider: TimedProvider): { ms: number; kinds: Set<number>; cpu: number; queued: number }[] {
  return provider.ends.slice(0, -1).map((from, index) => {
    const to = provider.starts[index + 1] ?? from;
    const inside = collections.filter((entry) => entry.start >= from && entry.start < to);
    const cpu = (provider.startsCpu[index + 1] ?? 0) - (provider.endsCpu[index] ?? 0);
    const queued = (provider.startsQueued[index + 1] ?? 0) - (provider.endsQueued[index] ?? 0);
    return { ms: inside.reduce((sum, entry) => sum + entry.duration, 0), kinds: new Set(inside.map((entry) => entry.kind)), cpu, queued };
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** The gap between consecutive streams, less the tool time spent in it. */
function gaps(provider: TimedProvider, toolTimes: number[]): number[] {
  const result: number[] = [];
  for (let index = 0; index + 1 < provider.starts.length; index += 1) {
    result.push((provider.starts[index + 1] ?? 0) - (provider.ends[index] ?? 0) - (toolTimes[index] ?? 0));
  }
  return result;
}

async function baseline(server: RemoteScriptedServer): Promise<number[]> {
  await server.enqueue(...turns());
  const provider = new TimedProvider(new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl }));
  const messages: ModelRequest['messages'][number][] = [{ role: 'user', content: 'go' }];
  for (let index = 0; index <= steps; index += 1) {
    const calls: { id: string; name: string; arguments: string }[] = [];
    for await (const event of provider.stream({ model: 'scripted-model', messages }, new AbortController().signal)) {
      if (event.type === 'tool_call_ready') calls.push({ id: event.id, name: event.name, arguments: event.arguments });
    }
    if (calls.length === 0) break;
    messages.push({ role: 'assistant', content: '', toolCalls: calls });
    for (const call of calls) messages.push({ role: 'tool', toolCallId: call.id, content: `value of ${call.arguments}` });
  }
  return gaps(provider, []);
}

/** The gaps of the session run through the app's runtime, on a plain database or on one encrypted at rest. */
async function throughRuntime(server: RemoteScriptedServer, encrypted = false): Promise<number[]> {
  const folder = temporaryFolder('workbench-bench-runtime-');
  const toolTimes: number[] = [];
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a key up.',
    input: z.object({ key: z.string() }).strict(),
    risk: 'read_only',
    execute: async (input) => {
      const started = performance.now();
      const output = `value of ${input.key}`;
      toolTimes.push(performance.now() - started);
      return { output };
    },
  });
  const transport = new LoopbackTransport();
  transport.recordEvents = false;
  let timed: TimedProvider | null = null;
  // Each turn's provider is wrapped to time its streams.
  const { core, settings } = await createNodeCore({
    dataDir: folder.path,
    transport,
    tools: [lookup],
    instrumentProvider: (provider) => (timed = new TimedProvider(provider)),
    ...(encrypted ? { databaseKeys: testDatabaseKeys(folder.path) } : {}),
  });
  if (core.info.databaseEncryption.encrypted !== encrypted) throw new Error(`the database was to be ${encrypted ? 'encrypted' : 'plain'}`);
  settings.set({ ...settings.get(), maxIterations: steps, planThreshold: 50 });
  const { providerId, sessionId } = await scriptedSession(transport, server.openaiBaseUrl);
  // A window that holds the whole session: the loop is measured, every request counted, none summarized.
  settings.set({ ...settings.get(), contextWindows: [{ providerId, model: 'scripted-model', tokens: 1_000_000 }] });
  const runtime = core.runtime;
  if (!runtime) throw new Error('no runtime');
  await server.enqueue(...turns());
  // RUNTIME_BENCH_PROFILE=1: where the runtime's own time between streams goes.
  const inspector = process.env['RUNTIME_BENCH_PROFILE'] ? new InspectorSession() : null;
  if (inspector) {
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: 50 });
    await inspector.post('Profiler.start');
  }
  await transport.invoke('run:send', { sessionId, text: 'go' });
  await runtime.whenIdle(sessionId);
  if (inspector) {
    const { profile } = (await inspector.post('Profiler.stop')) as { profile: CpuProfile };
    inspector.disconnect();
    const used = timed as TimedProvider | null;
    const windows = (used?.endsOnProfile ?? []).map((from, index) => ({ from, to: used?.startsOnProfile[index + 1] ?? from }));
    console.log(
      `Own time of functions between streams, over ${windows.length} gaps:\n${formatSelfTimes(addSelfTimesIn(profile, windows), 40)}`,
    );
    const slow = windows.filter((window) => window.to - window.from > 1_000);
    console.log(`Own time of functions in the ${slow.length} gaps over 1 ms:\n${formatSelfTimes(addSelfTimesIn(profile, slow), 30)}`);
    const slowTotals = [...addTotalTimesIn(profile, slow)].filter(([key]) => !/cpu-profile|runtime\.ts/.test(key));
    console.log(`Total time of functions in the gaps over 1 ms:\n${formatSelfTimes(new Map(slowTotals), 30)}`);
    const totals = [...addTotalTimesIn(profile, windows)].filter(([key]) => /\.ts:/.test(key) && !/cpu-profile|runtime\.ts/.test(key));
    console.log(`Total time of this project's functions between streams:\n${formatSelfTimes(new Map(totals), 40)}`);
  }
  await core.close();
  folder.remove();
  if (!timed) throw new Error('the provider was not used');
  firstRunCollections ??= collectionsIn(timed);
  return gaps(timed, toolTimes);
}

export async function runRuntimeBench(): Promise<void> {
  // The model server runs in its own process, as a real one does, so its work is not counted here.
  // It does not count prompts: on these cores that would slow the app down, not the server.
  const server = await RemoteScriptedServer.start({ countPrompts: false });
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0;
      collections.push({ start: entry.startTime, duration: entry.duration, kind });
    }
  });
  if (detail) observer.observe({ entryTypes: ['gc'] });
  const base = await baseline(server);
  const runtime = await throughRuntime(server);
  // The same session on a database encrypted at rest, in the same run: plain and encrypted in turns, twice, and the
  // run with the lower p99 of each compared (one pause of the machine's other work would otherwise decide it).
  let encrypted: number[] | null = null;
  let plain = runtime;
  if (!process.env['RUNTIME_BENCH_PROFILE']) {
    const encryptedRuns = [await throughRuntime(server, true)];
    const plainRuns = [runtime, await throughRuntime(server)];
    encryptedRuns.push(await throughRuntime(server, true));
    const lowest = (runs: number[][]): number[] => runs.reduce((best, run) => (percentile(run, 99) < percentile(best, 99) ? run : best));
    encrypted = lowest(encryptedRuns);
    plain = lowest(plainRuns);
  }
  await server.close();
  observer.disconnect();
  const baseP50 = percentile(base, 50);
  const overhead = runtime.map((gap) => Math.max(0, gap - baseP50));
  console.log(
    `baseline gap between streams: p50 ${baseP50.toFixed(3)} ms, p99 ${percentile(base, 99).toFixed(3)} ms over ${base.length} steps`,
  );
  console.log(
    `runtime gap between streams: p50 ${percentile(runtime, 50).toFixed(3)} ms, p99 ${percentile(runtime, 99).toFixed(3)} ms over ${runtime.length} steps`,
  );
  const encryptedRatio = encrypted ? percentile(encrypted, 99) / percentile(plain, 99) : null;
  if (encrypted && encryptedRatio !== null)
    console.log(
      `runtime gap, encrypted database against plain (the better of two runs each): p99 ${percentile(encrypted, 99).toFixed(3)} ms against ${percentile(plain, 99).toFixed(3)} ms, ×${encryptedRatio.toFixed(2)}`,
    );
  if (detail) {
    const shape = [10, 25, 50, 75, 90, 95, 98, 99, 99.5, 100].map((p) => `p${p} ${percentile(runtime, p).toFixed(2)}`).join(', ');
    const longest = [...runtime.keys()].sort((a, b) => (runtime[b] ?? 0) - (runtime[a] ?? 0)).slice(0, 20);
    console.log(`runtime gaps: ${shape}; the 20 longest at steps ${longest.join(' ')}`);
    // Kinds as node:perf_hooks numbers them: 1 minor (scavenge), 2 major (mark-sweep-compact), 4 incremental marking, 8 weak callbacks.
    const withCollection = longest.map((step) => {
      const seen = firstRunCollections?.[step];
      return `${step}: ${(runtime[step] ?? 0).toFixed(2)} ms, cpu ${(seen?.cpu ?? 0).toFixed(2)}, queued ${(seen?.queued ?? 0).toFixed(2)}${seen && seen.ms > 0 ? ` (collecting ${seen.ms.toFixed(2)} ms, kinds ${[...seen.kinds].join('+')})` : ''}`;
    });
    console.log(`collections seen: ${collections.length}, longest ${Math.max(...collections.map((c) => c.duration)).toFixed(2)} ms`);
    console.log(`the 20 longest, with the garbage collection inside each: ${withCollection.join('; ')}`);
  }
  console.log(
    JSON.stringify({
      bench: 'runtime',
      steps: runtime.length + 1,
      overhead_p50_ms: Number(percentile(overhead, 50).toFixed(3)),
      overhead_p99_ms: Number(percentile(overhead, 99).toFixed(3)),
      ...(encrypted && encryptedRatio !== null
        ? {
            encrypted_gap_p99_ms: Number(percentile(encrypted, 99).toFixed(3)),
            plain_gap_p99_ms: Number(percentile(plain, 99).toFixed(3)),
            encrypted_vs_plain_gap_p99: Number(encryptedRatio.toFixed(3)),
          }
        : {}),
    }),
  );
}
