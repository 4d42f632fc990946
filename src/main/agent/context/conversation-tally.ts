/*
 * Conversations tallied as they grow: characters and messages up to each entry, so a request is measured by what
 * it added.
 */
import type { ConversationEntry } from './context-view';
import { charsOf } from './token-count';

/** What a conversation held up to `length` entries: characters and messages, and whether anything needs more than a sum. */
export interface Tally {
  length: number;
  chars: number;
  messages: number;
  compaction: boolean;
  consecutiveRequests: boolean;
  lastRole: string | null;
  /** A response carries thinking: only then may the request's messages need their thinking taken out. */
  thinking: boolean;
}

/**
 * Conversations tallied from where the last look at each stopped: a conversation only grows at its
 * end (a turn's writer appends), so each request tallies only what is new.
 */
export class ConversationTally {
  private readonly tallies = new WeakMap<readonly ConversationEntry[], Tally>();

  of(entries: readonly ConversationEntry[]): Tally {
    let tally = this.tallies.get(entries);
    if (!tally || tally.length > entries.length)
      tally = { length: 0, chars: 0, messages: 0, compaction: false, consecutiveRequests: false, lastRole: null, thinking: false };
    for (let index = tally.length; index < entries.length; index += 1) {
      const entry = entries[index];
      if (!entry) continue;
      if (entry.role === 'compaction') {
        tally.compaction = true;
        continue;
      }
      tally.chars += charsOf(entry);
      tally.messages += 1;
      if (entry.role === 'user' && tally.lastRole === 'user') tally.consecutiveRequests = true;
      if (entry.role === 'assistant' && entry.thinking !== undefined) tally.thinking = true;
      tally.lastRole = entry.role;
    }
    tally.length = entries.length;
    this.tallies.set(entries, tally);
    return tally;
  }
}
