/*
 * Sub-agents in the conversation: the line under a delegate call that says how its sub-agent stands and opens its
 * session, and the bar over a sub-agent's session that says whom it works for and leads back.
 */

import { useEffect } from 'react';
import type { Session, SessionStatus } from '../../../shared/domain';
import { useAppState, type AppStore } from '../store';

const statusWords: Readonly<Record<SessionStatus, string>> = {
  idle: 'about to start',
  planning: 'working',
  executing: 'working',
  waiting_approval: 'waiting for your answer',
  completed: 'answered',
  completed_with_errors: 'answered (some of its calls failed)',
  failed: 'failed',
  cancelled: 'stopped',
  interrupted: 'interrupted',
};

/** The sub-agent a call started, as the app knows it now. */
function useSubAgentOf(store: AppStore, sessionId: string, toolCallId: string): Session | null {
  return useAppState(
    store,
    (state) =>
      state.sessions.find((session) => session.subAgent?.parentSessionId === sessionId && session.subAgent.toolCallId === toolCallId) ??
      null,
  );
}

/**
 * Under a `delegate` call: its sub-agent's state, and a way into its session (its whole transcript, and its gates).
 * Sub-agents are not in the sessions list, so they are asked for when the call is shown and not known yet.
 */
export function SubAgentLink({
  store,
  sessionId,
  toolCallId,
  running,
}: {
  store: AppStore;
  sessionId: string;
  toolCallId: string;
  running: boolean;
}) {
  const child = useSubAgentOf(store, sessionId, toolCallId);
  const known = child !== null;
  useEffect(() => {
    if (known) return;
    void store.attempt(async () => {
      for (const session of await store.call('session:subAgents', { sessionId })) store.upsertSession(session);
    });
  }, [store, sessionId, known, running]);
  if (!child) return null;
  const waiting = child.status === 'waiting_approval';
  return (
    <div className={waiting ? 'sub-agent-link waiting small' : 'sub-agent-link small'} role="group" aria-label="Sub-agent">
      <span>
        {child.title.replace(/^Sub-agent: /, 'Sub-agent “')}
        {child.title.startsWith('Sub-agent: ') ? '”' : ''}: {statusWords[child.status]}
        {child.subAgent?.tools === 'read_write' ? ' · may change files' : ' · reads only'}
      </span>
      <button type="button" className="link" onClick={() => void store.select(child.id)}>
        {waiting ? 'Answer it' : 'Open its session'}
      </button>
    </div>
  );
}

/** Over a sub-agent's session: whom it works for, that its answer goes back there, and the way back. */
export function SubAgentBar({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const link = useAppState(store, (state) => state.sessions.find((session) => session.id === sessionId)?.subAgent ?? null);
  const parent = useAppState(store, (state) =>
    link ? (state.sessions.find((session) => session.id === link.parentSessionId) ?? null) : null,
  );
  if (!link) return null;
  return (
    <div className="notice notice-info sub-agent-bar" role="note" aria-label="Sub-agent session">
      <span>
        A sub-agent working for {parent ? `“${parent.title}”` : 'another session'}: its last answer goes back there as the result of its
        delegate call. It {link.tools === 'read_write' ? 'may change files, asking as the rules say' : 'reads only'}, with at most{' '}
        {link.modelCalls} model calls.
      </span>
      <button type="button" onClick={() => void store.select(link.parentSessionId)}>
        Back to {parent ? parent.title : 'its session'}
      </button>
    </div>
  );
}
