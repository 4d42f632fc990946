/*
 * What the model is told after the person's message, instead of in the system prompt: the date when it is no longer the
 * one the system prompt gives (the session's first day), the memories recalled for the message, and the repository map
 * made for it. The system prompt then stays the same from turn to turn and from day to day, so a server's prompt cache
 * holds across turns.
 */
import type { Memory } from '../../../shared/prompt';
import type { ConversationEntry } from './context-view';
import { fitText, localDate } from './system-prompt';

/** The most a message's memories may take, as a share of the window and in tokens. */
const share = 0.04;
const most = 2_000;
/** The most a repository map may take, in tokens, whatever share of the window the settings give it. */
export const mostMapTokens = 4_096;
/** A map smaller than this says too little to be worth its room. */
const leastMapTokens = 96;

const mapOpen = '<code-map>';
const mapClose = '</code-map>';
const mapIntro =
  "The definitions in this workspace most likely to bear on this message, ranked by how the code refers to them (the files already in the conversation are left out). Each is its file's line number and that line. Use outline, find_symbol and find_references to look closer.";

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

/** The tokens a repository map may take in a window: its share, at most `mostMapTokens`; 0 when that is too small to be of use. */
export function mapBudget(window: number, mapShare: number): number {
  const tokens = Math.min(mostMapTokens, Math.floor(window * mapShare));
  return tokens < leastMapTokens ? 0 : tokens;
}

/** The repository map last given in the conversation (its lines, without the block around them), or null. */
export function mapTold(entries: readonly ConversationEntry[]): string | null {
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index];
    if (entry?.role !== 'user' || entry.recalled !== true) continue;
    const start = entry.content.indexOf(`${mapOpen}\n`);
    const end = entry.content.lastIndexOf(`\n${mapClose}`);
    if (start < 0 || end < start) continue;
    const body = entry.content.slice(start + mapOpen.length + 1, end);
    return body.slice(body.indexOf('\n') + 1);
  }
  return null;
}

/** Tools whose `path` names a file the conversation then holds (read, outlined, written or edited). */
const fileTools = new Set(['read_file', 'outline', 'write_file', 'edit_file']);

/** The paths the conversation's file tools named, each once, in the order they came. */
export function conversationFiles(entries: readonly ConversationEntry[]): string[] {
  const paths = new Set<string>();
  for (const entry of entries) {
    if (entry.role !== 'assistant' || !entry.toolCalls) continue;
    for (const call of entry.toolCalls) {
      if (!fileTools.has(call.name)) continue;
      try {
        const input: unknown = JSON.parse(call.arguments);
        if (typeof input === 'object' && input !== null && 'path' in input && typeof input.path === 'string') paths.add(input.path);
      } catch {
        // A call whose arguments are not JSON named no file.
      }
    }
  }
  return [...paths];
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
    /** The repository map made for the message, with the tokens it was made within; left out when it is the one last given. */
    readonly map?: { readonly text: string; readonly budget: number } | null;
  },
  window: number,
  tokens: (chars: number) => number,
): { text: string; used: Memory[]; map: boolean } | null {
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
  const map = input.map && input.map.text !== mapTold(input.entries) ? input.map : null;
  if (map) lines.push([mapOpen, mapIntro, map.text, mapClose].join('\n'));
  if (lines.length === 0) return null;
  const room = budget + (map ? map.budget + tokens(mapIntro.length + 40) : 0);
  return { text: fitText(lines.join('\n\n'), room, tokens).text, used, map: map !== null };
}
