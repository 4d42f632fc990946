import { z } from 'zod';
import type { ContextWindow } from '../src/shared/domain';
import type { ConversationEntry } from '../src/main/agent/context/context-view';
import type { ChatMessage, ModelProvider } from '../src/main/agent/ports/model-provider';
import { ContextBudget, defaultContextSettings } from '../src/main/agent/context/prompt-builder';
import { defineTool } from '../src/main/agent/ports/tools';
import { temporaryFolder } from '../test/helpers';
import { LoopbackTransport } from '../test/host/loopback-transport';
import { createNodeCore } from '../test/host/node-core';
import { scriptedSession } from './scripted-session';
import { ScriptedModelServer, type RecordedRequest, type ScriptedTurn } from '../test/scripted-model-server';
import { asksForNotes } from '../test/twenty-notes';

/*
 * Long work on a small window. A 300-step session (each step one model response with one tool call
 * whose result is 1 to 3 KB) against a server that loaded an 8,192-token window and refuses any
 * prompt larger, as llama.cpp does: how many requests overflowed (must be none), how many
 * compactions it took, and how much of the window the prompts used. Then the prompt builder's own
 * time to assemble and count one request of a 5,000-message conversation, against
 * `JSON.stringify` of the same messages (what sending them costs at the least) in the same run.
 */

const steps = 300;
/** Rounds of assembly not timed: the code is compiled and its caches filled, as in a running app. */
const warmup = 30;
const window = 8192;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const page = (index: number): string =>
  `Page ${index}. ${'A line of a file that the agent reads on its way through the work. '.repeat(15 + ((index * 37) % 30))}`;

/** The model: one tool call per step, notes when asked to summarize, an answer at the end. */
function model(): (request: RecordedRequest) => ScriptedTurn {
  let calls = 0;
  return (request) => {
    if (asksForNotes(request))
      return {
        steps: [
          { kind: 'text', text: `Pages read so far: up to ${calls}. Each page is a line repeated; nothing else matters.`, chunkSize: 64 },
        ],
      };
    calls += 1;
    if (calls > steps) return { steps: [{ kind: 'text', text: 'Done: every page was read.' }] };
    return { steps: [{ kind: 'tool_call', id: `c${calls}`, name: 'read_page', arguments: JSON.stringify({ index: calls }) }] };
  };
}

async function session(): Promise<{ overflows: number; compactions: number; shares: number[]; requests: number; status: string }> {
  const server = await ScriptedModelServer.start({ personality: 'llama.cpp', contextWindow: window, fallback: model() });
  const folder = temporaryFolder('workbench-bench-context-');
  const readPage = defineTool({
    name: 'read_page',
    description: 'Reads one page.',
    input: z.object({ index: z.number().int() }).strict(),
    risk: 'read_only',
    execute: async (input) => ({ output: page(input.index) }),
  });
  const transport = new LoopbackTransport();
  transport.recordEvents = false;
  const { core, settings } = await createNodeCore({ dataDir: folder.path, transport, tools: [readPage] });
  settings.set({ ...settings.get(), maxIterations: steps + 10, planThreshold: 50 });
  const { sessionId } = await scriptedSession(transport, server.openaiBaseUrl);
  const runtime = core.runtime;
  if (!runtime) throw new Error('no runtime');
  await transport.invoke('run:send', { sessionId, text: 'Read every page, one per step.' });
  await runtime.whenIdle(sessionId);
  const events = (core.core?.store.journal(sessionId) ?? []).map((entry) => entry.event);
  const chats = server.requests.filter((request) => request.path === '/v1/chat/completions');
  const result = {
    overflows: chats.filter((request) => request.promptTokens > window).length,
    compactions: events.filter((event) => event.type === 'context_compacted').length,
    shares: chats.map((request) => request.promptTokens / window),
    requests: chats.length,
    status: 'none',
  };
  const finished = events.findLast((event) => event.type === 'run_finished');
  if (finished?.type === 'run_finished') result.status = finished.status;
  await core.close();
  await server.close();
  folder.remove();
  return result;
}

/** A conversation of `count` messages: requests, responses with a call each, and 1 KB results. */
function conversation(count: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: 'Start.' }];
  for (let index = 0; messages.length < count; index += 1) {
    messages.push({
      role: 'assistant',
      content: `Step ${index}.`,
      toolCalls: [{ id: `c${index}`, name: 'read_page', arguments: JSON.stringify({ index }) }],
    });
    messages.push({ role: 'tool', toolCallId: `c${index}`, content: page(index).slice(0, 1024) });
  }
  return messages.slice(0, count);
}

const provider: ModelProvider = {
  kind: 'openai-compatible',
  stream: () => {
    throw new Error('not streamed here');
  },
  listModels: async () => [],
};

/** Time to assemble and count one request, each after one more step was added, as in a session. */
async function assembly(
  entries: ConversationEntry[],
  windowTokens: number,
  rounds: number,
): Promise<{ ours: number[]; baseline: number[] }> {
  const fixed: ContextWindow = { tokens: windowTokens, source: 'server', detail: 'bench', trained: null };
  const budget = new ContextBudget({ window: async () => fixed, settings: () => defaultContextSettings });
  const choice = { providerId: 'p', model: 'm' };
  const ours: number[] = [];
  const baseline: number[] = [];
  // Each request after one more step was added, as in a session; then the baseline over the same
  // messages, in a loop of its own so the garbage of one does not land on the other.
  for (let round = 0; round < rounds; round += 1) {
    entries.push({ role: 'tool', toolCallId: `extra${round}`, content: page(round).slice(0, 1024) });
    const started = performance.now();
    await budget.prepare({
      choice,
      provider,
      system: 'You are an agent.',
      tools: undefined,
      entries,
      signal: new AbortController().signal,
      mayCompact: true,
    });
    // The first rounds warm the code up; a session's requests run warm.
    if (round >= warmup) ours.push(performance.now() - started);
  }
  for (let round = 0; round < rounds; round += 1) {
    const from = performance.now();
    JSON.stringify(entries);
    if (round >= warmup) baseline.push(performance.now() - from);
  }
  return { ours, baseline };
}

export async function runContextBench(): Promise<void> {
  const run = await session();
  console.log(`session: ${run.requests} requests, status ${run.status}, ${run.overflows} over the window, ${run.compactions} compactions`);
  // Compacted, as a long session on a small window is: the view is small, the conversation is not.
  const compacted: ConversationEntry[] = conversation(5_000);
  compacted.push({ role: 'compaction', id: 'k', summary: 'Pages read so far: up to 2,400.', upTo: 4_990 });
  const small = await assembly(compacted, window, 300);
  // Nothing compacted, on a window that holds it all: every message is counted.
  const large = await assembly(conversation(5_000), 10_000_000, 300);
  const p99 = Math.max(percentile(small.ours, 99), percentile(large.ours, 99));
  const baseP99 = percentile(large.baseline, 99);
  console.log(
    `assemble and count at 5,000 messages: compacted p50 ${percentile(small.ours, 50).toFixed(3)} ms, p99 ${percentile(small.ours, 99).toFixed(3)} ms; whole p50 ${percentile(large.ours, 50).toFixed(3)} ms, p99 ${percentile(large.ours, 99).toFixed(3)} ms; JSON.stringify p50 ${percentile(large.baseline, 50).toFixed(3)} ms, p99 ${baseP99.toFixed(3)} ms`,
  );
  console.log(
    JSON.stringify({
      bench: 'context',
      steps,
      overflows: run.overflows,
      compactions: run.compactions,
      window_share_median: Number(percentile(run.shares, 50).toFixed(3)),
      window_share_max: Number(Math.max(...run.shares).toFixed(3)),
      assemble_p99_ms: Number(p99.toFixed(3)),
      stringify_p99_ms: Number(baseP99.toFixed(3)),
      ratio: Number((p99 / baseP99).toFixed(3)),
    }),
  );
}
