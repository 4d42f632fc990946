import { createBridge } from '../src/shared/ipc/bridge';
import type { ChannelName, EventName } from '../src/shared/ipc/contract';
import { AppStore } from '../src/renderer/src/store';
import { temporaryFolder } from '../test/helpers';
import { LoopbackTransport } from '../test/host/loopback-transport';
import { createNodeCore } from '../test/host/node-core';
import { ScriptedModelServer, type ScriptedTurn } from '../test/scripted-model-server';
import { runTextToolStreamBench } from './stream-text-tools';

/*
 * Streams 20,000 tokens from the scripted server through the provider, the runtime, the journal,
 * the IPC batching and into the renderer's store under Node, and compares it with reading the same
 * HTTP stream alone, in the same run.
 */

const tokens = 20_000;
const tokenText = 'tok ';
const turn: ScriptedTurn = {
  steps: [{ kind: 'text', text: tokenText.repeat(tokens), chunkSize: tokenText.length }],
  usage: { inputTokens: 10, outputTokens: tokens },
};
const rounds = 5;

async function baseline(server: ScriptedModelServer): Promise<number> {
  server.enqueue(turn);
  const started = performance.now();
  const response = await fetch(`${server.openaiBaseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'scripted-model', stream: true, messages: [{ role: 'user', content: 'go' }] }),
  });
  const reader = response.body?.getReader();
  if (!reader) throw new Error('no body');
  const decoder = new TextDecoder();
  let frames = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    frames += decoder.decode(value, { stream: true }).split('\n\n').length - 1;
  }
  const elapsed = performance.now() - started;
  if (frames < tokens) throw new Error(`baseline read ${frames} frames`);
  return elapsed;
}

async function throughWorkbench(server: ScriptedModelServer): Promise<{ elapsedMs: number; ipcMessages: number }> {
  const folder = temporaryFolder('workbench-bench-');
  const transport = new LoopbackTransport();
  transport.recordEvents = false;
  const { core } = await createNodeCore({ dataDir: folder.path, transport });
  const api = createBridge({
    invoke: (channel: ChannelName, input: unknown) => transport.invoke(channel, input),
    subscribe: (event: EventName, listener: (payload: unknown) => void) =>
      transport.onEvent((name, payload) => name === event && listener(payload)),
    pathForFile: () => null,
  });
  const store = new AppStore(api, (callback) => setTimeout(callback, 16));
  await store.start();
  const provider = await store.call('provider:save', { kind: 'openai-compatible', name: 'Scripted', baseUrl: server.openaiBaseUrl });
  await store.call('settings:update', { defaultModel: { providerId: provider.id, model: 'scripted-model' } });
  await store.createSession();
  const sessionId = store.getState().selectedId;
  if (!sessionId) throw new Error('no session');
  let ipcMessages = 0;
  transport.onEvent((event) => {
    if (event === 'session:events') ipcMessages += 1;
  });
  server.enqueue(turn);
  const expected = tokenText.repeat(tokens).length;
  const started = performance.now();
  await store.call('run:send', { sessionId, text: 'go' });
  await new Promise<void>((resolve) => {
    const check = (): void => {
      const answer = store.getState().views[sessionId]?.messages.at(-1);
      if (answer?.role === 'assistant' && answer.state === 'done' && answer.text.length === expected) resolve();
      else setTimeout(check, 1);
    };
    check();
  });
  const elapsedMs = performance.now() - started;
  store.dispose();
  await core.close();
  folder.remove();
  return { elapsedMs, ipcMessages };
}

export async function runStreamBench(): Promise<void> {
  const server = await ScriptedModelServer.start();
  const baselineTimes: number[] = [];
  const workbenchTimes: number[] = [];
  let ipcMessages = 0;
  await baseline(server);
  await throughWorkbench(server);
  for (let round = 0; round < rounds; round += 1) {
    baselineTimes.push(await baseline(server));
    const result = await throughWorkbench(server);
    workbenchTimes.push(result.elapsedMs);
    ipcMessages = result.ipcMessages;
    console.log(
      `round ${round + 1}: http alone ${baselineTimes.at(-1)?.toFixed(1)} ms, through the workbench ${result.elapsedMs.toFixed(1)} ms, ${result.ipcMessages} IPC messages`,
    );
  }
  await server.close();
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  const tokensPerSecond = tokens / (median(workbenchTimes) / 1000);
  const baselinePerSecond = tokens / (median(baselineTimes) / 1000);
  console.log(
    JSON.stringify({
      bench: 'stream',
      tokens,
      tokens_per_s: Math.round(tokensPerSecond),
      baseline_tokens_per_s: Math.round(baselinePerSecond),
      ratio: Number((tokensPerSecond / baselinePerSecond).toFixed(3)),
      ipc_messages_per_1000_tokens: Number(((ipcMessages / tokens) * 1000).toFixed(2)),
    }),
  );
  await runTextToolStreamBench();
}
