/*
 * The sessions list on the left: each session with its state, to open, rename or archive, and buttons for a new
 * session and an import.
 */

import { useState } from 'react';
import type { Session } from '../../../shared/domain';
import { useAppState, type AppStore } from '../store';
import { statusLabel } from './status';

function SessionItem({ store, session, selected }: { store: AppStore; session: Session; selected: boolean }) {
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(session.title);
  const save = async (): Promise<void> => {
    setEditing(false);
    if (title.trim() === '' || title === session.title) {
      setTitle(session.title);
      return;
    }
    const renamed = await store.attempt(() => store.call('session:rename', { sessionId: session.id, title }));
    if (renamed) store.upsertSession(renamed);
    else setTitle(session.title);
  };
  return (
    <li className={selected ? 'session selected' : 'session'}>
      {editing ? (
        <input
          aria-label="Session title"
          value={title}
          autoFocus
          maxLength={200}
          onChange={(event) => setTitle(event.target.value)}
          onBlur={() => void save()}
          onKeyDown={(event) => {
            if (event.key === 'Enter') void save();
            if (event.key === 'Escape') {
              setTitle(session.title);
              setEditing(false);
            }
          }}
        />
      ) : (
        <button
          type="button"
          className="session-open"
          aria-current={selected ? 'true' : undefined}
          onClick={() => void store.select(session.id)}
          onDoubleClick={() => setEditing(true)}
        >
          <span className="session-title">{session.title}</span>
          <span className={`badge status-${session.status}`}>{statusLabel(session.status)}</span>
        </button>
      )}
      <div className="session-actions">
        <button type="button" className="icon" aria-label={`Rename ${session.title}`} title="Rename" onClick={() => setEditing(true)}>
          ✎
        </button>
        <button
          type="button"
          className="icon"
          aria-label={`Delete ${session.title}`}
          title="Delete (it can be restored from Settings › Archived sessions until it is purged)"
          onClick={() => {
            // It is archived, not removed, so it is undone from Settings rather than confirmed first.
            void store.attempt(async () => {
              const archived = await store.call('session:delete', { sessionId: session.id });
              const until = archived.purgeAt === null ? '' : ` until ${new Date(archived.purgeAt).toLocaleDateString()}`;
              store.notify({
                kind: 'info',
                text: `“${session.title}” was archived: restore it from Settings › Archived sessions${until}.`,
              });
            });
          }}
        >
          ✕
        </button>
      </div>
    </li>
  );
}

/** The sessions, each with its state, to open, rename or archive; a new session and an imported one at the top. */
export function Sidebar({ store }: { store: AppStore }) {
  const sessions = useAppState(store, (state) => state.sessions);
  const selectedId = useAppState(store, (state) => state.selectedId);
  return (
    <nav className="sidebar" aria-label="Sessions">
      <button type="button" className="primary wide" onClick={() => void store.createSession()}>
        + New session
      </button>
      <label className="import-session link small">
        Import a session…
        <input
          type="file"
          accept=".json,application/json"
          aria-label="Import a session"
          hidden
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = '';
            if (!file) return;
            void store.attempt(async () => {
              const session = await store.call('session:import', { document: await file.text() });
              store.upsertSession(session);
              await store.select(session.id);
            });
          }}
        />
      </label>
      <ul className="sessions">
        {sessions.map((session) => (
          <SessionItem key={session.id} store={store} session={session} selected={session.id === selectedId} />
        ))}
      </ul>
      {sessions.length === 0 && <p className="muted small">No sessions yet.</p>}
    </nav>
  );
}
