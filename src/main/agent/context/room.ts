/*
 * Making room in one step: which older messages a compaction shows shortened, so the conversation falls well under its
 * threshold and then only grows at its end until the next compaction.
 */
import { callsById, cutMessage, isMessage, pinnedRequests, readTarget, type ConversationEntry, type Cut } from './context-view';
import type { ChatMessage } from '../ports/model-provider';

/** Steps at the end of the conversation whose messages are cut only when nothing else lets a request fit. */
const recentSteps = 2;
/** What an old tool result is cut to, first gently, then (when the gentle cut is not enough) hard. */
export const gentleChars = 1_500;
export const hardChars = 400;
/** What an earlier message of the person is cut to when nothing else makes the request fit. */
const earlierRequestChars = 2_000;
/** The least a result cut to fit keeps. */
const leastKept = 200;

export interface RoomInput {
  readonly entries: readonly ConversationEntry[];
  /** Where the compaction being made starts seeing messages verbatim (its summary, empty for none, stands for those before). */
  readonly upTo: number;
  /** The cuts of the compaction before, kept where they still apply: a message once shortened stays so. */
  readonly carried: readonly Cut[];
  /** Tokens of the system prompt, the tool definitions and the summary message. */
  readonly fixed: number;
  /** The size the conversation is brought down to, when old results can take it there. */
  readonly target: number;
  /** The most a request may take: a request over it is never sent, so anything may be cut to get under it. */
  readonly limit: number;
  /** Tokens of one message. */
  readonly size: (message: ChatMessage) => number;
}

export interface Room {
  readonly cuts: readonly Cut[];
  /** The request's size with them, as far as the view's messages go. */
  readonly tokens: number;
}

/** Where the last `recentSteps` responses begin among the entries: what is older is cut first. */
function recentStart(entries: readonly ConversationEntry[], from: number): number {
  let seen = 0;
  for (let index = entries.length - 1; index >= from; index -= 1) {
    if (entries[index]?.role === 'assistant') {
      seen += 1;
      if (seen === recentSteps) return index;
    }
  }
  return from;
}

/**
 * The cuts a compaction makes, all at once: whole-file reads superseded by a later read, then old results gently, then
 * hard, oldest first, until the conversation is within `target`; the person's earlier messages and, last, the largest
 * results (the recent ones too) only while it is over `limit`. Each cut is decided from the entries as they are now, so
 * the view it gives never changes until the next compaction.
 */
export function makeRoom(input: RoomInput): Room {
  const { entries, upTo } = input;
  const { first, latest } = pinnedRequests(entries);
  const shown = (index: number): boolean => index >= upTo || index === first || index === latest;
  const cuts = new Map<number, number | null>();
  for (const cut of input.carried) if (shown(cut.at) && cut.at !== latest && cut.at < entries.length) cuts.set(cut.at, cut.keep);
  const sizes = new Map<number, number>();
  let total = input.fixed;
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries[index];
    if (!entry || !isMessage(entry) || !shown(index)) continue;
    const keep = cuts.get(index);
    const size = input.size(keep === undefined ? entry : cutMessage(entry, keep));
    sizes.set(index, size);
    total += size;
  }
  const cut = (index: number, keep: number | null): void => {
    const entry = entries[index];
    if (!entry || !isMessage(entry) || index === latest || !sizes.has(index)) return;
    const before = cuts.get(index);
    // A cut only ever makes a message shorter than it is seen already.
    if (before === null || (before !== undefined && keep !== null && keep >= before)) return;
    const message = cutMessage(entry, keep);
    if (message === entry) return;
    const size = input.size(message);
    const old = sizes.get(index) ?? 0;
    if (size >= old) return;
    cuts.set(index, keep);
    sizes.set(index, size);
    total += size - old;
  };
  const recent = recentStart(entries, upTo);
  const results = [...sizes.keys()].filter((index) => entries[index]?.role === 'tool');
  if (total > input.target) for (const index of supersededBefore(entries, recent)) cut(index, null);
  for (const keep of [gentleChars, hardChars])
    for (const index of results) {
      if (total <= input.target) break;
      if (index < recent) cut(index, keep);
    }
  for (const index of [...sizes.keys()]) {
    if (total <= input.limit || index >= recent) break;
    if (entries[index]?.role === 'user') cut(index, earlierRequestChars);
  }
  // Still too large for any request: the largest results, the recent ones too, keep what fits of them.
  while (total > input.limit) {
    const largest = results.reduce((best, index) => ((sizes.get(index) ?? 0) > (sizes.get(best) ?? -1) ? index : best), -1);
    const entry = entries[largest];
    const size = sizes.get(largest) ?? 0;
    if (!entry || entry.role !== 'tool' || size <= input.size(cutMessage(entry, leastKept))) break;
    const share = Math.max(0, size - (total - input.limit)) / size;
    const before = total;
    cut(largest, Math.max(leastKept, Math.floor(entry.content.length * share * 0.9) - 200));
    if (total >= before) break;
  }
  return { cuts: [...cuts].sort((a, b) => a[0] - b[0]).map(([at, keep]) => ({ at, keep })), tokens: total };
}

/** Results of whole-file reads before `before` whose file was read whole again later (up to now). */
function supersededBefore(entries: readonly ConversationEntry[], before: number): number[] {
  const messages = entries.filter(isMessage);
  const calls = callsById(messages);
  const latest = new Map<string, number>();
  entries.forEach((entry, index) => {
    if (entry.role !== 'tool' || entry.isError) return;
    const target = readTarget(calls.get(entry.toolCallId));
    if (target !== null) latest.set(target, index);
  });
  const out: number[] = [];
  entries.forEach((entry, index) => {
    if (index >= before || entry.role !== 'tool') return;
    const target = readTarget(calls.get(entry.toolCallId));
    if (target !== null && (latest.get(target) ?? index) > index) out.push(index);
  });
  return out;
}
