import type { ErrorInfo } from './errors';
import type { SessionStatus } from './domain';
import type { JournalEntry, RuntimeEvent } from './events';

export type MessageState = 'streaming' | 'done' | 'cancelled' | 'failed' | 'interrupted';

export interface ViewMessage {
  readonly id: string;
  readonly turnId: string;
  readonly role: 'user' | 'assistant';
  readonly text: string;
  readonly reasoning: string;
  readonly state: MessageState;
  readonly error?: ErrorInfo;
}

/** What a session looks like to the person: the fold of its journal. */
export interface SessionView {
  readonly status: SessionStatus;
  readonly messages: readonly ViewMessage[];
  readonly lastSeq: number;
  readonly activeTurnId: string | null;
  readonly retry: { readonly attempt: number; readonly delayMs: number; readonly error: ErrorInfo } | null;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly modelMs: number };
}

export const emptySessionView: SessionView = {
  status: 'idle',
  messages: [],
  lastSeq: -1,
  activeTurnId: null,
  retry: null,
  usage: { inputTokens: 0, outputTokens: 0, modelMs: 0 },
};

function updateMessage(view: SessionView, messageId: string, update: (message: ViewMessage) => ViewMessage): SessionView {
  // Streaming touches the newest message, so search from the end.
  for (let index = view.messages.length - 1; index >= 0; index -= 1) {
    const message = view.messages[index];
    if (message?.id === messageId) {
      const messages = view.messages.slice();
      messages[index] = update(message);
      return { ...view, messages };
    }
  }
  return view;
}

function applyEvent(view: SessionView, event: RuntimeEvent): SessionView {
  switch (event.type) {
    case 'user_message':
      return {
        ...view,
        messages: [...view.messages, { id: event.messageId, turnId: event.turnId, role: 'user', text: event.text, reasoning: '', state: 'done' }],
      };
    case 'run_started':
      return { ...view, activeTurnId: event.turnId, retry: null };
    case 'status_changed':
      if (event.status === 'interrupted') {
        // The app stopped while this turn ran; what streamed so far stays, marked as cut short.
        const messages = view.messages.map((message) => (message.state === 'streaming' ? { ...message, state: 'interrupted' as const } : message));
        return { ...view, messages, status: event.status, activeTurnId: null, retry: null };
      }
      return { ...view, status: event.status };
    case 'assistant_message_started':
      return {
        ...view,
        retry: null,
        messages: [...view.messages, { id: event.messageId, turnId: event.turnId, role: 'assistant', text: '', reasoning: '', state: 'streaming' }],
      };
    case 'text_delta':
      return updateMessage(view, event.messageId, (message) => ({ ...message, text: message.text + event.text }));
    case 'reasoning_delta':
      return updateMessage(view, event.messageId, (message) => ({ ...message, reasoning: message.reasoning + event.text }));
    case 'model_call_finished':
      return {
        ...view,
        usage: {
          inputTokens: view.usage.inputTokens + event.inputTokens,
          outputTokens: view.usage.outputTokens + event.outputTokens,
          modelMs: view.usage.modelMs + event.latencyMs,
        },
      };
    case 'model_retry_scheduled':
      return { ...view, retry: { attempt: event.attempt, delayMs: event.delayMs, error: event.error } };
    case 'run_finished': {
      const finalState: MessageState = event.status === 'cancelled' ? 'cancelled' : event.status === 'failed' ? 'failed' : 'done';
      const messages = view.messages.map((message) =>
        message.turnId === event.turnId && message.state === 'streaming' ? { ...message, state: finalState } : message,
      );
      const lastOfTurn = messages.findLastIndex((message) => message.turnId === event.turnId);
      const last = messages[lastOfTurn];
      if (event.error && last) {
        if (last.role === 'assistant') {
          messages[lastOfTurn] = { ...last, state: finalState, error: event.error };
        } else {
          messages.push({ id: `${event.turnId}-error`, turnId: event.turnId, role: 'assistant', text: '', reasoning: '', state: finalState, error: event.error });
        }
      }
      return { ...view, messages, activeTurnId: null, retry: null };
    }
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

/** Folds journal entries into the view. Entries at or below `lastSeq` are ignored, so replays are idempotent. */
export function reduceSessionView(view: SessionView, entries: readonly JournalEntry[]): SessionView {
  let next = view;
  for (const entry of entries) {
    if (entry.seq <= next.lastSeq) continue;
    next = { ...applyEvent(next, entry.event), lastSeq: entry.seq };
  }
  return next;
}
