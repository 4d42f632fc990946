/*
 * A conversation read from a journal: messages in order, each response with its calls' results, calls without one
 * answered, and a checkpoint's messages checked.
 */
import { z } from 'zod';
import { imageMediaTypeSchema } from '../../../shared/attachments';
import { BugError, StoreError } from '../../../shared/errors';
import { userMessage } from '../context/attachment-content';
import type { JournalEntry } from '../../../shared/events';
import { withheldNote, type InjectionSign } from '../../../shared/guardrails';
import type { ConversationEntry } from '../context/context-view';
import type { ToolCallRequest } from '../ports/model-provider';

interface Draft {
  role: 'assistant';
  content: string;
  toolCalls: ToolCallRequest[];
}

const noResult = 'No result: the turn ended before this call ran.';

/** A message as the journal placed it: whole, or a response still being put together from its events. */
type Ordered = { kind: 'draft'; draft: Draft } | { kind: 'message'; message: ConversationEntry };

interface ToolResult {
  content: string;
  isError: boolean;
}

/** The messages in journal order, each response followed by its calls' results (or a note that there is none). */
function inOrder(order: readonly Ordered[], results: ReadonlyMap<string, ToolResult>): ConversationEntry[] {
  const messages: ConversationEntry[] = [];
  for (const entry of order) {
    if (entry.kind === 'message') {
      messages.push(entry.message);
      continue;
    }
    const item = entry.draft;
    if (item.content.length === 0 && item.toolCalls.length === 0) continue;
    messages.push(
      item.toolCalls.length > 0
        ? { role: 'assistant', content: item.content, toolCalls: item.toolCalls }
        : { role: 'assistant', content: item.content },
    );
    for (const call of item.toolCalls) {
      const result = results.get(call.id);
      messages.push({ role: 'tool', toolCallId: call.id, content: result?.content ?? noResult, isError: result ? result.isError : true });
    }
  }
  return messages;
}

/**
 * Rebuilds the conversation the model sees from the journal: user messages, assistant text and tool
 * calls, and tool results as the model was given them. A call left without a result (a Stop or a
 * crash) gets one saying so, because the APIs require every call to be answered.
 */
export function conversationFromJournal(entries: readonly JournalEntry[]): ConversationEntry[] {
  const drafts = new Map<string, Draft>();
  const order: Ordered[] = [];
  const results = new Map<string, ToolResult>();
  const held = new Map<string, { content: string; isError: boolean; signs: readonly InjectionSign[] }>();

  for (const { event } of entries) {
    switch (event.type) {
      case 'user_message':
        order.push({ kind: 'message', message: userMessage(event.text, event.attachments) });
        break;
      case 'memories_recalled':
        // The memories follow the person's message they were recalled for; a request joins the two into one.
        order.push({ kind: 'message', message: { role: 'user', content: event.text, recalled: true } });
        break;
      case 'assistant_message_started': {
        const draft: Draft = { role: 'assistant', content: '', toolCalls: [] };
        drafts.set(event.messageId, draft);
        order.push({ kind: 'draft', draft });
        break;
      }
      case 'text_delta': {
        const draft = drafts.get(event.messageId);
        if (draft) draft.content += event.text;
        break;
      }
      case 'tool_call_requested': {
        const draft = drafts.get(event.messageId);
        const args = typeof event.input === 'string' ? event.input : JSON.stringify(event.input ?? {});
        draft?.toolCalls.push({ id: event.toolCallId, name: event.tool, arguments: args });
        break;
      }
      case 'tool_call_finished':
        // A held result is the model's only once the person lets it in.
        if (event.injection?.held)
          held.set(event.toolCallId, { content: event.output, isError: event.status !== 'succeeded', signs: event.injection.signs });
        else results.set(event.toolCallId, { content: event.output, isError: event.status !== 'succeeded' });
        break;
      case 'tool_result_reviewed': {
        const result = held.get(event.toolCallId);
        if (!result) break;
        const stopped = event.stopped === true;
        results.set(
          event.toolCallId,
          event.decision === 'release' ? result : { content: withheldNote(result.signs, stopped), isError: result.isError },
        );
        break;
      }
      case 'context_compacted':
        order.push({
          kind: 'message',
          message: {
            role: 'compaction',
            id: event.compactionId,
            summary: event.summary,
            upTo: event.upTo,
            ...(event.cuts ? { cuts: event.cuts } : {}),
          },
        });
        break;
      // Events that add nothing to what the model is given: its reasoning, the turn's bookkeeping, gates, files, figures.
      case 'run_started':
      case 'run_finished':
      case 'autonomy_changed':
      case 'branch_started':
      case 'checkpoint_recovered':
      case 'status_changed':
      case 'reasoning_delta':
      case 'model_call_finished':
      case 'plan_proposed':
      case 'plan_answered':
      case 'budget_reached':
      case 'budget_answered':
      case 'approval_requested':
      case 'approval_answered':
      case 'trust_grant_created':
      case 'tool_call_started':
      case 'tool_output':
      case 'problems_reported':
      case 'check_ran':
      case 'tool_result_held':
      case 'tool_retry_scheduled':
      case 'checkpoint_saved':
      case 'context_measured':
      case 'context_truncated':
      case 'files_snapshotted':
      case 'files_restored':
      case 'git_committed':
      case 'worktree_created':
      case 'worktree_brought_back':
      case 'worktree_removed':
      case 'session_imported':
      case 'message_queued':
      case 'queue_cleared':
      case 'model_fallback_used':
      case 'model_retry_scheduled':
        break;
      default: {
        // The journal is parsed by its schema before it is read, so only a type left out above lands here.
        const unhandled: never = event;
        throw new BugError(`The conversation has no case for ${JSON.stringify(unhandled)}.`);
      }
    }
  }

  return inOrder(order, results);
}

/**
 * Gives every tool call without a result one saying it did not run, in place, as the model APIs
 * require: a checkpoint taken between a response and its tool results has such calls.
 */
export function answerDanglingCalls(messages: readonly ConversationEntry[]): ConversationEntry[] {
  const answered = new Set<string>();
  for (const message of messages) if (message.role === 'tool') answered.add(message.toolCallId);
  const out: ConversationEntry[] = [];
  let open: ToolCallRequest[] = [];
  const close = (): void => {
    for (const call of open) if (!answered.has(call.id)) out.push({ role: 'tool', toolCallId: call.id, content: noResult, isError: true });
    open = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') close();
    out.push(message);
    if (message.role === 'assistant' && message.toolCalls) open = [...message.toolCalls];
  }
  close();
  return out;
}

/** Checkpoints written before images were attached have none: the field is optional. */
const imageContentSchema = z.object({ path: z.string(), mediaType: imageMediaTypeSchema, data: z.string() });
const toolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.string() });
const thinkingBlockSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
]);
/** Checkpoints written before thinking was kept have none: the field is optional. */
const responseThinkingSchema = z.object({ providerId: z.string(), model: z.string(), blocks: z.array(thinkingBlockSchema) });
const chatMessageSchema = z.union([
  z.object({
    role: z.literal('user'),
    content: z.string(),
    images: z.array(imageContentSchema).optional(),
    recalled: z.literal(true).optional(),
  }),
  z.object({
    role: z.literal('assistant'),
    content: z.string(),
    toolCalls: z.array(toolCallSchema).optional(),
    thinking: responseThinkingSchema.optional(),
  }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), content: z.string(), isError: z.boolean().optional() }),
  z.object({
    role: z.literal('compaction'),
    id: z.string(),
    summary: z.string(),
    upTo: z.number().int().nonnegative(),
    cuts: z.array(z.object({ at: z.number().int().nonnegative(), keep: z.number().int().nonnegative().nullable() })).optional(),
  }),
]);

/** Checks what a checkpoint holds is a conversation before a model is given it. */
export function parseCheckpointMessages(messages: readonly unknown[]): ConversationEntry[] {
  const parsed = z.array(chatMessageSchema).safeParse(messages);
  if (!parsed.success)
    throw new StoreError('store_corrupt', `A checkpoint holds a message that is not one: ${parsed.error.issues[0]?.message ?? 'invalid'}.`);
  return parsed.data;
}
