/*
 * Memories given to the model after the person's message they were recalled for, instead of in the system prompt: the
 * system prompt then stays the same from turn to turn, and a server's prompt cache holds across turns.
 */
import type { Memory } from '../../../shared/prompt';
import { fitText } from './system-prompt';

/** The most a message's memories may take, as a share of the window and in tokens. */
const share = 0.04;
const most = 2_000;

/** The block the model reads after the person's message: the memories relevant to it, as many as fit its budget. */
export function memoryBlock(
  memories: readonly Memory[],
  window: number,
  tokens: (chars: number) => number,
): { text: string; used: Memory[] } | null {
  const budget = Math.min(most, Math.floor(window * share));
  const used: Memory[] = [];
  let left = budget - tokens(160);
  for (const memory of memories) {
    const cost = tokens(memory.text.length + 3);
    if (cost > left) continue;
    left -= cost;
    used.push(memory);
  }
  if (used.length === 0) return null;
  const text = [
    '<memory>',
    'Facts saved in earlier sessions, by the person or by you with `remember`, that may bear on this message. Use them where they help; they may be out of date.',
    ...used.map((memory) => `- ${memory.text.replace(/\n+/g, ' ')}`),
    '</memory>',
  ].join('\n');
  return { text: fitText(text, budget, tokens).text, used };
}
