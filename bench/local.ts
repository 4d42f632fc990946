import { LlamaChat, LlamaLogLevel, getLlama, resolveChatWrapper } from 'node-llama-cpp';
import type { ModelStreamEvent } from '../src/main/agent/ports/model-provider';
import { LocalRuntimeProvider } from '../src/main/runtime/local-runtime-provider';
import { sourceRuntime } from '../src/main/runtime/runtime-process';
import { TinyModels } from '../test/main/runtime/runtime-fixture';

/*
 * The built-in runtime against node-llama-cpp used directly, in the same run, on the same model, prompt, window and
 * sampling: tokens per second while it generates, and the time to the first token. The model is one the bench writes
 * (a GGUF of 4 blocks 768 wide, F32, about 120 MB), so the numbers measure the runtime's own cost — its process, its
 * messages, the provider — against the work of the tokens themselves. Both are warmed (model loaded, context made)
 * before timing; the runs alternate. Target: a ratio of at least 0.95.
 */

const rounds = 5;
const answerTokens = 160;
const contextSize = 4096;
const prompt = 'Write a long story about a lighthouse keeper who counts the ships that pass.';
const system = 'You are a helpful assistant.';
/**
 * Both compute with one thread: llama.cpp's threads wait for each other by spinning, so on a machine of few cores with
 * anything else running, two threads measure the machine's other work more than the runtime.
 */
const threads = 1;

interface Run {
  readonly firstTokenMs: number;
  readonly tokensPerSecond: number;
  readonly tokens: number;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

export async function runLocalBench(): Promise<void> {
  const models = new TinyModels();
  const written = performance.now();
  const model = models.add('bench', {
    says: ['tick', ' tock'],
    then: 0,
    blocks: 4,
    extraWidth: 480,
    feedForward: 2048,
    contextLength: contextSize,
  });
  console.log(`wrote a ${(model.sizeBytes / 1e6).toFixed(0)} MB model in ${((performance.now() - written) / 1000).toFixed(1)} s`);

  // node-llama-cpp directly, in this process.
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
  const loaded = await llama.loadModel({ modelPath: model.path });
  const context = await loaded.createContext({ contextSize, threads });
  const chat = new LlamaChat({ contextSequence: context.getSequence(), chatWrapper: resolveChatWrapper(loaded) });
  const direct = async (): Promise<Run> => {
    const started = performance.now();
    let first = 0;
    let tokens = 0;
    await chat.generateResponse(
      [
        { type: 'system', text: system },
        { type: 'user', text: prompt },
        { type: 'model', response: [] },
      ],
      {
        maxTokens: answerTokens,
        temperature: 0,
        onResponseChunk: (chunk) => {
          if (first === 0) first = performance.now();
          tokens += chunk.tokens.length;
        },
      },
    );
    const ended = performance.now();
    return { firstTokenMs: first - started, tokensPerSecond: ((tokens - 1) / (ended - first)) * 1000, tokens };
  };

  // The built-in runtime: its own process, its messages, the provider.
  const provider = new LocalRuntimeProvider({
    models,
    launch: sourceRuntime({ WORKBENCH_RUNTIME_GPU: 'off', WORKBENCH_RUNTIME_THREADS: String(threads) }),
    defaultTemperature: 0,
  });
  const ours = async (): Promise<Run> => {
    const started = performance.now();
    let first = 0;
    let last = 0;
    let usage = 0;
    const events: ModelStreamEvent[] = [];
    for await (const event of provider.stream(
      { model: 'bench', system, messages: [{ role: 'user', content: prompt }], maxTokens: answerTokens, contextWindow: contextSize },
      new AbortController().signal,
    )) {
      events.push(event);
      if (event.type === 'text_delta') {
        if (first === 0) first = performance.now();
        last = performance.now();
      }
      if (event.type === 'usage') usage = event.outputTokens;
      if (event.type === 'error') throw new Error(event.error.message);
    }
    // The last piece arrives with the end of the answer; the time runs to it.
    return { firstTokenMs: first - started, tokensPerSecond: ((usage - 1) / (last - first)) * 1000, tokens: usage };
  };

  console.log(`warm-up: directly ${JSON.stringify(await direct())}, built-in ${JSON.stringify(await ours())}`);
  const directRuns: Run[] = [];
  const ourRuns: Run[] = [];
  for (let round = 0; round < rounds; round += 1) {
    if (round % 2 === 0) {
      directRuns.push(await direct());
      ourRuns.push(await ours());
    } else {
      ourRuns.push(await ours());
      directRuns.push(await direct());
    }
  }
  provider.dispose();
  chat.dispose();
  await context.dispose();
  await loaded.dispose();
  await llama.dispose();
  models.remove();

  const ourSpeed = median(ourRuns.map((run) => run.tokensPerSecond));
  const directSpeed = median(directRuns.map((run) => run.tokensPerSecond));
  const ourFirst = median(ourRuns.map((run) => run.firstTokenMs));
  const directFirst = median(directRuns.map((run) => run.firstTokenMs));
  const ratio = ourSpeed / directSpeed;
  console.log(
    `built-in runtime: ${ourSpeed.toFixed(1)} tokens/s, first token ${ourFirst.toFixed(1)} ms; node-llama-cpp directly: ${directSpeed.toFixed(1)} tokens/s, first token ${directFirst.toFixed(1)} ms (medians of ${rounds}, ${ourRuns[0]?.tokens ?? 0} tokens each)`,
  );
  console.log(
    JSON.stringify({
      bench: 'local',
      model_mb: Number((model.sizeBytes / 1e6).toFixed(1)),
      tokens: answerTokens,
      tokens_per_second: Number(ourSpeed.toFixed(2)),
      direct_tokens_per_second: Number(directSpeed.toFixed(2)),
      first_token_ms: Number(ourFirst.toFixed(1)),
      direct_first_token_ms: Number(directFirst.toFixed(1)),
      ratio: Number(ratio.toFixed(3)),
      target_met: ratio >= 0.95,
    }),
  );
}
