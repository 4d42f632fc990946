/*
 * The inbox of the status bar: every session waiting for an answer, with a badge, one click from each.
 */

import { useState } from 'react';
import { useAppState, type AppStore } from '../store';

/** Every session waiting for an answer, whichever is shown: a badge, and the list one click away. */
export function Inbox({ store }: { store: AppStore }) {
  // A selector must return the same value for the same state: pick the sessions list, then filter.
  const sessions = useAppState(store, (state) => state.sessions);
  const waiting = sessions.filter((session) => session.status === 'waiting_approval');
  const [open, setOpen] = useState(false);
  return (
    <div className="inbox">
      <button
        type="button"
        aria-label={`Approvals waiting: ${waiting.length}`}
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        className={waiting.length > 0 ? 'inbox-button pending' : 'inbox-button'}
      >
        Inbox{waiting.length > 0 && <span className="inbox-badge">{waiting.length}</span>}
      </button>
      {open && (
        <ul className="inbox-list" aria-label="Waiting for you">
          {waiting.length === 0 && <li className="muted small">Nothing is waiting for you.</li>}
          {waiting.map((session) => (
            <li key={session.id}>
              <button
                type="button"
                className="link"
                onClick={() => {
                  setOpen(false);
                  void store.select(session.id);
                }}
              >
                {session.title}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
