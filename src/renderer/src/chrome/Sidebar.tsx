/*
 * The sessions list on the left: sessions grouped under their workspace folder, each group foldable, a search box that
 * narrows them by title or folder; each session with its state, to open, rename or archive; buttons for a new session
 * and an import.
 */

import { useEffect, useMemo, useRef, useState } from 'react';
import type { Session } from '../../../shared/domain';
import { useAppState, type AppStore } from '../store';
import { groupSessions, type SessionGroup } from './session-groups';
import { statusLabel } from './status';
import { archiveSession, WorktreeDelete } from './WorktreeDelete';
import type { Worktree } from '../../../shared/git';

function SessionItem({ store, session, selected }: { store: AppStore; session: Session; selected: boolean }) {
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(session.title);
  const [deleting, setDeleting] = useState<{ worktree: Worktree; unmerged: boolean } | null>(null);
  const item = useRef<HTMLLIElement>(null);
  // The selected session is always in sight: selected by a key, or shown again by the search, the list scrolls to it.
  useEffect(() => {
    if (selected) item.current?.scrollIntoView({ block: 'nearest' });
  }, [selected]);
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
    <li ref={item} className={selected ? 'session selected' : 'session'}>
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
            // It is archived, not removed, so it is undone from Settings rather than confirmed first; only a worktree of
            // its own asks first, since that folder would go for good.
            void store.attempt(async () => {
              const found = await store.call('git:worktree', { sessionId: session.id }).catch(() => null);
              if (found?.worktree && !found.removed) setDeleting({ worktree: found.worktree, unmerged: found.unmerged });
              else await archiveSession(store, session);
            });
          }}
        >
          ✕
        </button>
      </div>
      {deleting && (
        <WorktreeDelete
          store={store}
          session={session}
          worktree={deleting.worktree}
          unmerged={deleting.unmerged}
          onCancel={() => setDeleting(null)}
        />
      )}
    </li>
  );
}

/** One group: its folder's name as a button that folds it, with the count of its sessions, and its sessions. */
function GroupItem({
  store,
  group,
  selectedId,
  searching,
}: {
  store: AppStore;
  group: SessionGroup;
  selectedId: string | null;
  searching: boolean;
}) {
  const folded = useAppState(store, (state) => state.sessionList.folded);
  const listId = `session-group-${group.key === '' ? 'none' : encodeURIComponent(group.key)}`;
  return (
    <div className="session-group" role="group" aria-labelledby={`${listId}-name`}>
      <button
        type="button"
        className="session-group-toggle"
        aria-expanded={!group.folded}
        aria-controls={listId}
        title={group.path ?? 'Sessions without a workspace folder'}
        disabled={searching}
        onClick={() => store.setSessionList({ folded: group.folded ? folded.filter((key) => key !== group.key) : [...folded, group.key] })}
      >
        <span className="session-group-chevron" aria-hidden="true">
          {group.folded ? '▸' : '▾'}
        </span>
        <span id={`${listId}-name`} className="session-group-name">
          {group.name}
        </span>
        <span className="badge session-group-count">
          {group.matching}
          <span className="visually-hidden"> session{group.matching === 1 ? '' : 's'}</span>
        </span>
      </button>
      {group.sessions.length > 0 && (
        <ul className="sessions" id={listId} aria-label={`Sessions in ${group.name}`}>
          {group.sessions.map((session) => (
            <SessionItem key={session.id} store={store} session={session} selected={session.id === selectedId} />
          ))}
        </ul>
      )}
    </div>
  );
}

/** The search box of the list: narrows it by title or folder as it is typed; Esc empties it. */
function SessionSearch({ store }: { store: AppStore }) {
  const query = useAppState(store, (state) => state.sessionList.query);
  const input = useRef<HTMLInputElement>(null);
  // The store holds the search for the window's keys too; the box keeps its own text so typing never waits for a frame.
  useEffect(() => {
    if (input.current && input.current.value !== query) input.current.value = query;
  }, [query]);
  return (
    <input
      ref={input}
      type="search"
      className="session-search"
      aria-label="Search sessions"
      placeholder="Search sessions"
      defaultValue={query}
      maxLength={200}
      onChange={(event) => store.setSessionList({ query: event.target.value })}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && event.currentTarget.value !== '') {
          event.preventDefault();
          event.currentTarget.value = '';
          store.setSessionList({ query: '' });
        }
      }}
    />
  );
}

/**
 * The sessions, grouped under their workspace folder's name, each with its state, to open, rename or archive; a search
 * box that narrows them; a new session and an imported one at the top.
 */
export function Sidebar({ store }: { store: AppStore }) {
  const sessions = useAppState(store, (state) => state.sessions);
  const selectedId = useAppState(store, (state) => state.selectedId);
  const view = useAppState(store, (state) => state.sessionList);
  const groups = useMemo(() => groupSessions(sessions, selectedId, view), [sessions, selectedId, view]);
  const searching = view.query.trim() !== '';
  const found = groups.reduce((count, group) => count + group.matching, 0);
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
      {sessions.length > 0 && <SessionSearch store={store} />}
      {groups.map((group) => (
        <GroupItem key={group.key} store={store} group={group} selectedId={selectedId} searching={searching} />
      ))}
      {sessions.length === 0 && <p className="muted small">No sessions yet.</p>}
      {sessions.length > 0 && searching && found === 0 && (
        <p className="muted small" role="status">
          No session matches “{view.query.trim()}”.
        </p>
      )}
    </nav>
  );
}
