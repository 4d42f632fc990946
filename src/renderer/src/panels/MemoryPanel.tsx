/*
 * The Memory tab: the memories the agent may be given, of this workspace and of every workspace, to search, add, edit
 * and delete.
 */

import { useEffect, useState } from 'react';
import { maxMemoryChars, type Memory, type MemoryScope } from '../../../shared/prompt';
import { errorMessage } from '../client';
import { useAppState, type AppStore } from '../store';

const day = (at: number): string => new Date(at).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

const originOf = (memory: Memory): string =>
  memory.source === 'agent' ? `Saved by the agent, ${day(memory.updatedAt)}` : `Added by you, ${day(memory.updatedAt)}`;

function MemoryRow({ memory, onEdit, onDelete }: { memory: Memory; onEdit: (text: string) => Promise<boolean>; onDelete: () => void }) {
  const [editing, setEditing] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  return (
    <li className="memory-row" data-scope={memory.scope}>
      {editing === null ? (
        <p className="memory-text">{memory.text}</p>
      ) : (
        <textarea
          aria-label="Memory text"
          value={editing}
          maxLength={maxMemoryChars}
          rows={3}
          autoFocus
          onChange={(event) => setEditing(event.target.value)}
        />
      )}
      <div className="row small">
        <span className="badge">{memory.scope === 'global' ? 'Every workspace' : 'This workspace'}</span>
        <span className="muted">{originOf(memory)}</span>
        <span className="spacer" />
        {editing === null ? (
          <>
            <button type="button" className="link small" onClick={() => setEditing(memory.text)}>
              Edit
            </button>
            {confirming ? (
              <>
                <button type="button" className="link small danger" onClick={onDelete}>
                  Delete it
                </button>
                <button type="button" className="link small" onClick={() => setConfirming(false)}>
                  Keep
                </button>
              </>
            ) : (
              <button
                type="button"
                className="link small"
                aria-label={`Delete memory: ${memory.text.slice(0, 60)}`}
                onClick={() => setConfirming(true)}
              >
                Delete
              </button>
            )}
          </>
        ) : (
          <>
            <button type="button" className="link small" onClick={() => void onEdit(editing).then((saved) => saved && setEditing(null))}>
              Save
            </button>
            <button type="button" className="link small" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </>
        )}
      </div>
    </li>
  );
}

/**
 * The memories the agent may be given: this workspace's and the global ones, searchable, each with where it came from.
 * The person adds, edits and deletes them here; the agent adds them with `remember`. They stay on this computer.
 */
export function MemoryContent({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const workspacePath = useAppState(store, (state) => state.sessions.find((session) => session.id === sessionId)?.workspacePath ?? null);
  const status = useAppState(store, (state) => state.views[sessionId]?.status ?? 'idle');
  const busy = status === 'planning' || status === 'executing' || status === 'waiting_approval';
  const [search, setSearch] = useState('');
  const [memories, setMemories] = useState<Memory[] | null>(null);
  const [text, setText] = useState('');
  const [scope, setScope] = useState<MemoryScope>(workspacePath ? 'workspace' : 'global');
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);

  // Looked at again when a turn ends (the agent may have remembered something), and after every change made here.
  useEffect(() => {
    if (busy) return;
    let live = true;
    store.call('memory:list', { workspacePath, ...(search.trim() ? { search } : {}) }).then(
      (found) => live && setMemories(found),
      (failure: unknown) => live && setError(errorMessage(failure)),
    );
    return () => {
      live = false;
    };
  }, [store, workspacePath, search, busy, version]);

  const act = async (work: () => Promise<unknown>): Promise<boolean> => {
    try {
      await work();
      setError(null);
      setVersion((value) => value + 1);
      return true;
    } catch (failure) {
      setError(errorMessage(failure));
      return false;
    }
  };
  const add = (): void =>
    void act(() => store.call('memory:add', { scope: workspacePath ? scope : 'global', workspacePath, text })).then(
      (saved) => saved && setText(''),
    );

  return (
    <div className="memory-panel">
      <p className="muted small">
        Facts given to the agent when they relate to a request: yours, and those it saved with <code>remember</code>. They never leave this
        computer.
      </p>
      <form
        className="memory-add"
        onSubmit={(event) => {
          event.preventDefault();
          add();
        }}
      >
        <textarea
          aria-label="New memory"
          placeholder="A fact to remember, such as “Run the tests with pnpm test”"
          value={text}
          maxLength={maxMemoryChars}
          rows={2}
          onChange={(event) => setText(event.target.value)}
        />
        <div className="row small">
          <label>
            For{' '}
            <select
              aria-label="Memory scope"
              value={workspacePath ? scope : 'global'}
              disabled={!workspacePath}
              onChange={(event) => setScope(event.target.value as MemoryScope)}
            >
              <option value="workspace">this workspace</option>
              <option value="global">every workspace</option>
            </select>
          </label>
          <span className="spacer" />
          <button type="submit" disabled={text.trim() === ''}>
            Remember
          </button>
        </div>
      </form>
      {error && (
        <p role="alert" className="message-error small">
          {error}
        </p>
      )}
      <input
        type="search"
        aria-label="Search memories"
        placeholder="Search memories"
        value={search}
        onChange={(event) => setSearch(event.target.value)}
      />
      {memories === null ? (
        <p className="muted small">Loading…</p>
      ) : memories.length === 0 ? (
        <p className="muted small">{search.trim() ? 'No memory matches.' : 'Nothing remembered yet.'}</p>
      ) : (
        <ul className="memory-list" aria-label="Memories">
          {memories.map((memory) => (
            <MemoryRow
              key={memory.id}
              memory={memory}
              onEdit={(next) => act(() => store.call('memory:update', { id: memory.id, text: next }))}
              onDelete={() => void act(() => store.call('memory:delete', { id: memory.id }))}
            />
          ))}
        </ul>
      )}
    </div>
  );
}
