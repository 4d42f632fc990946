/*
 * The inbox of the status bar: every session waiting for an answer, with a badge, one click from each.
 */

import { useRef, useState, type RefObject } from 'react';
import type { Session } from '../../../shared/domain';
import { usePopover } from '../chrome/top-layer';
import { GateCountdown } from '../gates/GateCountdown';
import { useAppState, type AppStore } from '../store';

/** Every session waiting for an answer, whichever is shown: a badge, and the list one click away. */
export function Inbox({ store }: { store: AppStore }) {
  // A selector must return the same value for the same state: pick the sessions list, then filter.
  const sessions = useAppState(store, (state) => state.sessions);
  const waiting = sessions.filter((session) => session.status === 'waiting_approval');
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  return (
    <div className="inbox">
      <button
        ref={button}
        type="button"
        // What is drawn ("Inbox 2"), then what it means: "Inbox 2 waiting".
        aria-label={`Inbox ${waiting.length} waiting`}
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        className={waiting.length > 0 ? 'inbox-button pending' : 'inbox-button'}
      >
        Inbox
        {waiting.length > 0 && ' '}
        {waiting.length > 0 && (
          <span className="inbox-badge" aria-hidden="true">
            {waiting.length}
          </span>
        )}
      </button>
      {open && (
        <InboxList
          store={store}
          anchor={button}
          waiting={waiting}
          sessions={sessions}
          onClose={() => setOpen(false)}
          onSelect={(id) => {
            setOpen(false);
            void store.select(id);
          }}
        />
      )}
    </div>
  );
}

/** The sessions waiting, on the top layer under the Inbox button. */
function InboxList({
  store,
  anchor,
  waiting,
  sessions,
  onClose,
  onSelect,
}: {
  store: AppStore;
  anchor: RefObject<HTMLElement | null>;
  waiting: readonly Session[];
  sessions: readonly Session[];
  onClose: () => void;
  onSelect: (sessionId: string) => void;
}) {
  const popover = usePopover<HTMLUListElement>(anchor, onClose);
  // The time left at each gate with a limit, for the sessions whose view is loaded in this window.
  const deadlines = useAppState(store, (state) => state.views);
  // A sub-agent that asks is named with the session it works for.
  const titles = new Map(sessions.map((session) => [session.id, session.title]));
  return (
    <ul ref={popover} popover="auto" className="inbox-list top-popover" aria-label="Waiting for you">
      {waiting.length === 0 && <li className="muted small">Nothing is waiting for you.</li>}
      {waiting.map((session) => (
        <li key={session.id}>
          <button type="button" className="link" onClick={() => onSelect(session.id)}>
            {session.title}
          </button>
          {session.subAgent && (
            <span className="muted small"> for {titles.get(session.subAgent.parentSessionId) ?? 'another session'}</span>
          )}{' '}
          {deadlines[session.id]?.pendingApproval ? (
            <GateCountdown deadline={deadlines[session.id]?.pendingApproval?.deadline ?? null} compact />
          ) : (
            <GateCountdown
              deadline={deadlines[session.id]?.plan?.state === 'waiting' ? (deadlines[session.id]?.plan?.deadline ?? null) : null}
              compact
              plan
            />
          )}
        </li>
      ))}
    </ul>
  );
}
