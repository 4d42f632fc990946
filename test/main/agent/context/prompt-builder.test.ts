import { afterEach, describe, expect, it } from 'vitest';
import type { ContextWindow } from '../../../../src/shared/domain';
import { compactedView, joinRequests, type ConversationEntry } from '../../../../src/main/agent/context/context-view';
import { planCompaction, digest } from '../../../../src/main/agent/context/compaction';
import type { ChatMessage, ModelProvider, ToolSpec } from '../../../../src/main/agent/ports/model-provider';
import { ContextBudget, defaultContextSettings, type Preparation, type Prepared } from '../../../../src/main/agent/context/prompt-builder';
import { OpenAICompatibleProvider } from '../../../../src/main/providers/openai-compatible-provider';
import { ScriptedModelServer, textTurn } from '../../../scripted-model-server';

const choice = { providerId: 'p1', model: 'm1' };
const windowOf = (tokens: number, source: ContextWindow['source'] = 'server'): ContextWindow => ({
  tokens,
  source,
  detail: 'test',
  trained: null,
});

/** A provider that is only asked for its tokenizer here. */
function provider(countTokens?: ModelProvider['countTokens']): ModelProvider {
  return {
    kind: 'openai-compatible',
    stream: () => {
      throw new Error('not streamed in these tests');
    },
    listModels: async () => [],
    ...(countTokens ? { countTokens } : {}),
  };
}

function budget(tokens = 8192, extra: { tokenizerTimeoutMs?: number } = {}): ContextBudget {
  return new ContextBudget({ window: async () => windowOf(tokens), settings: () => defaultContextSettings, ...extra });
}

const user = (content: string): ChatMessage => ({ role: 'user', content });
const call = (id: string, name: string, args: unknown): ChatMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
});
const result = (id: string, content: string): ChatMessage => ({ role: 'tool', toolCallId: id, content });

/** A conversation of `steps` file reads of `size` characters each, after one request. */
function reads(steps: number, size: number, path = (step: number) => `notes/${step}.md`): ChatMessage[] {
  const messages: ChatMessage[] = [user('Follow the notes.')];
  for (let step = 0; step < steps; step += 1) {
    messages.push(call(`c${step}`, 'read_file', { path: path(step) }), result(`c${step}`, `note ${step} `.padEnd(size, 'x')));
  }
  return messages;
}

async function prepare(
  entries: readonly ConversationEntry[],
  options: { mayCompact?: boolean; tokens?: number } = {},
): Promise<Preparation> {
  return budget(options.tokens).prepare({
    choice,
    provider: provider(),
    system: 'You are an agent.',
    tools: undefined,
    entries,
    signal: new AbortController().signal,
    mayCompact: options.mayCompact ?? true,
  });
}

describe('the view of a compacted conversation', () => {
  it('keeps the first and the latest request, then the summary, then everything from the kept tail on', () => {
    const entries: ConversationEntry[] = [
      user('first request'),
      call('a', 'read_file', { path: 'x' }),
      result('a', 'x contents'),
      user('second request'),
      call('b', 'read_file', { path: 'y' }),
      result('b', 'y contents'),
      { role: 'compaction', id: 'k1', summary: 'read x and y', upTo: 4 },
    ];
    const view = joinRequests(compactedView(entries));
    // The person's two requests and the summary are joined into one message of theirs: roles alternate.
    expect(view).toHaveLength(3);
    expect(view[0]?.role).toBe('user');
    expect(view[0]?.content).toContain('first request');
    expect(view[0]?.content).toContain('second request');
    expect(view[0]?.content).toContain('<summary>\nread x and y\n</summary>');
    expect(view.slice(1)).toEqual([entries[4], entries[5]]);
  });

  it('never shows a result whose call the summary stands for, whatever the compaction says', () => {
    const entries: ConversationEntry[] = [
      user('first request'),
      call('a', 'read_file', { path: 'x' }),
      result('a', 'x contents'),
      call('b', 'read_file', { path: 'y' }),
      result('b', 'y contents'),
      // A conversation counted differently puts the cut between a call and its result.
      { role: 'compaction', id: 'k1', summary: 'read x', upTo: 4 },
    ];
    const view = compactedView(entries);
    expect(view.some((message) => message.role === 'tool' && message.toolCallId === 'b')).toBe(false);
    expect(view.at(-1)?.content).toContain('<summary>');
  });

  it('shows every message when nothing was compacted, and only the newest compaction counts', () => {
    const plain = reads(2, 10);
    expect(compactedView(plain)).toEqual(plain);
    const twice: ConversationEntry[] = [
      ...plain,
      { role: 'compaction', id: 'k1', summary: 'old', upTo: 3 },
      call('n', 'read_file', { path: 'z' }),
      result('n', 'z'),
      { role: 'compaction', id: 'k2', summary: 'new', upTo: 6 },
    ];
    const view = compactedView(twice).map((message) => message.content);
    expect(view.join('\n')).toContain('new');
    expect(view.join('\n')).not.toContain('<summary>\nold');
  });
});

describe('the prompt builder', () => {
  it('sends a conversation that fits as it is, with the answer room as max_tokens and the window', async () => {
    const entries = reads(2, 200);
    const prepared = await prepare(entries);
    expect(prepared.kind).toBe('send');
    if (prepared.kind !== 'send') return;
    expect(prepared.prepared.request.messages).toEqual(entries);
    // A small window keeps a sixth of itself for the answer, so the conversation has more room.
    expect(prepared.prepared.request.maxTokens).toBe(1365);
    expect(prepared.prepared.request.contextWindow).toBe(8192);
    expect(prepared.prepared.measure).toMatchObject({ shortened: 0, threshold: 6144, limit: 6827, reserve: 1365, counting: 'estimate' });
  });

  it('over the threshold asks for a compaction and rewrites nothing itself: between compactions the view only grows', async () => {
    // Results that fit the window's limit but not its threshold: before, one more was cut at every request.
    const entries = reads(25, 3_000);
    const prepared = await prepare(entries, { tokens: 32_768 });
    expect(prepared.kind).toBe('compact');
    // Right after a compaction that could not free anything, the request goes as it is while it fits the window.
    const after = await prepare(entries, { mayCompact: false, tokens: 32_768 });
    expect(after.kind).toBe('send');
    if (after.kind !== 'send') return;
    expect(after.prepared.request.messages).toEqual(entries);
    expect(after.prepared.measure.shortened).toBe(0);
    expect(after.prepared.measure.tokens).toBeGreaterThan(after.prepared.measure.threshold);
    expect(after.prepared.measure.tokens).toBeLessThanOrEqual(after.prepared.measure.limit);
  });

  it("shows a compaction's cuts the same way at every request, and counts them as shortened", async () => {
    const entries: ConversationEntry[] = [
      ...reads(3, 3_000),
      { role: 'compaction', id: 'k', summary: '', upTo: 1, cuts: [{ at: 2, keep: 400 }] },
    ];
    const first = await prepare(entries);
    const second = await prepare([...entries, call('c9', 'read_file', { path: 'x.md' }), result('c9', 'short')]);
    if (first.kind !== 'send' || second.kind !== 'send') throw new Error('expected requests');
    const shown = first.prepared.request.messages;
    // No summary message when the compaction only shortened; the cut result keeps its head and tail.
    expect(shown).toHaveLength(7);
    expect(shown[2]?.content).toMatch(/^note 0 x+\n\[… \d+ characters of this old result left out/);
    expect(first.prepared.measure.shortened).toBe(1);
    expect(second.prepared.request.messages.slice(0, shown.length)).toEqual(shown);
  });

  it('asks for a compaction when shortening is not enough, and right after one shortens harder to fit', async () => {
    const entries: ConversationEntry[] = reads(30, 3_000);
    const first = await prepare(entries);
    expect(first.kind).toBe('compact');
    const count = (messages: readonly ChatMessage[]): number => budget().count(choice, messages);
    const plan = planCompaction(entries, count, windowOf(8192));
    entries.push({ role: 'compaction', id: 'k', summary: 'Notes 0 to 27 were read.', upTo: plan?.upTo ?? 0 });
    const after = await prepare(entries, { mayCompact: false });
    expect(after.kind).toBe('send');
    if (after.kind !== 'send') return;
    expect(after.prepared.measure.tokens).toBeLessThanOrEqual(after.prepared.measure.limit);
  });

  it('refuses a request that cannot fit, saying what is too large, and never builds one over the window', async () => {
    expect((await prepare([user('y'.repeat(40_000))])).kind).toBe('compact');
    const prepared = await prepare([user('y'.repeat(40_000))], { mayCompact: false });
    expect(prepared.kind).toBe('too_large');
    if (prepared.kind !== 'too_large') return;
    expect(prepared.error.code).toBe('model_context_overflow');
    expect(prepared.error.message).toMatch(/^Your message takes about \d+ tokens, more than the 6827 tokens a request may take/);
  });

  it('learns a smaller window from a prompt the server cut, and calibrates on the counts it reports', async () => {
    const context = budget();
    const entries = reads(3, 2_000);
    const input = {
      choice,
      provider: provider(),
      system: 'sys',
      tools: undefined,
      entries,
      signal: new AbortController().signal,
      mayCompact: true,
    };
    const first = await context.prepare(input);
    if (first.kind !== 'send') throw new Error('expected a request');
    // A faithful count calibrates: the next estimate follows the server.
    expect(context.observe(choice, first.prepared, Math.round(first.prepared.measure.tokens * 0.8))).toBeNull();
    expect(context.calibration.get('p1\u0000m1').counting).toBe('usage');
    const second = await context.prepare(input);
    if (second.kind !== 'send') throw new Error('expected a request');
    expect(second.prepared.measure.tokens).toBeLessThan(first.prepared.measure.tokens);
    // Far fewer tokens than sent: the server cut the prompt.
    const cut = context.observe(choice, second.prepared, 600);
    expect(cut?.message).toContain('counted 600 prompt tokens');
    const window = await context.window(choice, new AbortController().signal);
    expect(window).toMatchObject({ tokens: 600, source: 'learned' });
  });

  it('does not take a long answer for a cut prompt when one dense first request set the ratio', async () => {
    const context = budget(65_536);
    const dense = { role: 'user' as const, content: `/work/a.ts:12 {"x":[1,2]} ${'$PATH/usr/bin;'.repeat(40)}` };
    const base = { choice, provider: provider(), system: 'sys', tools: undefined, signal: new AbortController().signal, mayCompact: true };
    const first = await context.prepare({ ...base, entries: [dense] });
    if (first.kind !== 'send') throw new Error('expected a request');
    // Dense text: about 2.4 characters a token, as a server counts paths and punctuation.
    expect(context.observe(choice, first.prepared, Math.round(first.prepared.chars / 2.4))).toBeNull();
    const prose = { role: 'assistant' as const, content: 'More detail follows here. '.repeat(1_500) };
    const second = await context.prepare({ ...base, entries: [dense, prose, { role: 'user', content: 'And?' }] });
    if (second.kind !== 'send') throw new Error('expected a request');
    // Prose: about 4.3 characters a token. Well under the dense ratio, and still no cut.
    expect(context.observe(choice, second.prepared, Math.round(second.prepared.chars / 4.3))).toBeNull();
    expect((await context.window(choice, new AbortController().signal)).source).not.toBe('learned');
  });

  it('counts higher after a refusal that gives the prompt size, and forgets a learned window when the figure changes', async () => {
    let figure = 8192;
    let now = 0;
    const context = new ContextBudget({
      window: async () => windowOf(figure),
      settings: () => defaultContextSettings,
      now: () => now,
    });
    const input = {
      choice,
      provider: provider(),
      system: 'sys',
      tools: undefined,
      entries: reads(3, 2_000),
      signal: new AbortController().signal,
      mayCompact: false,
    };
    const first = await context.prepare(input);
    if (first.kind !== 'send') throw new Error('expected a request');
    context.refused(choice, first.prepared, { promptTokens: first.prepared.measure.tokens * 2, window: 6000 });
    const second = await context.prepare(input);
    if (second.kind !== 'send') throw new Error('expected a request');
    expect(second.prepared.measure.tokens).toBeGreaterThan(first.prepared.measure.tokens * 1.5);
    expect(second.prepared.measure.window).toMatchObject({ tokens: 6000, source: 'learned' });
    // A new figure (a setting, a reloaded server) starts afresh; so does time.
    figure = 16384;
    expect(await context.window(choice, new AbortController().signal)).toMatchObject({ tokens: 16384, source: 'server' });
    const third = await context.prepare(input);
    if (third.kind !== 'send') throw new Error('expected a request');
    context.refused(choice, third.prepared, { window: 12000 });
    expect((await context.window(choice, new AbortController().signal)).tokens).toBe(12000);
    now += 31 * 60_000;
    expect((await context.window(choice, new AbortController().signal)).tokens).toBe(16384);
  });

  it("counts the fixed part with the server's tokenizer once, and uses the estimate when it fails or hangs", async () => {
    const asked: string[] = [];
    const exact = budget(8192);
    const input = (countTokens: ModelProvider['countTokens']) => ({
      choice,
      provider: provider(countTokens),
      system: 'sys',
      tools: undefined,
      entries: reads(3, 2_000),
      signal: new AbortController().signal,
      mayCompact: true,
    });
    const counted = input(async (_model, text) => {
      asked.push(text);
      return Math.round(text.length / 5);
    });
    await exact.prepare(counted);
    // The fixed part, and the messages: long enough to set their ratio.
    expect(asked).toHaveLength(2);
    expect(asked[0]).toBe('sys');
    const again = await exact.prepare(counted);
    expect(asked).toHaveLength(2);
    expect(again.kind === 'send' && again.prepared.measure.counting).toBe('tokenizer');

    const hanging = budget(8192, { tokenizerTimeoutMs: 100 });
    const started = Date.now();
    const slow = await hanging.prepare(
      input(
        (_model, _text, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('hung')))),
      ),
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(slow.kind === 'send' && slow.prepared.measure.counting).toBe('estimate');
  });
});

/** A system prompt as dense as an agent's: paths, commands and rules. */
const denseSystem = [
  'You are a coding agent working in /home/dev/project (a TypeScript app; npm, vitest, eslint).',
  ...Array.from(
    { length: 40 },
    (_, line) =>
      `- src/main/part-${line}/module-${line * 7}.ts: run \`npx vitest run test/part-${line}\` after edits; keep it under 400 lines.`,
  ),
].join('\n');

/** Tool definitions as JSON schemas, denser still. */
const denseTools: ToolSpec[] = ['read_file', 'write_file', 'run_command', 'search_files'].map((name) => ({
  name,
  description: `The ${name.replace('_', ' ')} tool: give it a path relative to the workspace; it answers with text or an error.`,
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Relative to the workspace, e.g. src/index.ts.' },
      limit: { type: 'integer', minimum: 1, maximum: 2000 },
      pattern: { type: 'string', description: 'A regular expression, e.g. ^export (const|function).' },
    },
    required: ['path'],
    additionalProperties: false,
  },
}));

const sentences = [
  'The design keeps every request within the window that the server has loaded.',
  'When the conversation grows, the older steps are summarized while the newest stay whole.',
  'Each note names the next one, so the work only goes right if every note reached the model.',
  'Nothing that was sent before is rewritten between two compactions, which keeps the cache warm.',
  'A person reading this later should understand why each choice was made, and what it cost.',
];

/** `chars` characters of prose, different for each `seed`. */
function prose(chars: number, seed: number): string {
  let text = `Note ${seed}. `;
  for (let index = seed; text.length < chars; index += 1) text += `${sentences[index % sentences.length] ?? ''} `;
  return text.slice(0, chars);
}

/** `chars` characters of a service's log: times, numbers, punctuation. */
function logLines(chars: number): string {
  let text = '';
  for (let line = 0; text.length < chars; line += 1)
    text += `2026-11-26 10:${String(line % 60).padStart(2, '0')}:00 INFO request ${line} handled in ${(line * 37) % 90} ms\n`;
  return text.slice(0, chars);
}

describe("counting against the server's own counts", () => {
  let close: (() => Promise<void>) | null = null;
  afterEach(async () => {
    await close?.();
    close = null;
  });

  /** The scripted server speaking llama.cpp (with a tokenizer) or vLLM (without), and a conversation counted for it. */
  async function session(personality: 'llama.cpp' | 'vllm') {
    const server = await ScriptedModelServer.start({ personality, contextWindow: 32_768, fallback: () => textTurn('Noted.') });
    close = () => server.close();
    const model = new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl });
    const context = budget(32_768);
    const conversation: ChatMessage[] = [user('Read the design notes one by one and say what they decide.')];
    const signal = new AbortController().signal;
    /** Prepares the next request of the conversation. */
    const prepare = async (): Promise<Prepared> => {
      const entries = [...conversation];
      const prepared = await context.prepare({
        choice,
        provider: model,
        system: denseSystem,
        tools: denseTools,
        entries,
        signal,
        mayCompact: false,
      });
      if (prepared.kind !== 'send') throw new Error('expected a request');
      return prepared.prepared;
    };
    /** Sends a request: the server's count of its prompt, which the budget observes. */
    const send = async (prepared: Prepared): Promise<number> => {
      let served = 0;
      for await (const event of model.stream(prepared.request, signal)) if (event.type === 'usage') served = event.inputTokens;
      expect(context.observe(choice, prepared, served)).toBeNull();
      return served;
    };
    /** The app's count of the next request and the server's. */
    const step = async (): Promise<{ counted: number; served: number }> => {
      const prepared = await prepare();
      return { counted: prepared.measure.tokens, served: await send(prepared) };
    };
    return { context, conversation, prepare, send, step };
  }

  const readNote = (conversation: ChatMessage[], note: number, content: string): void => {
    conversation.push(call(`c${note}`, 'read_file', { path: `notes/${note}.md` }), result(`c${note}`, content));
  };

  it("counts the first request on the safe side, with the server's tokenizer and without", async () => {
    for (const personality of ['llama.cpp', 'vllm'] as const) {
      const { conversation, step } = await session(personality);
      // A first request that is mostly the dense fixed part, and one with a long message of the person's too.
      const first = await step();
      expect(first.counted).toBeGreaterThanOrEqual(first.served);
      conversation.push({ role: 'assistant', content: 'Which notes?' }, user(prose(5_000, 1)));
      const { counted, served } = await step();
      expect(counted).toBeGreaterThanOrEqual(served);
      await close?.();
      close = null;
    }
  });

  it('counts a request that adds 5,000 characters of prose within 10 % above what the server counts, never below', async () => {
    const { conversation, step } = await session('llama.cpp');
    // The tokenizer counts the dense fixed part, and the server reports the first request.
    const first = await step();
    expect(first.counted).toBeGreaterThanOrEqual(first.served);
    for (let note = 1; note <= 4; note += 1) {
      // The first note's messages are counted by the tokenizer too; the later ones by what the reports taught.
      readNote(conversation, note, prose(5_000, note));
      const { counted, served } = await step();
      expect(counted).toBeGreaterThanOrEqual(served);
      expect(counted).toBeLessThanOrEqual(served * 1.1);
    }
  });

  it('counts higher once the server counted more than the estimate, or refused a request as larger', async () => {
    const { context, conversation, prepare, send, step } = await session('llama.cpp');
    await step();
    readNote(conversation, 1, prose(5_000, 1));
    await step();
    readNote(conversation, 2, prose(5_000, 2));
    await step();
    // A log is denser than the prose the ratio was learned on: the server counts more than the estimate.
    readNote(conversation, 3, logLines(5_000));
    const under = await step();
    expect(under.counted).toBeLessThan(under.served);
    const again = await step();
    expect(again.served).toBe(under.served);
    expect(again.counted).toBeGreaterThanOrEqual(again.served);
    // A refusal that gives the prompt's size raises the count above it.
    const refusedOne = await prepare();
    context.refused(choice, refusedOne, { promptTokens: Math.round(again.served * 1.3) });
    const after = await prepare();
    expect(after.measure.tokens).toBeGreaterThanOrEqual(Math.round(again.served * 1.3));
    expect(await send(after)).toBe(again.served);
  });
});

describe('planning a compaction', () => {
  const count = (messages: readonly ChatMessage[]): number =>
    messages.reduce((sum, message) => sum + Math.ceil(message.content.length / 3) + 6, 0);

  it('summarizes everything between the first request and the newest steps, which stay whole', () => {
    const entries = reads(10, 3_000);
    const plan = planCompaction(entries, count, windowOf(8192));
    expect(plan).not.toBeNull();
    if (!plan) return;
    expect(plan.start).toBe(1);
    // A step starts at a response, never at a result.
    expect(entries[plan.upTo]?.role).toBe('assistant');
    expect(count(entries.slice(plan.upTo))).toBeLessThanOrEqual(2048 + count(entries.slice(-2)));
    expect(plan.messages[0]).toEqual(entries[1]);
  });

  it('starts after the previous compaction and carries its summary, and finds nothing when only the newest step is left', () => {
    const entries: ConversationEntry[] = [...reads(10, 3_000), { role: 'compaction', id: 'k', summary: 'earlier notes', upTo: 15 }];
    const plan = planCompaction(entries, count, windowOf(8192));
    expect(plan?.start).toBe(15);
    expect(plan?.previousSummary).toBe('earlier notes');
    expect(planCompaction(reads(1, 30_000), count, windowOf(8192))).toBeNull();
  });

  it('lists the steps itself when the model cannot summarize, within the room given', () => {
    const plan = planCompaction(reads(10, 3_000), count, windowOf(8192));
    if (!plan) throw new Error('expected a plan');
    const text = digest(plan, 2_000);
    expect(text.length).toBeLessThanOrEqual(2_200);
    expect(text).toContain('AGENT CALLED read_file {"path":"notes/0.md"}');
  });
});
