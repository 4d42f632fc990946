/*
 * Tool calls the model is still writing, folded into the session view while their response streams and dropped when it
 * ends.
 */

import type { ToolCallDraftEvent } from './events';

/** A tool call the model is writing: its name as soon as it is known, its arguments (partial JSON) so far. */
export interface ViewToolDraft {
  readonly index: number;
  readonly callId: string;
  readonly tool: string;
  readonly arguments: string;
}

/** The calls the response streaming now is writing; a session streams one response at a time. */
export interface ViewDrafting {
  readonly messageId: string;
  readonly calls: readonly ViewToolDraft[];
}

/** What of the session view drafts are folded into (the view itself; named apart so the two modules do not import each other). */
interface DraftingView {
  readonly messages: ReadonlyArray<{ readonly id: string; readonly state: string }>;
  readonly drafting: ViewDrafting | null;
}

const isStreaming = (view: DraftingView, messageId: string): boolean =>
  view.messages.findLast((message) => message.id === messageId)?.state === 'streaming';

function applyDraft<View extends DraftingView>(view: View, event: ToolCallDraftEvent): View {
  // A draft lives only as long as its response streams: one arriving after the response was
  // complete, stopped or failed (its frame was sent after the entries that ended it) is stale.
  if (!isStreaming(view, event.messageId)) return view;
  const drafting = view.drafting?.messageId === event.messageId ? view.drafting : { messageId: event.messageId, calls: [] };
  const at = drafting.calls.findIndex((call) => call.index === event.index);
  if (event.type === 'tool_call_draft_started') {
    // The same index again is a new call (a response streamed anew): it replaces the old draft.
    const call: ViewToolDraft = { index: event.index, callId: event.callId, tool: event.tool, arguments: '' };
    const calls = at < 0 ? [...drafting.calls, call] : drafting.calls.map((old, position) => (position === at ? call : old));
    return { ...view, drafting: { messageId: event.messageId, calls } };
  }
  const current = drafting.calls[at];
  // Arguments of a call whose start was not seen (the session was opened in the middle of it) wait for the whole call.
  if (current === undefined || current.callId !== event.callId) return view;
  const calls = drafting.calls.slice();
  calls[at] = { ...current, arguments: current.arguments + event.text };
  return { ...view, drafting: { messageId: event.messageId, calls } };
}

/**
 * Folds the drafts of tool calls into the view, after the journal entries that came with them. They
 * are never journalled, so a view read from the journal has none: the finished calls are the truth.
 */
export function applyToolCallDrafts<View extends DraftingView>(view: View, events: readonly ToolCallDraftEvent[]): View {
  let next = view;
  for (const event of events) next = applyDraft(next, event);
  return next;
}

/** Drops the drafts of a response that is no longer streaming: its calls were requested, or it was stopped or failed. */
export function settleToolCallDrafts<View extends DraftingView>(view: View): View {
  if (view.drafting === null || isStreaming(view, view.drafting.messageId)) return view;
  return { ...view, drafting: null };
}
