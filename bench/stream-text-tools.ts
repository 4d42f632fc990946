import type { ModelStreamEvent } from '../src/main/agent/ports/model-provider';
import { OpenAICompatibleProvider } from '../src/main/providers/openai-compatible-provider';
import { ToolProtocolProvider } from '../src/main/providers/text-tool-provider';
import { ScriptedModelServer, type ScriptedTurn } from '../test/scripted-model-server';

/*
 * Text-tool mode: a 20,000-token answer (some prose, then a write_file whose content is most of it) read through the real
 * provider over HTTP, once as a native tool call and once written as a <tool_call> block in the text, in the same run.
 * The difference is the cost of finding the block in the stream and reading its JSON.
 */

const tokens = 20_000;
const token = 'tok ';
const content = token.repeat(tokens - 200);
const turn: ScriptedTurn = {
  steps: [
    { kind: 'text', text: token.repeat(200), chunkSize: token.length },
    { kind: 'tool_call', id: 'w', name: 'write_file', arguments: JSON.stringify({ path: 'big.txt', content }), chunks: tokens - 200 },
  ],
  usage: { inputTokens: 10, outputTokens: tokens },
};
const request = {
  model: 'scripted-model',
  messages: [{ role: 'user' as const, content: 'go' }],
  tools: [{ name: 'write_file', description: 'Writes a file.', inputSchema: { type: 'object' } }],
};
const rounds = 7;

async function readAll(server: ScriptedModelServer, mode: 'native' | 'text'): Promise<number> {
  const provider = new ToolProtocolProvider(new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl }), { protocolOf: () => mode });
  server.enqueue(turn);
  const started = performance.now();
  let ready: Extract<ModelStreamEvent, { type: 'tool_call_ready' }> | null = null;
  for await (const event of provider.stream(request, AbortSignal.timeout(60_000))) {
    if (event.type === 'tool_call_ready') ready = event;
    if (event.type === 'error') throw new Error(event.error.message);
  }
  const elapsed = performance.now() - started;
  if ((JSON.parse(ready?.arguments ?? '{}') as { content?: string }).content !== content)
    throw new Error(`${mode}: the call came back wrong`);
  return elapsed;
}

export async function runTextToolStreamBench(): Promise<void> {
  const native = await ScriptedModelServer.start();
  const text = await ScriptedModelServer.start({ textOnly: true });
  const nativeTimes: number[] = [];
  const textTimes: number[] = [];
  await readAll(native, 'native');
  await readAll(text, 'text');
  for (let round = 0; round < rounds; round += 1) {
    nativeTimes.push(await readAll(native, 'native'));
    textTimes.push(await readAll(text, 'text'));
    console.log(
      `text tools, round ${round + 1}: native call ${nativeTimes.at(-1)?.toFixed(1)} ms, text block ${textTimes.at(-1)?.toFixed(1)} ms`,
    );
  }
  await native.close();
  await text.close();
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  console.log(
    JSON.stringify({
      bench: 'stream-text-tools',
      tokens,
      native_ms: Number(median(nativeTimes).toFixed(1)),
      text_ms: Number(median(textTimes).toFixed(1)),
      ratio: Number((median(textTimes) / median(nativeTimes)).toFixed(3)),
      target: 'ratio <= 1.10',
    }),
  );
}
