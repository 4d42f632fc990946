/*
 * A sub-agent's answer, as its conversation holds it: the last one it gave, and the result its parent's call gets,
 * cut to its bound, or saying why it failed.
 */
import { NotFoundError } from '../../../shared/errors';
import { isMessage } from '../context/context-view';
import type { ConversationStore } from '../history/conversation-store';
import type { SessionJournal } from '../history/session-journal';
import type { SessionStore } from '../ports/stores';
import type { ToolOutcome } from '../ports/tools';

/** Where a sub-agent's answer is read: its session, where its journal stands, and its conversation. */
export interface AnswerSources {
  readonly store: SessionStore;
  readonly journal: SessionJournal;
  readonly conversations: ConversationStore;
}

/** The sub-agent's last answer, as its conversation holds it. */
export function lastAnswer({ conversations, journal }: Pick<AnswerSources, 'conversations' | 'journal'>, childId: string): string | null {
  const history = conversations.at(childId, journal.head(childId).checkpointId).history.filter(isMessage);
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history[index];
    if (message?.role === 'user') return null;
    if (message?.role === 'assistant' && message.content.trim() !== '' && !message.toolCalls?.length) return message.content.trim();
  }
  return null;
}

/** The call's result: the sub-agent's answer, cut to its bound with a note; a failure says why, with what it had. */
export function answerOf(sources: AnswerSources, childId: string): ToolOutcome {
  const { store, journal } = sources;
  const session = store.get(childId);
  if (!session?.subAgent) throw new NotFoundError('Session', childId);
  const limit = session.subAgent.answerChars;
  const answer = lastAnswer(sources, childId);
  const bounded =
    answer === null
      ? null
      : answer.length <= limit
        ? answer
        : `${answer.slice(0, limit)}\n[… the answer was cut at ${limit} of ${answer.length} characters; the whole of it is in the sub-agent's session …]`;
  if (session.status === 'completed' || session.status === 'completed_with_errors')
    return { output: bounded ?? 'The sub-agent finished without an answer.' };
  const ended = store.nearest(childId, 'before', journal.head(childId).lastSeq + 1, ['run_finished'])?.event;
  const why =
    ended?.type === 'run_finished' && ended.error
      ? ended.error.message
      : session.status === 'cancelled'
        ? 'it was stopped before it answered'
        : `it ended ${session.status.replace('_', ' ')}`;
  return { output: `The sub-agent failed: ${why}${bounded ? `\nWhat it had answered:\n${bounded}` : ''}`, isError: true };
}
