/*
 * Compaction: the oldest part of a conversation summarized by the model, so the rest fits its
 * window. What is kept verbatim: the person's first request, their latest, and the last steps (an
 * open plan is the newest step, so it is among them). The summary is asked for in requests that
 * fit the window themselves; a part too long for one is summarized piece by piece, each piece
 * with the summary so far. When the model cannot summarize, a list of the steps made by the app
 * stands in, so a compaction always makes room.
 */
import type { ContextWindow, ModelChoice } from '../../../shared/domain';
import { callsById, isMessage, latestCompaction, pinnedRequests, shorten, stepStarts, type ConversationEntry } from './context-view';
import type { ChatMessage, ModelProvider, ModelRequest, ToolCallRequest } from '../ports/model-provider';

/** What the summarizer needs of the budget: the window's limits and counting by the model's ratio. */
export interface SummaryBudget {
  limits(window: ContextWindow): { reserve: number; limit: number; threshold: number };
  count(choice: ModelChoice, messages: readonly ChatMessage[]): number;
  countFixed(choice: ModelChoice, system: string, tools: undefined): number;
}

/**
 * Share of the window the verbatim tail may take (the newest step is kept whole whatever its size). Small, so that a
 * compaction frees room for several steps: the summary carries what the older ones found.
 */
const tailShare = 0.15;

/** What a compaction replaces. */
export interface CompactionPlan {
  /** First and last (exclusive) entry the summary stands for. */
  readonly start: number;
  readonly upTo: number;
  /** The messages summarized, in order, with the previous summary first when there is one. */
  readonly messages: readonly ChatMessage[];
  readonly previousSummary: string | null;
  /** Turns the summarized messages belong to (those with the person's message among them). */
  readonly turns: number;
}

/** What to summarize so the conversation fits: everything between the first request and the last steps; null when nothing can be. */
export function planCompaction(
  entries: readonly ConversationEntry[],
  count: (messages: readonly ChatMessage[]) => number,
  window: ContextWindow,
): CompactionPlan | null {
  const previous = latestCompaction(entries);
  const { first } = pinnedRequests(entries);
  const start = Math.max(previous ? previous.entry.upTo : first + 1, first + 1, 0);
  const starts = stepStarts(entries, start, entries.length);
  const keep = Math.floor(window.tokens * tailShare);
  let upTo = entries.length;
  let tail = 0;
  for (let position = starts.length - 1; position >= 0; position -= 1) {
    const from = starts[position] ?? upTo;
    const size = count(entries.slice(from, upTo).filter(isMessage));
    // The newest step always stays whole, however large: it is what the model works on now.
    if (upTo < entries.length && tail + size > keep) break;
    tail += size;
    upTo = from;
  }
  if (upTo <= start) return null;
  const messages = entries.slice(start, upTo).filter(isMessage);
  if (messages.length === 0) return null;
  return {
    start,
    upTo,
    messages,
    previousSummary: previous?.entry.summary ?? null,
    turns: messages.filter((message) => message.role === 'user').length,
  };
}

const summarizerSystem = [
  'You write the working notes of a coding agent whose conversation has grown too long for its context window.',
  'The notes replace the part of the conversation you are given, so the agent must be able to continue the work from them alone.',
  'Write, in plain sentences and short lists: what the person asked for; files read, created or changed, and what in them matters; commands run and their outcome; facts found (exact names, paths, numbers and values, verbatim); decisions made and why; errors met; and what remains to be done next.',
  'Leave out pleasantries and anything the work no longer needs. Do not call tools. Answer with the notes only.',
].join('\n');

/**
 * The instruction that ends a request for notes made as a continuation of the conversation: the server has read all
 * that comes before it already, so only the instruction is new.
 */
export function continuationInstruction(instructions: string | null): string {
  return [
    'Your context window is nearly full, so the conversation above is about to be replaced by working notes, and you will continue the work from them and from the last few steps only.',
    'Write those notes now, in plain sentences and short lists: what the person asked for; files read, created or changed, and what in them matters; commands run and their outcome; facts found (exact names, paths, numbers and values, verbatim); decisions made and why; errors met; and what remains to be done next.',
    'Leave out pleasantries and anything the work no longer needs. Do not call tools. Answer with the notes only.',
    ...(instructions ? [`The person asks the notes to: ${instructions}`] : []),
  ].join('\n');
}

/** Whether notes are shorter than what they replace (the plan's messages, and the notes before): otherwise why not. */
export function notesTooLong(text: string, plan: CompactionPlan, budget: SummaryBudget, choice: ModelChoice): string | null {
  const replaced =
    budget.count(choice, plan.messages) +
    (plan.previousSummary ? budget.count(choice, [{ role: 'user', content: plan.previousSummary }]) : 0);
  const written = budget.count(choice, [{ role: 'user', content: text }]);
  return written >= replaced ? `the summary (about ${written} tokens) was no shorter than what it replaces (${replaced})` : null;
}

/** One line per message, as the summarizer reads the conversation. */
function transcriptLines(messages: readonly ChatMessage[], resultChars: number): string[] {
  const calls = callsById(messages);
  const lines: string[] = [];
  for (const message of messages) {
    if (message.role === 'user') lines.push(`PERSON: ${message.content}`);
    else if (message.role === 'assistant') {
      if (message.content.trim().length > 0) lines.push(`AGENT: ${message.content}`);
      for (const call of message.toolCalls ?? []) lines.push(`AGENT CALLED ${call.name} ${call.arguments}`);
    } else {
      const call: ToolCallRequest | undefined = calls.get(message.toolCallId);
      const label = call ? `${call.name} ${call.arguments.slice(0, 200)}` : 'a tool';
      lines.push(`RESULT OF ${label}${message.isError ? ' (failed)' : ''}: ${shorten(message.content, resultChars)}`);
    }
  }
  return lines;
}

/** The tokens a summary may take: enough to carry the work on, small against the window. */
export function summaryTokens(window: ContextWindow): number {
  return Math.max(256, Math.min(1_500, Math.floor(window.tokens * 0.12)));
}

export interface SummarizeInput {
  readonly plan: CompactionPlan;
  readonly choice: ModelChoice;
  readonly provider: ModelProvider;
  readonly budget: SummaryBudget;
  readonly window: ContextWindow;
  readonly instructions: string | null;
  readonly signal: AbortSignal;
  /** Each model call made, for the session's accounting. */
  readonly onCall: (usage: CallUsage) => void;
  readonly now: () => number;
  /** The line the summary requests go on, for the server's prompt cache: not the conversation's, which they share nothing with. */
  readonly cacheKey?: string;
}

/** What one summary request cost, for the session's accounting. */
export interface CallUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
  readonly latencyMs: number;
}

export type SummaryResult = { readonly kind: 'summary'; readonly text: string } | { readonly kind: 'failed'; readonly reason: string };

/**
 * The model's summary of the plan's messages, in as many requests as the window needs. Fails
 * (with the reason) when the model errs, answers nothing, or answers more than it replaces.
 */
export async function summarize(input: SummarizeInput): Promise<SummaryResult> {
  const { plan, choice, budget, window } = input;
  const answer = summaryTokens(window);
  const extra = input.instructions ? `\nThe person asks the notes to: ${input.instructions}` : '';
  const system = summarizerSystem + extra;
  const { limit } = budget.limits(window);
  // Each request: the instructions, the summary so far, and as many lines as fit.
  const room = Math.min(limit, window.tokens - answer) - budget.countFixed(choice, system, undefined) - 64;
  if (room < 256) return { kind: 'failed', reason: `the window of ${window.tokens} tokens leaves no room for a summary request` };
  const lines = transcriptLines(plan.messages, Math.max(400, Math.floor(room * 1.2)));
  // Notes written for a larger window may not leave room for anything else: they are cut to half a request.
  let summary = plan.previousSummary;
  if (summary !== null) {
    const size = budget.count(choice, [{ role: 'user', content: summary }]);
    if (size > room / 2) summary = shorten(summary, Math.floor((summary.length * room) / 2 / size));
  }
  let position = 0;
  while (position < lines.length) {
    const head = summary ? `NOTES SO FAR:\n${summary}\n\nTHE CONVERSATION GOES ON:\n` : 'THE CONVERSATION:\n';
    const chunk: string[] = [];
    let size = budget.count(choice, [{ role: 'user', content: head }]);
    while (position < lines.length) {
      let line = lines[position] ?? '';
      let lineSize = budget.count(choice, [{ role: 'user', content: line }]);
      if (chunk.length === 0 && size + lineSize > room) {
        // One line larger than a request: its middle goes.
        line = shorten(line, Math.max(200, Math.floor(((room - size) / Math.max(1, lineSize)) * line.length * 0.9)));
        lineSize = budget.count(choice, [{ role: 'user', content: line }]);
      }
      if (chunk.length > 0 && size + lineSize > room) break;
      chunk.push(line);
      size += lineSize;
      position += 1;
    }
    const startedAt = input.now();
    const result = await askForSummary(
      input.provider,
      {
        model: choice.model,
        system,
        messages: [{ role: 'user', content: `${head}${chunk.join('\n\n')}\n\nWrite the notes now.` }],
        maxTokens: answer,
        contextWindow: window.tokens,
        ...(input.cacheKey === undefined ? {} : { cacheKey: input.cacheKey }),
      },
      input.signal,
    );
    input.onCall({ ...result.usage, latencyMs: input.now() - startedAt });
    if (result.kind === 'failed') return result;
    summary = result.text;
  }
  const text = (summary ?? '').trim();
  if (text.length === 0) return { kind: 'failed', reason: 'the model answered with an empty summary' };
  // The notes carry the previous ones on: what they replace includes those.
  const tooLong = notesTooLong(text, plan, budget, choice);
  return tooLong === null ? { kind: 'summary', text } : { kind: 'failed', reason: tooLong };
}

type Usage = Omit<CallUsage, 'latencyMs'>;

export type Asked =
  | { readonly kind: 'summary'; readonly text: string; readonly usage: Usage }
  | { readonly kind: 'failed'; readonly reason: string; readonly usage: Usage };

/** One request for notes, streamed to its end: the text (without inline reasoning), or why there is none. */
export async function askForSummary(provider: ModelProvider, request: ModelRequest, signal: AbortSignal): Promise<Asked> {
  let text = '';
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let failure: string | null = 'the stream ended without finishing';
  let called = false;
  for await (const event of provider.stream(request, signal)) {
    if (event.type === 'text_delta') text += event.text;
    else if (event.type === 'tool_call_ready') called = true;
    else if (event.type === 'usage') {
      const { type: _type, ...figures } = event;
      usage = figures;
    } else if (event.type === 'done') failure = event.stopReason === 'max_tokens' ? 'the notes did not fit the room given for them' : null;
    else if (event.type === 'error') failure = event.error.message;
  }
  if (signal.aborted) return { kind: 'failed', reason: 'stopped', usage };
  if (failure !== null) return { kind: 'failed', reason: `the model could not summarize: ${failure}`, usage };
  // Reasoning some models write inline is no part of the notes.
  const notes = text.replace(/<think>[\s\S]*?<\/think>/g, '').trim();
  // A response that calls a tool is a step of the work, not notes, whatever text comes with the call.
  if (called) return { kind: 'failed', reason: 'the model called a tool instead of writing notes', usage };
  return { kind: 'summary', text: notes, usage };
}

/** The steps of the plan's messages, listed by the app: what stands in when the model cannot summarize. */
export function digest(plan: CompactionPlan, maxChars: number): string {
  const lines = plan.previousSummary ? [`Earlier: ${shorten(plan.previousSummary, Math.floor(maxChars / 3))}`] : [];
  for (const line of transcriptLines(plan.messages, 160)) lines.push(`- ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
  let text = lines.join('\n');
  if (text.length > maxChars) text = shorten(text, maxChars);
  return text;
}
