/*
 * The turns' part of the session view's fold: a turn started, finished or cut short, the session's status, branches,
 * the queued message, an import, and changes of autonomy.
 */

import { BugError } from '../errors';
import type { RuntimeEvent } from '../events';
import type { EntryPlace } from './entry-place';
import { warningsKept } from './model-context';
import { turnChecked, turnEnded, turnInterrupted, turnStarted } from './turn-figures';
import type { MessageState, SessionView } from './types';
import { endTurn, interruption } from './updates';

export type TurnEvent = Extract<
  RuntimeEvent,
  {
    type:
      | 'run_started'
      | 'run_finished'
      | 'status_changed'
      | 'branch_started'
      | 'message_queued'
      | 'queue_cleared'
      | 'memories_recalled'
      | 'check_ran'
      | 'session_imported'
      | 'autonomy_changed';
  }
>;

/** A turn's end: its open parts closed, and its error shown on its last response, or on a message of its own. */
function finishTurn(view: SessionView, event: Extract<TurnEvent, { type: 'run_finished' }>, seq: number): SessionView {
  const finalState: MessageState = event.status === 'cancelled' ? 'cancelled' : event.status === 'failed' ? 'failed' : 'done';
  const ended = { ...endTurn(view, event.turnId, finalState), interrupted: null };
  if (!event.error) return ended;
  const messages = ended.messages.slice();
  const lastOfTurn = messages.findLastIndex((message) => message.turnId === event.turnId);
  const last = messages[lastOfTurn];
  if (last?.role === 'assistant' && last.toolCalls.length === 0) messages[lastOfTurn] = { ...last, state: finalState, error: event.error };
  else
    messages.push({
      id: `${event.turnId}-error`,
      seq,
      turnId: event.turnId,
      role: 'assistant',
      text: '',
      reasoning: '',
      state: finalState,
      toolCalls: [],
      error: event.error,
    });
  return { ...ended, messages };
}

/** The view after one event of a turn or of the session's state. */
export function applyTurnEvent(view: SessionView, event: TurnEvent, { seq, at }: EntryPlace): SessionView {
  switch (event.type) {
    case 'run_started':
      return turnStarted({ ...view, activeTurnId: event.turnId, retry: null, interrupted: null }, event.turnId, at);
    case 'run_finished':
      return turnEnded(finishTurn(view, event, seq), event.turnId, event.status, at);
    case 'status_changed':
      // The app stopped while this turn ran; what streamed so far stays, marked as cut short.
      if (event.status === 'interrupted') {
        const interrupted = interruption(view);
        const ended = view.activeTurnId === null ? view : turnInterrupted(view, view.activeTurnId);
        return { ...endTurn(ended, null, 'interrupted'), status: event.status, interrupted, pendingApproval: null };
      }
      return { ...view, status: event.status };
    case 'branch_started': {
      // A branch may begin in the middle of a turn: what was open there is closed, and nothing waits.
      const ended = endTurn(view, null, 'done');
      return { ...ended, status: 'idle', plan: null, queued: null, interrupted: null };
    }
    case 'message_queued':
      return { ...view, queued: event.text };
    case 'queue_cleared':
      return { ...view, queued: null };
    case 'check_ran':
      return turnChecked(view, event);
    case 'memories_recalled': {
      // Shown with the person's message they were recalled for: the turn's own, its latest.
      const at = view.messages.findLastIndex((message) => message.role === 'user' && message.turnId === event.turnId);
      const message = view.messages[at];
      if (!message) return view;
      const messages = [...view.messages];
      messages[at] = {
        ...message,
        memories: event.memories.map((memory) => memory.text),
        ...(event.codeMap ? { codeMap: event.codeMap } : {}),
      };
      return { ...view, messages };
    }
    case 'session_imported':
      // A gate or plan the file left open is not answered here: resuming decides its calls again.
      return {
        ...view,
        pendingApproval: null,
        plan: view.plan?.state === 'waiting' ? null : view.plan,
        warnings: [...view.warnings, event.message].slice(-warningsKept),
      };
    case 'autonomy_changed':
      // The audit view lists it; the status bar shows the session's autonomy from its row.
      return view;
    default: {
      const unhandled: never = event;
      throw new BugError(`The turns' fold has no case for ${JSON.stringify(unhandled)}.`);
    }
  }
}
