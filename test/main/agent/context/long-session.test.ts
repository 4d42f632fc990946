import { afterEach, describe, expect, it } from 'vitest';
import type { RuntimeEvent } from '../../../../src/shared/events';
import { builtinTools } from '../../../../src/main/tools/builtin-tools';
import { temporaryFolder } from '../../../helpers';
import { LoopbackTransport } from '../../../host/loopback-transport';
import { createNodeCore } from '../../../host/node-core';
import {
  ScriptedModelServer,
  textTurn,
  type RecordedRequest,
  type ScriptedModelServerOptions,
  type ScriptedTurn,
} from '../../../scripted-model-server';
import { askerOf } from '../../../scripted-model-server/by-asker';
import { toolCall } from '../harness';
import { asksForNotes, factOf, finalAnswer, notesModel, notesTask, writeNotes } from '../../../twenty-notes';
import { BashParser } from '../../../../src/main/shell/bash-parser';
import { logsAnswer, logsModel, logsTask, writeLogs } from '../../../six-logs';

const shell = await BashParser.load();

/** A workbench core on a fresh data folder, the scripted server as its model, and a session on a folder of notes. */
async function setUp(
  serverOptions: ScriptedModelServerOptions,
  contextWindows: (providerId: string) => Array<{ providerId: string; model: string; tokens: number }> = () => [],
  kind: 'openai-compatible' | 'ollama' = 'openai-compatible',
  write: (workspace: string) => void = writeNotes,
) {
  const server = await ScriptedModelServer.start(serverOptions);
  const data = temporaryFolder('workbench-context-');
  const workspace = temporaryFolder('workbench-notes-');
  write(workspace.path);
  const transport = new LoopbackTransport();
  const tools = builtinTools({ shell, dataDir: data.path, newId: () => `t${Date.now()}`, now: () => Date.now() });
  const { core, settings } = await createNodeCore({ dataDir: data.path, transport, tools });
  const call = async <T>(channel: string, payload: unknown): Promise<T> => {
    const result = await transport.invoke(channel, payload);
    if (!result.ok) throw new Error(result.error.message);
    return result.value as T;
  };
  const { id: providerId } = await call<{ id: string }>('provider:save', {
    kind,
    name: 'Local',
    baseUrl: kind === 'ollama' ? server.url : server.openaiBaseUrl,
  });
  settings.set({ ...settings.get(), contextWindows: contextWindows(providerId) });
  const { id: sessionId } = await call<{ id: string }>('session:create', { title: 'Notes', workspacePath: workspace.path });
  await call('session:setModel', { sessionId, model: { providerId, model: 'scripted-model' } });
  const events = (): RuntimeEvent[] => (core.core?.store.journal(sessionId) ?? []).map((entry) => entry.event);
  const run = async (text: string): Promise<void> => {
    await call('run:send', { sessionId, text });
    await core.runtime?.whenIdle(sessionId);
  };
  const close = async (): Promise<void> => {
    await core.close();
    await server.close();
    data.remove();
    workspace.remove();
  };
  return { server, core, call, sessionId, events, run, close };
}

describe('long sessions on a small window', () => {
  let close: (() => Promise<void>) | null = null;
  afterEach(async () => {
    await close?.();
    close = null;
  });

  it('a window set too large is found out when the server refuses a request: the app learns the real one, compacts and goes on', async () => {
    // The person says 32,768; the server has loaded 8,192 and refuses anything larger, saying so.
    const setup = await setUp({ personality: 'llama.cpp', contextWindow: 8192, fallback: notesModel }, (providerId) => [
      { providerId, model: 'scripted-model', tokens: 32_768 },
    ]);
    close = setup.close;
    await setup.run(notesTask);
    const events = setup.events();
    expect(events.findLast((event) => event.type === 'run_finished')).toMatchObject({ status: 'completed' });
    const compactions = events.filter((event) => event.type === 'context_compacted');
    expect(compactions[0]).toMatchObject({ trigger: 'overflow' });
    // Refused once, then never again: every later request fits the window the server named.
    const chats = setup.server.requests.filter((request) => request.path === '/v1/chat/completions');
    const refused = chats.filter((request) => request.promptTokens > 8192);
    expect(refused).toHaveLength(1);
    const after = chats.slice(chats.indexOf(refused[0] ?? chats[0]!) + 1);
    expect(after.every((request) => request.promptTokens + Number(request.body['max_tokens']) <= 8192)).toBe(true);
    const measured = events.filter((event) => event.type === 'context_measured');
    expect(measured.at(-1)).toMatchObject({ window: 8192, windowSource: 'learned' });
    expect(events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('')).toContain(finalAnswer);
  }, 60_000);

  it('on an 8,192-token window the prompt is never rewritten before its end except at a compaction, and the summary continues the cached conversation', async () => {
    const setup = await setUp({ personality: 'llama.cpp', contextWindow: 8192, fallback: notesModel });
    close = setup.close;
    await setup.run(notesTask);
    const events = setup.events();
    expect(events.findLast((event) => event.type === 'run_finished')).toMatchObject({ status: 'completed' });
    expect(events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('')).toContain(finalAnswer);
    const compactions = events.filter((event) => event.type === 'context_compacted');
    expect(compactions.length).toBeGreaterThan(0);
    // Each summary was asked as the conversation's continuation: the instruction came after what the server had read.
    // Each summary was asked as the conversation's continuation whenever the instruction and room for the notes fit
    // after what the server had read: its instruction is about 250 tokens, the least room for notes 384, and 2 % of
    // the prompt is left free for the count's error.
    for (const event of compactions)
      if (event.type === 'context_compacted' && event.tokensBefore <= 8192 - 170 - 384 - 300) expect(event.continued).toBe(true);
    expect(compactions.filter((event) => event.type === 'context_compacted' && event.continued).length).toBeGreaterThan(0);
    // The conversation's own line: summaries asked in requests of their own go on another.
    const summarizer = (request: (typeof setup.server.requests)[number]): boolean =>
      JSON.stringify((request.body['messages'] as unknown[] | undefined)?.[0] ?? '').includes('working notes of a coding agent');
    const chats = setup.server.requests.filter((request) => request.path === '/v1/chat/completions' && !summarizer(request));
    const messagesOf = (index: number): unknown[] => (chats[index]?.body['messages'] ?? []) as unknown[];
    let rewritten = 0;
    for (let index = 1; index < chats.length; index += 1) {
      const before = messagesOf(index - 1);
      const after = messagesOf(index);
      const kept = JSON.stringify(after.slice(0, before.length)) === JSON.stringify(before);
      if (!kept) rewritten += 1;
    }
    // Only the request right after each compaction starts differently from the one before it.
    expect(rewritten).toBe(compactions.length);
    // The journal says so too: between compactions, each request's unchanged beginning is the whole request before it,
    // as the server counted that one. (Not as the app counted it: a count the server reports in between moves the
    // ratio the app counts by, and the app's count stays on the safe side of the server's, within a few percent.)
    const served = setup.server.requests
      .filter((request) => request.path === '/v1/chat/completions' && !asksForNotes(request))
      .map((request) => request.promptTokens);
    const journal = events.filter((event) => event.type === 'context_measured' || event.type === 'context_compacted');
    let measured = 0;
    let checked = 0;
    for (let index = 0; index < journal.length; index += 1) {
      const [before, after] = [journal[index - 1], journal[index]];
      if (after?.type !== 'context_measured') continue;
      measured += 1;
      if (before?.type !== 'context_measured') continue;
      expect(after.shared ?? 0).toBeGreaterThanOrEqual((served[measured - 2] ?? Number.POSITIVE_INFINITY) * 0.95);
      checked += 1;
    }
    expect(served).toHaveLength(measured);
    expect(checked).toBeGreaterThan(5);
  }, 60_000);

  it('six logs reviewed one by one on a 4,096-token window: every request fits, the answer is right, and /compact and Retry still find a way', async () => {
    const setup = await setUp(
      { personality: 'llama.cpp', contextWindow: 4096, fallback: logsModel },
      () => [],
      'openai-compatible',
      writeLogs,
    );
    close = setup.close;
    await setup.run(logsTask);
    const events = setup.events();
    expect(events.findLast((event) => event.type === 'run_finished')).toMatchObject({ status: 'completed' });
    expect(events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('')).toContain(logsAnswer);
    const chats = (): typeof setup.server.requests => setup.server.requests.filter((request) => request.path === '/v1/chat/completions');
    // Nothing the server refused, and every request left its answer room within the window.
    for (const request of chats()) expect(request.promptTokens + Number(request.body['max_tokens'])).toBeLessThanOrEqual(4096);
    expect(events.filter((event) => event.type === 'context_compacted').length).toBeGreaterThan(0);
    // Asked to summarize now, it finds something to do, and the next request fits.
    const { turnId } = await setup.call<{ turnId: string }>('session:compact', { sessionId: setup.sessionId });
    await setup.core.runtime?.whenIdle(setup.sessionId);
    const afterCompact = setup.events();
    expect(afterCompact.findLast((event) => event.type === 'run_finished')).toMatchObject({ status: 'completed', turnId });
    // Retry of the first turn answers it again, on a new branch, and fits too.
    const asked = chats().length;
    const first = afterCompact.find((event) => event.type === 'run_started');
    if (first?.type !== 'run_started') throw new Error('expected a turn');
    await setup.call('turn:retry', { sessionId: setup.sessionId, turnId: first.turnId });
    await setup.core.runtime?.whenIdle(setup.sessionId);
    expect(setup.events().findLast((event) => event.type === 'run_finished')).toMatchObject({ status: 'completed' });
    expect(chats().length).toBeGreaterThan(asked);
    for (const request of chats()) expect(request.promptTokens + Number(request.body['max_tokens'])).toBeLessThanOrEqual(4096);
  }, 60_000);

  it('restoring a checkpoint from before a compaction brings back the whole conversation for the model', async () => {
    const setup = await setUp({ personality: 'llama.cpp', contextWindow: 8192, fallback: notesModel });
    close = setup.close;
    await setup.run(notesTask);
    const compacted = setup.events().find((event) => event.type === 'context_compacted');
    if (compacted?.type !== 'context_compacted') throw new Error('expected a compaction');
    // The checkpoint saved just before the first compaction: notes 1 to 4 read, nothing summarized.
    const checkpoints = setup.events().filter((event) => event.type === 'checkpoint_saved');
    const compaction = checkpoints.find((event) => event.source === 'compaction');
    const before = checkpoints[checkpoints.indexOf(compaction!) - 1];
    if (before?.type !== 'checkpoint_saved') throw new Error('expected a checkpoint before the compaction');
    await setup.call('checkpoint:restore', { sessionId: setup.sessionId, checkpointId: before.checkpointId, mode: 'conversation' });
    setup.server.reset();
    await setup.run('Which facts have you seen so far?');
    // The first request after the restore carries the notes read before it verbatim, and no summary.
    const first = JSON.stringify(setup.server.requests.find((request) => request.path === '/v1/chat/completions')?.body ?? {});
    expect(first).toContain(factOf(1));
    expect(first).not.toContain('<summary>');
  }, 60_000);

  it('a summary that comes back empty gives way to a list of the steps, with a note, and the work goes on', async () => {
    const setup = await setUp({
      personality: 'llama.cpp',
      contextWindow: 8192,
      fallback: (request) => (asksForNotes(request) ? { steps: [{ kind: 'text', text: '   ' }] } : notesModel(request)),
    });
    close = setup.close;
    await setup.run(notesTask);
    const events = setup.events();
    expect(events.findLast((event) => event.type === 'run_finished')).toMatchObject({ status: 'completed' });
    const compaction = events.find((event) => event.type === 'context_compacted');
    expect(compaction).toMatchObject({ method: 'digest', note: expect.stringContaining('empty summary') });
    if (compaction?.type === 'context_compacted') expect(compaction.summary).toContain('AGENT CALLED read_file {"path":"notes/note-1.md"}');
  }, 60_000);

  it("through Ollama's own API the app chooses the window and sends it, so Ollama never cuts the prompt it was not told about", async () => {
    // Ollama's own default window (4,096) would cut the notes silently; the model was trained for 32,768.
    const setup = await setUp(
      { models: [{ id: 'scripted-model', contextLength: 32768 }], ollama: { defaultContextLength: 4096 }, fallback: notesModel },
      () => [],
      'ollama',
    );
    close = setup.close;
    await setup.run(notesTask);
    const events = setup.events();
    expect(events.findLast((event) => event.type === 'run_finished')).toMatchObject({ status: 'completed' });
    const chats = setup.server.requests.filter((request) => request.path === '/api/chat');
    expect(chats.length).toBeGreaterThan(20);
    for (const request of chats) {
      expect((request.body['options'] as { num_ctx?: number }).num_ctx).toBe(8192);
      // What Ollama read is what was sent: nothing dropped, nothing cut.
      expect(request.context).toMatchObject({ window: 8192, droppedMessages: 0, shifted: false });
    }
    expect(events.filter((event) => event.type === 'context_truncated')).toHaveLength(0);
    expect(events.find((event) => event.type === 'context_measured')).toMatchObject({ window: 8192, windowSource: 'server' });
    expect(events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('')).toContain(finalAnswer);
  }, 60_000);

  it('a message larger than the window is never sent: the turn says what is too large, and the session goes on', async () => {
    const setup = await setUp({ personality: 'llama.cpp', contextWindow: 8192, fallback: notesModel });
    close = setup.close;
    await setup.run(`Summarize this: ${'lorem ipsum dolor sit amet '.repeat(2_000)}`);
    const failed = setup.events().findLast((event) => event.type === 'run_finished');
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: 'model_context_overflow', message: expect.stringMatching(/^Your message takes about \d+ tokens/) },
    });
    expect(setup.server.requests.filter((request) => request.path === '/v1/chat/completions')).toHaveLength(0);
    // The oversized message stays in the journal; the next one is answered, the big one shortened for the model.
    await setup.run(notesTask);
    expect(setup.events().findLast((event) => event.type === 'run_finished')).toMatchObject({ status: 'completed' });
  }, 60_000);

  it('a sub-agent follows the chain on an 8,192-token window, compacting as any session does, and its parent holds only its answer', async () => {
    // The parent hands the whole task on, then relays what comes back; the sub-agent is the notes model.
    const model = (request: RecordedRequest): ScriptedTurn => {
      if (asksForNotes(request) || askerOf(request).who !== 'parent') return notesModel(request);
      const last = ((request.body['messages'] ?? []) as Array<{ role: string; content?: unknown }>).at(-1);
      if (last?.role === 'tool') return textTurn(`The sub-agent followed the chain. ${String(last.content)}`);
      return { steps: [toolCall('delegate', { goal: notesTask, returns: 'what the last note says', modelCalls: 80 }, 'd1')] };
    };
    const setup = await setUp({ personality: 'llama.cpp', contextWindow: 8192, fallback: model });
    close = setup.close;
    await setup.run('Have a sub-agent follow the notes for me.');
    const events = setup.events();
    expect(events.findLast((event) => event.type === 'run_finished')).toMatchObject({ status: 'completed' });
    expect(events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('')).toContain(finalAnswer);
    const [child] = await setup.call<Array<{ id: string }>>('session:subAgents', { sessionId: setup.sessionId });
    const childEvents = (setup.core.core?.store.journal(child?.id ?? '') ?? []).map((entry) => entry.event);
    expect(childEvents.findLast((event) => event.type === 'run_finished')).toMatchObject({ status: 'completed' });
    // The sub-agent read all twenty notes within its window, compacting on the way.
    expect(childEvents.filter((event) => event.type === 'context_compacted').length).toBeGreaterThan(0);
    const childReads = childEvents.filter((event) => event.type === 'tool_call_requested' && event.tool === 'read_file');
    expect(childReads.length).toBeGreaterThanOrEqual(20);
    const chats = setup.server.requests.filter((request) => request.path === '/v1/chat/completions');
    for (const request of chats) expect(request.promptTokens + Number(request.body['max_tokens'])).toBeLessThanOrEqual(8192);
    // The parent never read a note: its prompts stayed small and held the answer only.
    const parent = chats.filter((request) => askerOf(request).who === 'parent' && !asksForNotes(request));
    expect(parent).toHaveLength(2);
    expect(JSON.stringify(parent.map((request) => request.body['messages']))).not.toContain(factOf(1));
    expect(Math.max(...parent.map((request) => request.promptTokens))).toBeLessThan(4_000);
    expect(events.some((event) => event.type === 'context_compacted')).toBe(false);
  }, 60_000);
});
