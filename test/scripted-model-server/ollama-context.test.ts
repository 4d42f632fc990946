import { describe, expect, it } from 'vitest';
import { fitPrompt, loadedWindow } from './ollama-context';
import { countPromptTokens } from './tokens';

const words = (count: number): string => Array.from({ length: count }, () => 'word').join(' ');

describe('the scripted Ollama window', () => {
  it('loads num_ctx when the request gives it, else the Modelfile’s, else the default, never above the trained window', () => {
    expect(loadedWindow({ num_ctx: 8192 }, 2048, 4096, 131072)).toBe(8192);
    expect(loadedWindow({}, 2048, 4096, 131072)).toBe(2048);
    expect(loadedWindow(undefined, undefined, 4096, 131072)).toBe(4096);
    expect(loadedWindow({ num_ctx: 65536 }, undefined, 4096, 32768)).toBe(32768);
    expect(loadedWindow({ num_ctx: 'big' }, undefined, 4096)).toBe(4096);
  });

  it('leaves a prompt that fits alone', () => {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello' },
    ];
    expect(fitPrompt(messages, undefined, 4096, true)).toMatchObject({
      promptTokens: countPromptTokens(messages, undefined),
      keptTokens: countPromptTokens(messages, undefined),
      droppedMessages: 0,
      shifted: false,
    });
  });

  it('drops the oldest messages but keeps the system message and the last one', () => {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: words(300) },
      { role: 'assistant', content: words(300) },
      { role: 'user', content: 'and now?' },
    ];
    const fitted = fitPrompt(messages, undefined, 400, true);
    const kept = [messages[0]!, messages[2]!, messages[3]!];
    expect(fitted).toMatchObject({ droppedMessages: 1, keptTokens: countPromptTokens(kept, undefined), shifted: false, refused: false });
    expect(fitted.promptTokens).toBeGreaterThan(400);
  });

  it('cuts tokens when even the last message does not fit, or refuses without context shift', () => {
    const messages = [
      { role: 'user', content: 'old' },
      { role: 'user', content: words(2000) },
    ];
    expect(fitPrompt(messages, undefined, 1000, true)).toMatchObject({ droppedMessages: 1, keptTokens: 503, shifted: true });
    expect(fitPrompt(messages, undefined, 1000, false)).toMatchObject({ refused: true });
  });
});
