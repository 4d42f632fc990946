import type { ChatMessage } from '../src/main/agent/ports/model-provider';
import { LocalRuntimeProvider } from '../src/main/runtime/local-runtime-provider';
import { sourceRuntime } from '../src/main/runtime/runtime-process';
import { BashParser } from '../src/main/shell/bash-parser';
import { TinyModels } from '../test/main/runtime/runtime-fixture';
import { builtinTools } from '../src/main/tools/builtin-tools';
import { temporaryFolder } from '../test/helpers';
import { LoopbackTransport } from '../test/host/loopback-transport';
import { createNodeCore } from '../test/host/node-core';
import { ScriptedModelServer, type RecordedRequest } from '../test/scripted-model-server';
import { asksForNotes, finalAnswer, notesModel, notesTask, writeNotes } from '../test/twenty-notes';
import { scriptedSession } from './scripted-session';

/*
 * How much of each prompt a local server must read again, and what it costs in time on the built-in runtime. The twenty-notes task (a chain of twenty 5,000-character
 * notes, followed one by one) on an 8,192-token window, through the scripted server speaking llama.cpp: one slot that
 * keeps the prompt it read last and reports, per request, how much of the next one it took from there (`cache_n`) and
 * how much it read (`prompt_n`), as llama.cpp's server does. The baseline is a server that keeps nothing, which reads
 * every prompt token: the figure printed is the share of those a caching server still reads, a ratio of tokens that
 * does not depend on the machine.
 */

const window = 8192;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** One request as the server read it: its size, what it took from the slot, and whether it asked for notes apart. */
interface Read {
  readonly tokens: number;
  readonly cached: number;
  readonly read: number;
  readonly side: boolean;
  /** It asks for notes, apart or as the conversation's continuation: the request after it starts from the summary. */
  readonly notes: boolean;
}

function readOf(request: RecordedRequest): Read {
  const slot = request.llamaSlot;
  const messages = (request.body['messages'] ?? []) as Array<{ role: string; content?: unknown }>;
  const system = messages[0]?.role === 'system' && typeof messages[0].content === 'string' ? messages[0].content : '';
  return {
    tokens: request.promptTokens,
    cached: slot?.cacheN ?? 0,
    read: slot?.promptN ?? request.promptTokens,
    // Notes asked in requests of their own share nothing with the conversation.
    side: asksForNotes(request) && system.includes('working notes of a coding agent'),
    notes: asksForNotes(request),
  };
}

/** Steps of the session on the built-in runtime; each adds an answer and a message of about 350 tokens (the tiny model reads a character a token). */
const runtimeSteps = 10;
const stepText = (step: number): string =>
  `Step ${step}: ${'a line of a log the agent reads and reports on, with numbers like 1234 and words '.repeat(4)}`;

/**
 * A session on the built-in runtime with a tiny model the bench writes: the time to the first token of step 10 against
 * step 2, where each request is the one before with one more exchange. The runtime keeps the session's sequence, so
 * step 10 reads only what step 9 did not have; the same step-10 prompt on a line of its own (nothing kept) is the
 * baseline, in the same run.
 */
async function runtimeTimes(): Promise<{ step2: number; step10: number; cold10: number; read10: number; prompt10: number }> {
  const models = new TinyModels();
  models.add('bench', { says: ['tick', ' tock'], then: 'end', blocks: 4, extraWidth: 480, feedForward: 2048, contextLength: 8192 });
  const provider = new LocalRuntimeProvider({
    models,
    launch: sourceRuntime({ WORKBENCH_RUNTIME_GPU: 'off', WORKBENCH_RUNTIME_THREADS: '1' }),
    defaultTemperature: 0,
  });
  const ask = async (messages: readonly ChatMessage[], cacheKey: string): Promise<{ firstMs: number; read: number; prompt: number }> => {
    const started = performance.now();
    let first = 0;
    let read = 0;
    let prompt = 0;
    for await (const event of provider.stream(
      { model: 'bench', system: 'You are a helpful assistant.', messages, maxTokens: 4, contextWindow: 8192, cacheKey },
      new AbortController().signal,
    )) {
      if (event.type === 'text_delta' && first === 0) first = performance.now();
      if (event.type === 'usage') {
        prompt = event.inputTokens;
        read = event.inputTokens - (event.cacheReadTokens ?? 0);
      }
      if (event.type === 'error') throw new Error(event.error.message);
    }
    return { firstMs: (first || performance.now()) - started, read, prompt };
  };
  const messages: ChatMessage[] = [];
  const times: Array<{ firstMs: number; read: number; prompt: number }> = [];
  try {
    for (let step = 1; step <= runtimeSteps; step += 1) {
      messages.push({ role: 'user', content: stepText(step) });
      times.push(await ask([...messages], 'session'));
      messages.push({ role: 'assistant', content: 'tick tock' });
    }
    messages.pop();
    const cold = await ask([...messages], 'cold');
    const [step2, step10] = [times[1], times[runtimeSteps - 1]];
    return {
      step2: step2?.firstMs ?? Number.NaN,
      step10: step10?.firstMs ?? Number.NaN,
      cold10: cold.firstMs,
      read10: step10?.read ?? 0,
      prompt10: step10?.prompt ?? 0,
    };
  } finally {
    provider.dispose();
    models.remove();
  }
}

export async function runPrefillBench(): Promise<void> {
  const server = await ScriptedModelServer.start({
    personality: 'llama.cpp',
    contextWindow: window,
    llamaSlots: { total: 1 },
    fallback: notesModel,
  });
  const data = temporaryFolder('workbench-bench-prefill-');
  const workspace = temporaryFolder('workbench-bench-notes-');
  writeNotes(workspace.path);
  const shell = await BashParser.load();
  const transport = new LoopbackTransport();
  transport.recordEvents = false;
  const tools = builtinTools({ shell, dataDir: data.path, newId: () => `t${Date.now()}`, now: () => Date.now() });
  const { core } = await createNodeCore({ dataDir: data.path, transport, tools });
  const { sessionId } = await scriptedSession(transport, server.openaiBaseUrl);
  const chose = await transport.invoke('workspace:set', { sessionId, path: workspace.path });
  if (!chose.ok) throw new Error(chose.error.message);
  await transport.invoke('run:send', { sessionId, text: notesTask });
  await core.runtime?.whenIdle(sessionId);
  const events = (core.core?.store.journal(sessionId) ?? []).map((entry) => entry.event);
  const answered = events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('');
  const reads = server.requests.filter((request) => request.path === '/v1/chat/completions').map(readOf);

  await core.close();
  await server.close();
  data.remove();
  workspace.remove();
  if (!answered.includes(finalAnswer)) throw new Error('the task did not complete: the figures would say nothing');

  // Consecutive steps of the turn: each request of the conversation after the one before it, the first excepted.
  const steps = reads.filter((read) => !read.side);
  const shares = steps.slice(1).map((read) => read.cached / Math.max(1, read.tokens));
  // Steps that only appended to the request before (neither it nor they asked for notes): what append-only keeps.
  const appended = reads
    .map((read, index) => ({ read, before: reads[index - 1] }))
    .filter(({ read, before }) => before !== undefined && !before.notes && !read.notes)
    .map(({ read }) => read.cached / Math.max(1, read.tokens));
  const sent = reads.reduce((sum, read) => sum + read.tokens, 0);
  const readAgain = reads.reduce((sum, read) => sum + read.read, 0);
  const compactions = events.filter((event) => event.type === 'context_compacted');
  const continued = compactions.filter((event) => event.type === 'context_compacted' && event.continued).length;
  console.log(
    `${reads.length} requests (${steps.length} of the conversation, ${reads.length - steps.length} for notes apart), ${compactions.length} compactions (${continued} asked as a continuation)`,
  );
  console.log(
    `prompt kept from the request before: median ${percentile(shares, 50).toFixed(2)}, minimum ${Math.min(...shares).toFixed(2)}, p25 ${percentile(shares, 25).toFixed(2)}; between compactions (${appended.length} steps): median ${percentile(appended, 50).toFixed(2)}, minimum ${Math.min(...appended).toFixed(2)}`,
  );
  console.log(`prompt tokens read: ${readAgain} of ${sent} sent (a server that keeps nothing reads all ${sent})`);
  const local = await runtimeTimes();
  console.log(
    `built-in runtime, first token: step 2 ${local.step2.toFixed(0)} ms, step 10 ${local.step10.toFixed(0)} ms (read ${local.read10} of its ${local.prompt10} prompt tokens); step 10's prompt with nothing kept ${local.cold10.toFixed(0)} ms`,
  );
  console.log(
    JSON.stringify({
      bench: 'prefill',
      requests: reads.length,
      compactions: compactions.length,
      kept_median: Number(percentile(shares, 50).toFixed(3)),
      kept_min: Number(Math.min(...shares).toFixed(3)),
      kept_between_compactions_median: Number(percentile(appended, 50).toFixed(3)),
      kept_between_compactions_min: Number(Math.min(...appended).toFixed(3)),
      read_share: Number((readAgain / Math.max(1, sent)).toFixed(3)),
      runtime_step10_over_step2: Number((local.step10 / local.step2).toFixed(2)),
      runtime_step10_over_cold: Number((local.step10 / local.cold10).toFixed(2)),
    }),
  );
}
