/*
 * Sub-agents in the conversation: the line under a delegate call that says how its sub-agent stands and opens its
 * session, and the bar over a sub-agent's session that says whom it works for and leads back.
 */

import { useEffect, useState } from 'react';
import type { Session, SessionStatus } from '../../../shared/domain';
import type { SessionView } from '../../../shared/session-view';
import { MessageBody } from '../conversation/MessageBody';
import { useAppState, type AppStore } from '../store';
import { ToolCard } from '../tool-calls/ToolCard';
import { subAgentName } from './sub-agent-name';

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

const endedStatuses: ReadonlySet<SessionStatus> = new Set(['completed', 'completed_with_errors', 'failed', 'cancelled']);

const seconds = (ms: number): string => (ms < 1_000 ? `${Math.max(0, Math.round(ms))} ms` : `${(ms / 1_000).toFixed(1)} s`);

/** What a sub-agent's session shows it doing last: its latest call, or the last line of what it is writing. */
function latestActivity(view: SessionView | undefined): string | null {
  const last = view?.messages.at(-1);
  if (!last || last.role !== 'assistant') return null;
  const call = last.toolCalls.at(-1);
  if (call) return `${call.tool} ${call.summary}`.slice(0, 160);
  const line = last.text.trim().split('\n').at(-1)?.trim() ?? '';
  return line === '' ? null : line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

/** The sub-agent a call started (for one step of a plan, `stepId`), as the app knows it now. */
function useSubAgentOf(store: AppStore, sessionId: string, toolCallId: string, stepId?: string): Session | null {
  return useAppState(
    store,
    (state) =>
      state.sessions.find(
        (session) =>
          session.subAgent?.parentSessionId === sessionId &&
          session.subAgent.toolCallId === toolCallId &&
          session.subAgent.stepId === stepId,
      ) ?? null,
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
  stepId,
}: {
  store: AppStore;
  sessionId: string;
  toolCallId: string;
  running: boolean;
  /** One step of a plan the call runs. */
  stepId?: string;
}) {
  const child = useSubAgentOf(store, sessionId, toolCallId, stepId);
  const known = child !== null;
  const childId = child?.id ?? null;
  useEffect(() => {
    if (known) return;
    void store.attempt(async () => {
      for (const session of await store.call('session:subAgents', { sessionId })) store.upsertSession(session);
    });
  }, [store, sessionId, known, running]);
  // While it works, its session is read so its events arrive live: the card says what it is doing now.
  useEffect(() => {
    if (childId !== null && running && !store.getState().views[childId]) void store.reload(childId);
  }, [store, childId, running]);
  const live = useAppState(store, (state) => (childId !== null && running ? state.views[childId] : undefined));
  const doing = latestActivity(live);
  // Once it has ended: how long it took and the tokens it used, its own sub-agents' included.
  const ended = child !== null && endedStatuses.has(child.status);
  const [tokens, setTokens] = useState<number | null>(null);
  useEffect(() => {
    if (!ended || childId === null) return;
    void store.attempt(async () => {
      const totals = await store.call('session:stats', { sessionId: childId });
      setTokens(totals.inputTokens + totals.outputTokens);
    });
  }, [store, childId, ended]);
  if (!child) return null;
  const waiting = child.status === 'waiting_approval';
  return (
    <div className={waiting ? 'sub-agent-link waiting small' : 'sub-agent-link small'} role="group" aria-label="Sub-agent">
      <span>
        {subAgentName(child.title)}: {statusWords[child.status]}
        {child.subAgent?.tools === 'read_write' ? ' · may change files' : ' · reads only'}
        {ended && ` · ${seconds(child.updatedAt - child.createdAt)}`}
        {ended && tokens !== null && ` · ${tokens.toLocaleString('en-US')} tokens`}
      </span>
      <button type="button" className="link" onClick={() => void store.select(child.id)}>
        {waiting ? 'Answer it' : 'Open its session'}
      </button>
      {live && !endedStatuses.has(child.status) && <LiveWork view={live} doing={doing} />}
    </div>
  );
}

/** How many of its latest answers, and calls of each, a sub-agent's card shows as they stream. */
const liveAnswers = 2;
const liveCalls = 4;

/** A working sub-agent's latest answers and calls, streaming as its own session shows them; folds away. */
function LiveWork({ view, doing }: { view: SessionView; doing: string | null }) {
  const recent = view.messages.filter((message) => message.role === 'assistant').slice(-liveAnswers);
  if (recent.length === 0) return null;
  return (
    <details className="sub-agent-live" open>
      <summary className="small muted">
        Its work, live
        {doing && (
          <>
            {': '}
            <span className="sub-agent-doing" aria-label="What it is doing">
              {doing}
            </span>
          </>
        )}
      </summary>
      <div role="log" aria-label="Its work, live">
        {recent.map((message) => (
          <div key={message.id} className="sub-agent-live-message">
            {message.text.trim() !== '' && <MessageBody text={message.text} streaming={message.state === 'streaming'} />}
            {message.toolCalls.slice(-liveCalls).map((call) => (
              <ToolCard key={call.id} call={call} />
            ))}
          </div>
        ))}
      </div>
    </details>
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
