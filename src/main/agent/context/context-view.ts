/*
 * What the model sees of a conversation (design section 10). The conversation keeps every message;
 * a compaction is an entry in it that says "from here on, the messages before `upTo` are seen as
 * this summary, and these older results are seen shortened". The view is a function of the entries
 * alone, so between two compactions it only grows at its end and a server's prompt cache holds.
 */
import type { ModelChoice } from '../../../shared/domain';
import type { ChatMessage, ToolCallRequest } from '../ports/model-provider';

/**
 * An older message seen shorter from a compaction on: its first and last characters to `keep` in all, or, with `keep`
 * null, a note that a later read of the same file stands for it.
 */
export interface Cut {
  /** Index in the conversation of the message (a tool result, or an earlier message of the person's). */
  readonly at: number;
  readonly keep: number | null;
}

/**
 * A summary that stands, for the model, for the messages before `upTo` (the person's first request excepted), and the
 * older messages seen shortened after it. An empty summary stands for nothing: the compaction only shortened.
 */
export interface CompactionEntry {
  readonly role: 'compaction';
  readonly id: string;
  readonly summary: string;
  /** Index in the conversation of the first entry seen verbatim after the summary. */
  readonly upTo: number;
  /** Messages seen shortened, each decided from what came before the compaction only; absent in older conversations. */
  readonly cuts?: readonly Cut[];
}

/** One entry of a conversation as checkpoints keep it: a message, or a compaction. */
export type ConversationEntry = ChatMessage | CompactionEntry;

export const isMessage = (entry: ConversationEntry): entry is ChatMessage => entry.role !== 'compaction';

const summaryHeading =
  'The conversation so far was too long for your context window, so its earlier part is summarized here. Continue the work from this summary and the messages after it.';

/** The summary as the model reads it. */
export function summaryMessage(summary: string): ChatMessage {
  return { role: 'user', content: `${summaryHeading}\n\n<summary>\n${summary}\n</summary>` };
}

/** The newest compaction of the conversation, and where it is. */
export function latestCompaction(entries: readonly ConversationEntry[]): { entry: CompactionEntry; at: number } | null {
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index];
    if (entry?.role === 'compaction') return { entry, at: index };
  }
  return null;
}

/** Index of the person's first message, and of their latest one. */
export function pinnedRequests(entries: readonly ConversationEntry[]): { first: number; latest: number } {
  const isRequest = (entry: ConversationEntry | undefined): boolean => entry?.role === 'user' && entry.recalled !== true;
  const first = entries.findIndex(isRequest);
  let latest = -1;
  for (let index = entries.length - 1; index >= 0; index -= 1)
    if (isRequest(entries[index])) {
      latest = index;
      break;
    }
  return { first, latest };
}

/** A message as a cut shows it. */
export function cutMessage(message: ChatMessage, keep: number | null): ChatMessage {
  if (message.role === 'assistant') return message;
  if (keep === null) return message.role === 'tool' ? { ...message, content: supersededNote } : message;
  const content = shorten(message.content, keep);
  return content === message.content ? message : { ...message, content };
}

/**
 * The conversation under its latest compaction: the person's first request, their latest one when
 * the summary covers it, the summary, then every message from `upTo` on, with the compaction's cuts.
 * Without a compaction, every message.
 */
export function compactedView(entries: readonly ConversationEntry[]): ChatMessage[] {
  const compaction = latestCompaction(entries);
  if (!compaction) return entries.filter(isMessage);
  const out: ChatMessage[] = [];
  const { first, latest } = pinnedRequests(entries);
  const upTo = Math.min(compaction.entry.upTo, entries.length);
  const cuts = new Map<number, number | null>();
  for (const cut of compaction.entry.cuts ?? []) if (cut.at !== latest) cuts.set(cut.at, cut.keep);
  const seen = (index: number, message: ChatMessage): ChatMessage => {
    const keep = cuts.get(index);
    return keep === undefined ? message : cutMessage(message, keep);
  };
  const firstEntry = entries[first];
  if (firstEntry && isMessage(firstEntry) && first < upTo) out.push(seen(first, firstEntry));
  const latestEntry = entries[latest];
  if (latestEntry && isMessage(latestEntry) && latest !== first && latest < upTo) out.push(latestEntry);
  if (compaction.entry.summary !== '') out.push(summaryMessage(compaction.entry.summary));
  // A result whose call the summary stands for cannot be sent: the APIs refuse a result without its call.
  // (`upTo` always starts a step, but a conversation rebuilt another way may count its entries differently.)
  const calls = new Set<string>();
  for (let index = upTo; index < entries.length; index += 1) {
    const entry = entries[index];
    if (!entry || !isMessage(entry)) continue;
    if (entry.role === 'assistant') for (const call of entry.toolCalls ?? []) calls.add(call.id);
    if (entry.role === 'tool' && !calls.has(entry.toolCallId)) continue;
    out.push(seen(index, entry));
  }
  return out;
}

/** Consecutive messages of the person joined into one, as some chat templates require roles to alternate. */
export function joinRequests(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    const last = out.at(-1);
    if (last?.role === 'user' && message.role === 'user') {
      const images = [...(last.images ?? []), ...(message.images ?? [])];
      out[out.length - 1] = { role: 'user', content: `${last.content}\n\n${message.content}`, ...(images.length > 0 ? { images } : {}) };
    } else out.push(message);
  }
  return out;
}

/**
 * The messages with only the thinking that may be sent: a response's blocks go back to the endpoint
 * and model that wrote them, while thinking is on. Another model refuses a signature it did not
 * make, and with thinking off the API refuses the blocks. The list is copied only when a message loses some.
 */
export function ownThinkingOnly(messages: readonly ChatMessage[], choice: ModelChoice, on: boolean): readonly ChatMessage[] {
  let out: ChatMessage[] | null = null;
  for (let position = 0; position < messages.length; position += 1) {
    const message = messages[position];
    if (message?.role !== 'assistant' || message.thinking === undefined) continue;
    if (on && message.thinking.providerId === choice.providerId && message.thinking.model === choice.model) continue;
    out ??= [...messages];
    out[position] = message.toolCalls
      ? { role: 'assistant', content: message.content, toolCalls: message.toolCalls }
      : { role: 'assistant', content: message.content };
  }
  return out ?? messages;
}

/**
 * Whether the conversation goes on with a tool loop whose response came without thinking from this
 * endpoint and model (it was written with thinking off, or by another model): the API refuses
 * thinking for such a request, which must then go without.
 */
export function loopWithoutOwnThinking(entries: readonly ConversationEntry[], choice: ModelChoice): boolean {
  let position = entries.length - 1;
  if (entries[position]?.role !== 'tool') return false;
  while (position >= 0 && entries[position]?.role === 'tool') position -= 1;
  const response = entries[position];
  if (response?.role !== 'assistant') return false;
  return response.thinking?.providerId !== choice.providerId || response.thinking.model !== choice.model;
}

/** Where each step of the conversation begins: a message of the person or a response (its tool results belong to it). */
export function stepStarts(entries: readonly ConversationEntry[], from: number, to: number): number[] {
  const starts: number[] = [];
  for (let index = from; index < to; index += 1) {
    const role = entries[index]?.role;
    if (role === 'user' || role === 'assistant') starts.push(index);
  }
  return starts;
}

/** The calls of the conversation by id, so a result can be told which call it answers. */
export function callsById(messages: readonly ChatMessage[]): Map<string, ToolCallRequest> {
  const calls = new Map<string, ToolCallRequest>();
  for (const message of messages) if (message.role === 'assistant') for (const call of message.toolCalls ?? []) calls.set(call.id, call);
  return calls;
}

/** The file a call reads, for calls that read one whole file. */
export function readTarget(call: ToolCallRequest | undefined): string | null {
  if (!call || call.name !== 'read_file') return null;
  try {
    const input = JSON.parse(call.arguments) as { path?: unknown; startLine?: unknown; endLine?: unknown };
    if (typeof input.path !== 'string') return null;
    // A read of part of a file does not stand for a later whole read, nor the other way round.
    if (input.startLine !== undefined || input.endLine !== undefined) return null;
    return input.path.replace(/^\.\//, '');
  } catch {
    return null;
  }
}

/** A long text with its middle left out: the head and the tail stay, with a marker that says how much is gone and why. */
export function shorten(text: string, keepChars: number): string {
  if (text.length <= keepChars + 120) return text;
  const head = Math.ceil(keepChars * 0.6);
  const tail = keepChars - head;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n[… ${omitted} characters of this old result left out to fit the model's context window; the session keeps it whole …]\n${tail > 0 ? text.slice(-tail) : ''}`;
}

export const supersededNote = '[This file was read again later in the conversation; that later result is the current one.]';
