import { z } from 'zod';
import type { ModelInfo } from '../src/shared/domain';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '../src/main/agent/ports/model-provider';
import { defineTool } from '../src/main/agent/ports/tools';
import { temporaryFolder } from '../test/helpers';
import { LoopbackTransport } from '../test/host/loopback-transport';
import { createNodeCore } from '../test/host/node-core';
import { ScriptedModelServer, textTurn, type ScriptedTurn } from '../test/scripted-model-server';
import { ScriptByAsker, requestText } from '../test/scripted-model-server/by-asker';
import type { RecordedRequest } from '../test/scripted-model-server/recorded-request';
import { scriptedSession } from './scripted-session';

/*
 * Sub-agents: eight independent read-only sub-tasks, each reading one long note and answering in a line, against the
 * scripted server answering every request after a fixed 200 ms (a model's time), on an app that has met the model
 * before (a warm-up turn first). Three figures, each against a baseline of the same run:
 * - the wall time with two sub-agents at once over one at a time;
 * - the parent's largest prompt when it delegates the eight over the same eight reads done in its own context;
 * - the runtime's own cost of starting a sub-agent: from the parent's response with the call ending to the sub-agent's
 *   first request leaving, with the model answering at once (p50 and p99 over 60 starts), beside the loop's own gap
 *   between two requests of one session, the baseline.
 */

const tasks = 8;
const warmUp = 'Warm up.';
const noteChars = 6_000;
const modelMs = 200;
const starts = 60;

const readNote = defineTool({
  name: 'read_note',
  description: 'Reads a note by its number.',
  input: z.object({ n: z.number().int() }).strict(),
  risk: 'read_only',
  execute: async (input) => ({ output: `Note ${input.n}: ${'lorem ipsum dolor sit amet '.repeat(noteChars / 27)}` }),
});

/** Wraps a provider to see when each stream starts and ends, and for whom (the first user message). */
class TimedProvider implements ModelProvider {
  readonly kind;
  readonly streams: Array<{ first: string; start: number; end: number }> = [];
  constructor(private readonly inner: ModelProvider) {
    this.kind = inner.kind;
  }
  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    const first = request.messages.find((message) => message.role === 'user');
    const text = typeof first?.content === 'string' ? first.content : '';
    // Whose request: a sub-agent's goal, or the parent's.
    const record = { first: /^You are a sub-agent[\s\S]*?\nGoal: (.*)$/m.exec(text)?.[1] ?? 'parent', start: performance.now(), end: 0 };
    this.streams.push(record);
    for await (const event of this.inner.stream(request, signal)) {
      if (event.type === 'done' || event.type === 'error') record.end = performance.now();
      yield event;
    }
  }
  listModels(signal: AbortSignal): Promise<ModelInfo[]> {
    return this.inner.listModels(signal);
  }
}

interface Run {
  readonly wallMs: number;
  readonly largestParentPrompt: number;
  readonly streams: TimedProvider['streams'];
}

/** One session on a fresh core: the parent's script, and each sub-agent's, answered after `delayMs` each. */
async function runOnce(
  parent: ScriptedTurn[],
  subTasks: ReadonlyMap<string, ScriptedTurn[]>,
  options: { concurrency: number; delayMs: number },
): Promise<Run> {
  const byAsker = new ScriptByAsker();
  byAsker.scripts = new Map([['parent', parent], ...subTasks]);
  // The server counts no prompts: on these cores its tokenizer would slow the app down, not the server.
  // A warm-up turn first, in a session of its own: what the app learns once of a model (its window, whether it calls
  // tools) is known before the timing starts, as it is in an app that has been used.
  const route = (request: RecordedRequest): ScriptedTurn =>
    requestText(request).includes(warmUp) ? textTurn('Ready.') : byAsker.route(request);
  const server = await ScriptedModelServer.start({ fallback: route, answerDelayMs: options.delayMs, countPrompts: false });
  const folder = temporaryFolder('workbench-bench-delegate-');
  const transport = new LoopbackTransport();
  transport.recordEvents = false;
  const timed: TimedProvider[] = [];
  const { core, settings } = await createNodeCore({
    dataDir: folder.path,
    transport,
    tools: [readNote],
    instrumentProvider: (provider) => {
      const wrapped = new TimedProvider(provider);
      timed.push(wrapped);
      return wrapped;
    },
  });
  settings.set({ ...settings.get(), planThreshold: 50, maxIterations: 1000, subAgentConcurrency: options.concurrency });
  const { sessionId, providerId } = await scriptedSession(transport, server.openaiBaseUrl);
  const runtime = core.runtime;
  if (!runtime) throw new Error('no runtime');
  const warm = await transport.invoke('session:create', {});
  if (!warm.ok) throw new Error(warm.error.message);
  const warmId = (warm.value as { id: string }).id;
  await transport.invoke('session:setModel', { sessionId: warmId, model: { providerId, model: 'scripted-model' } });
  await transport.invoke('run:send', { sessionId: warmId, text: warmUp });
  await runtime.whenIdle(warmId);
  for (const provider of timed) provider.streams.length = 0;
  const started = performance.now();
  await transport.invoke('run:send', { sessionId, text: 'Survey the notes' });
  await runtime.whenIdle(sessionId);
  const wallMs = performance.now() - started;
  const status = (await transport.invoke('session:list', {})).ok ? runtime.isBusy(sessionId) : true;
  if (status) throw new Error('the session did not finish');
  // The parent's prompts as the app measured each before sending it.
  const largestParentPrompt = Math.max(
    ...(core.core?.store.journal(sessionId) ?? []).flatMap(({ event }) => (event.type === 'context_measured' ? [event.tokens] : [])),
  );
  await core.close();
  await server.close();
  folder.remove();
  return { wallMs, largestParentPrompt, streams: timed.flatMap((provider) => provider.streams).sort((a, b) => a.start - b.start) };
}

const goal = (n: number): string => `Summarize note ${n}`;
const subTasks = (count: number): Map<string, ScriptedTurn[]> =>
  new Map(
    Array.from({ length: count }, (_, n) => [
      goal(n),
      [
        { steps: [{ kind: 'tool_call', id: `r${n}`, name: 'read_note', arguments: JSON.stringify({ n }) }] },
        textTurn(`Note ${n}: about lorem ipsum.`),
      ],
    ]),
  );
const delegating: ScriptedTurn[] = [
  {
    steps: Array.from({ length: tasks }, (_, n) => ({
      kind: 'tool_call' as const,
      id: `d${n}`,
      name: 'delegate',
      arguments: JSON.stringify({ goal: goal(n), returns: 'one line' }),
    })),
  },
  textTurn('All eight notes are about lorem ipsum.'),
];
const alone: ScriptedTurn[] = [
  {
    steps: Array.from({ length: tasks }, (_, n) => ({
      kind: 'tool_call' as const,
      id: `r${n}`,
      name: 'read_note',
      arguments: JSON.stringify({ n }),
    })),
  },
  textTurn('All eight notes are about lorem ipsum.'),
];

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Starting sub-agents one after another: the parent hands on one task per response, `starts` times. */
async function startCosts(): Promise<{ start: number[]; step: number[] }> {
  const parent: ScriptedTurn[] = [
    ...Array.from({ length: starts }, (_, n): ScriptedTurn => ({
      steps: [{ kind: 'tool_call', id: `d${n}`, name: 'delegate', arguments: JSON.stringify({ goal: goal(n) }) }],
    })),
    textTurn('Done.'),
  ];
  const children = new Map(Array.from({ length: starts }, (_, n): [string, ScriptedTurn[]] => [goal(n), [textTurn('Nothing to say.')]]));
  const run = await runOnce(parent, children, { concurrency: 1, delayMs: 0 });
  const start: number[] = [];
  const step: number[] = [];
  const parents = run.streams.filter((stream) => stream.first === 'parent');
  for (let n = 0; n < starts; n += 1) {
    const asked = parents[n];
    const child = run.streams.find((stream) => stream.first === goal(n));
    const next = parents[n + 1];
    if (!asked || !child || !next) continue;
    // The parent's response with the call ends; the sub-agent's first request leaves.
    start.push(child.start - asked.end);
    // The baseline: the parent's own gap from the sub-agent's answer to its next request (one step of the loop).
    step.push(next.start - child.end);
  }
  return { start, step };
}

export async function runDelegateBench(): Promise<void> {
  const parallel = await runOnce(delegating, subTasks(tasks), { concurrency: 2, delayMs: modelMs });
  const sequential = await runOnce(delegating, subTasks(tasks), { concurrency: 1, delayMs: modelMs });
  const oneContext = await runOnce(alone, new Map(), { concurrency: 2, delayMs: modelMs });
  const { start, step } = await startCosts();
  const wallRatio = parallel.wallMs / sequential.wallMs;
  const promptRatio = parallel.largestParentPrompt / oneContext.largestParentPrompt;
  console.log(
    `${tasks} sub-tasks, ${modelMs} ms a request: ${Math.round(parallel.wallMs)} ms two at once, ${Math.round(sequential.wallMs)} ms one at a time (ratio ${wallRatio.toFixed(2)}, target at most 0.6)`,
  );
  console.log(
    `the parent's largest prompt: ${parallel.largestParentPrompt} tokens delegating, ${oneContext.largestParentPrompt} reading the notes itself (ratio ${promptRatio.toFixed(2)}, target at most 0.5)`,
  );
  console.log(
    `starting a sub-agent: p50 ${percentile(start, 50).toFixed(2)} ms, p99 ${percentile(start, 99).toFixed(2)} ms over ${start.length} (target p99 under 20 ms); one step of the loop: p50 ${percentile(step, 50).toFixed(2)} ms, p99 ${percentile(step, 99).toFixed(2)} ms`,
  );
  console.log(
    JSON.stringify({
      bench: 'delegate',
      wall_parallel_over_sequential: Number(wallRatio.toFixed(3)),
      parent_prompt_delegating_over_one_context: Number(promptRatio.toFixed(3)),
      start_p50_ms: Number(percentile(start, 50).toFixed(3)),
      start_p99_ms: Number(percentile(start, 99).toFixed(3)),
      step_p99_ms: Number(percentile(step, 99).toFixed(3)),
    }),
  );
}
