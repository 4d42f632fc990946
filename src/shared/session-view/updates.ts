/* How the session view's fold changes one message, one tool call, or every open part of a turn that ended. */

import type { MessageState, SessionView, ViewInterruption, ViewMessage, ViewToolCall, ViewToolCallState } from './types';

/** What was in flight: the running call if there is one, else the newest call still open. */
export function interruption(view: SessionView): ViewInterruption {
  const open = view.messages.flatMap((message) => message.toolCalls).filter((call) => openToolStates.has(call.state));
  const last = open.find((call) => call.state === 'running') ?? open.at(-1) ?? null;
  return {
    turnId: view.activeTurnId,
    lastTool: last ? { id: last.id, tool: last.tool, summary: last.summary, output: last.output, state: last.state } : null,
    approval: view.pendingApproval,
    queued: view.queued,
  };
}

export function updateMessage(
  view: SessionView,
  find: (message: ViewMessage) => boolean,
  update: (message: ViewMessage) => ViewMessage,
): SessionView {
  // Streaming touches the newest messages, so search from the end.
  for (let index = view.messages.length - 1; index >= 0; index -= 1) {
    const message = view.messages[index];
    if (message && find(message)) {
      const messages = view.messages.slice();
      messages[index] = update(message);
      return { ...view, messages };
    }
  }
  return view;
}

/** The tool of a call of the view, by its id; "a tool" when the call is not on the line shown. */
export function toolOf(view: SessionView, toolCallId: string): string {
  for (let index = view.messages.length - 1; index >= 0; index -= 1) {
    const call = view.messages[index]?.toolCalls.find((candidate) => candidate.id === toolCallId);
    if (call) return call.tool;
  }
  return 'a tool';
}

export function updateToolCall(view: SessionView, toolCallId: string, update: (call: ViewToolCall) => ViewToolCall): SessionView {
  return updateMessage(
    view,
    (message) => message.toolCalls.some((call) => call.id === toolCallId),
    (message) => ({ ...message, toolCalls: message.toolCalls.map((call) => (call.id === toolCallId ? update(call) : call)) }),
  );
}

const openToolStates: ReadonlySet<ViewToolCallState> = new Set(['requested', 'waiting', 'running']);

export function endTurn(view: SessionView, turnId: string | null, messageState: MessageState): SessionView {
  const callState = messageState === 'interrupted' ? ('interrupted' as const) : ('cancelled' as const);
  // A turn's messages are the newest ones of its line: only they are looked at, not the whole session.
  let from = 0;
  if (turnId !== null) {
    from = view.messages.length;
    while (from > 0 && view.messages[from - 1]?.turnId === turnId) from -= 1;
  }
  const ended = view.messages.slice(from).map((message) => {
    if (turnId !== null && message.turnId !== turnId) return message;
    const toolCalls = message.toolCalls.some((call) => openToolStates.has(call.state))
      ? message.toolCalls.map((call) => (openToolStates.has(call.state) ? { ...call, state: callState } : call))
      : message.toolCalls;
    if (message.state === 'streaming') return { ...message, state: messageState, toolCalls };
    return toolCalls === message.toolCalls ? message : { ...message, toolCalls };
  });
  const messages = from === 0 ? ended : [...view.messages.slice(0, from), ...ended];
  const plan =
    view.plan && (view.plan.state === 'waiting' || view.plan.state === 'running')
      ? { ...view.plan, state: 'finished' as const }
      : view.plan;
  return { ...view, messages, activeTurnId: null, retry: null, pendingApproval: null, pendingReviews: [], pendingBudget: null, plan };
}
