import { describe, expect, it } from 'vitest';
import { AnthropicPromptCache, breakpointRefusal } from './anthropic-cache';
import { promptTokensOf } from './overflow';

const mark = { type: 'ephemeral' };
const text = (words: string, marked = false): Record<string, unknown> => ({
  type: 'text',
  text: words,
  ...(marked ? { cache_control: mark } : {}),
});

/** A request whose one user message has these blocks. */
const request = (blocks: Record<string, unknown>[]): Record<string, unknown> => ({
  model: 'scripted-model',
  system: [text('Be brief.', true)],
  messages: [{ role: 'user', content: blocks }],
});

/** `count` text blocks, the last with a breakpoint. */
const blocks = (count: number): Record<string, unknown>[] =>
  Array.from({ length: count }, (_, at) => text(`block number ${at}`, at === count - 1));
/** The same blocks without a breakpoint. */
const plain = (count: number): Record<string, unknown>[] => Array.from({ length: count }, (_, at) => text(`block number ${at}`));

const serve = (cache: AnthropicPromptCache, body: Record<string, unknown>): ReturnType<AnthropicPromptCache['serve']> =>
  cache.serve(body, promptTokensOf(true, body));

describe('the scripted Anthropic prompt cache', () => {
  it('writes a new prompt up to its last breakpoint, then reads it for a request that begins with it', () => {
    const cache = new AnthropicPromptCache();
    const first = request(blocks(3));
    expect(serve(cache, first)).toEqual({ read: 0, written: promptTokensOf(true, first), uncached: 0 });
    const second = request([...plain(3), text('and one more', true)]);
    const again = serve(cache, second);
    expect(again.read).toBe(promptTokensOf(true, first));
    expect(again.read + again.written + again.uncached).toBe(promptTokensOf(true, second));
    expect(again.written).toBeGreaterThan(0);
  });

  it('counts the prompt after the last breakpoint as neither read nor written', () => {
    const cache = new AnthropicPromptCache();
    const body = request([text('cached', true), text('not cached at all')]);
    const usage = serve(cache, body);
    expect(usage.uncached).toBeGreaterThan(0);
    expect(usage.written + usage.uncached).toBe(promptTokensOf(true, body));
  });

  it('finds an entry no more than 20 blocks before a breakpoint', () => {
    const near = new AnthropicPromptCache();
    serve(near, request(blocks(5)));
    expect(serve(near, request([...plain(5), ...blocks(20)])).read).toBe(promptTokensOf(true, request(plain(5))));
    const far = new AnthropicPromptCache();
    serve(far, request(blocks(5)));
    expect(serve(far, request([...plain(5), ...blocks(21)])).read).toBe(promptTokensOf(true, { system: [text('Be brief.')] }));
  });

  it('reads nothing of a prompt that differs before the entry, and nothing for another model', () => {
    const cache = new AnthropicPromptCache();
    serve(cache, request(blocks(3)));
    expect(serve(cache, { ...request(blocks(3)), system: [text('Be verbose.', true)] }).read).toBe(0);
    expect(serve(cache, { ...request(blocks(3)), model: 'other-model' }).read).toBe(0);
  });

  it('refuses breakpoints the API refuses, in its words', () => {
    const thinking = { type: 'thinking', thinking: 'Hmm.', signature: 's', cache_control: mark };
    expect(breakpointRefusal({ messages: [{ role: 'assistant', content: [thinking] }] })).toBe(
      'messages.0.content.0.thinking.cache_control: Extra inputs are not permitted',
    );
    expect(breakpointRefusal({ messages: [{ role: 'user', content: [text('', true)] }] })).toBe(
      'messages.0.content.0.text: cache_control cannot be set for empty text blocks',
    );
    expect(breakpointRefusal(request([...blocks(1), ...blocks(1), ...blocks(1), ...blocks(1)]))).toBe(
      'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    );
    expect(breakpointRefusal(request(blocks(3)))).toBeNull();
  });
});
