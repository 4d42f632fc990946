/*
 * The memory store's interface, and the words of a request worth searching memories for.
 */
import type { Memory, MemoryScope } from '../../../shared/prompt';

/** What saving a memory needs; the text is checked already (`memoryTextSchema`). */
export interface NewMemory {
  readonly scope: MemoryScope;
  /** The workspace a `workspace` memory belongs to; ignored for `global`. */
  readonly workspacePath: string | null;
  readonly text: string;
  readonly source: Memory['source'];
  readonly sessionId: string | null;
}

/**
 * Facts kept from one session to the next, on this machine only: the global ones and each workspace's own.
 * `relevant` ranks them against a request by full-text search, so only related ones reach a prompt.
 */
export interface MemoryStore {
  /** A workspace's memories and the global ones (or only the global ones, for null), newest first; `search` narrows them. */
  list(workspacePath: string | null, search?: string): Memory[];
  get(id: string): Memory | null;
  add(memory: NewMemory): Memory;
  /** Throws `NotFoundError` for an unknown id. */
  update(id: string, text: string): Memory;
  /** Throws `NotFoundError` for an unknown id. */
  remove(id: string): void;
  /** The memories that share words with `text`, the most relevant first, at most `limit`. */
  relevant(workspacePath: string | null, text: string, limit: number): Memory[];
  /** A number that changes with every add, update and removal: what was retrieved before it changed may be kept. */
  version(): number;
}

/** Words too common to say what a request is about. */
const commonWords = new Set(
  (
    'a an and are as at be but by can could did do does for from had has have how i if in into is it its just me my no not of on ' +
    'or our please so some than that the their them then there these they this those to up us was we were what when where which ' +
    'who why will with would you your yes also any all about after before more most other such only own same too very should now ' +
    'file files make use using get let want need like one two new add change help look see show tell give find run'
  ).split(' '),
);

/** At most this many words of a request are searched for: a long request is mostly about its first ones. */
const maxTerms = 32;

/**
 * The words of a request worth searching memories for: letters and digits, lower-cased, common words and single letters
 * left out, each once. Quoted for the full-text query by the store, so no word is read as an operator.
 */
export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}_]+/gu)) {
    const word = match[0];
    if (word.length < 2 || commonWords.has(word) || seen.has(word)) continue;
    seen.add(word);
    terms.push(word.slice(0, 64));
    if (terms.length === maxTerms) break;
  }
  return terms;
}
