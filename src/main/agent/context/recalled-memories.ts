/*
 * What the model is told after the person's message, instead of in the system prompt: the date when it is no longer the
 * one the system prompt gives (the session's first day), and the memories recalled for the message. The system prompt
 * then stays the same from turn to turn and from day to day, so a server's prompt cache holds across turns.
 */
import type { Memory } from '../../../shared/prompt';
import type { ConversationEntry } from './context-view';
import { fitText, localDate } from './system-prompt';

/** The most a message's memories may take, as a share of the window and in tokens. */
const share = 0.04;
const most = 2_000;

const datePrefix = 'Today is ';
const toldDate = /^Today is (\d{4}-\d{2}-\d{2})/m;

/** The date last told in the conversation, `2026-11-23`, or null when it was never told. */
export function dateTold(entries: readonly ConversationEntry[]): string | null {
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index];
    if (entry?.role !== 'user' || entry.recalled !== true) continue;
    const told = toldDate.exec(entry.content)?.[1];
    if (told) return told;
  }
  return null;
}

/**
 * The note the model reads after the person's message: today's date, when it is not the one the conversation was last
 * told (in a note, or by the system prompt: the session's first day), and the memories relevant to the message, as many
 * as fit their budget. Null when there is nothing to say.
 */
export function contextNote(
  input: {
    readonly memories: readonly Memory[];
    readonly now: number;
    /** When the session began: the date its system prompt gives. */
    readonly startedAt: number;
    readonly entries: readonly ConversationEntry[];
  },
  window: number,
  tokens: (chars: number) => number,
): { text: string; used: Memory[] } | null {
  const known = dateTold(input.entries) ?? localDate(input.startedAt, false);
  const lines = known === localDate(input.now, false) ? [] : [`${datePrefix}${localDate(input.now)}.`];
  const budget = Math.min(most, Math.floor(window * share));
  const used: Memory[] = [];
  let left = budget - tokens(160);
  for (const memory of input.memories) {
    const cost = tokens(memory.text.length + 3);
    if (cost > left) continue;
    left -= cost;
    used.push(memory);
  }
  if (used.length > 0)
    lines.push(
      [
        '<memory>',
        'Facts saved in earlier sessions, by the person or by you with `remember`, that may bear on this message. Use them where they help; they may be out of date.',
        ...used.map((memory) => `- ${memory.text.replace(/\n+/g, ' ')}`),
        '</memory>',
      ].join('\n'),
    );
  if (lines.length === 0) return null;
  return { text: fitText(lines.join('\n\n'), budget, tokens).text, used };
}
