/*
 * The Changes tab: the files the agent created, changed or deleted in the session or a turn, with their diffs,
 * reverts that can be undone, and a commit of them.
 */

import { useEffect, useState } from 'react';
import type { ChangeSet, FileDiff } from '../../../shared/changes';
import { firstWords } from './checkpoint-labels';
import { errorMessage } from '../client';
import { useAppState, type AppStore } from '../store';
import { ChangeList } from './ChangeList';
import { CommitDialog } from './CommitDialog';

/** What came of a revert or an undo: said above the list, with Undo after a revert that changed something. */
interface ChangesMessage {
  readonly text: string;
  readonly restoreId: string | null;
  readonly error: boolean;
}

/**
 * Reverting a file, or one part of it, and undoing a revert. `working` holds the buttons while one is under way; what
 * came of it is the message.
 */
function useReverts(store: AppStore, sessionId: string, turnId: string | null) {
  const [working, setWorking] = useState(false);
  const [message, setMessage] = useState<ChangesMessage | null>(null);

  const revert = async (path: string, hunk: number | null): Promise<void> => {
    setWorking(true);
    try {
      const result = await store.call('changes:revert', {
        sessionId,
        path,
        ...(turnId ? { turnId } : {}),
        ...(hunk === null ? {} : { hunks: [hunk] }),
      });
      const what = hunk === null ? path : `part ${hunk + 1} of ${path}`;
      const changed = result.written.length + result.deleted.length > 0;
      const text =
        result.refused.length > 0
          ? `Could not revert ${what}: it cannot be reached safely.`
          : changed
            ? `Reverted ${what}.`
            : `${what} was kept: the folder still holds files, or it is already as it was.`;
      setMessage({ text, restoreId: changed ? result.restoreId : null, error: !changed });
    } catch (error) {
      setMessage({ text: errorMessage(error), restoreId: null, error: true });
    } finally {
      setWorking(false);
    }
  };

  const undo = async (restoreId: string): Promise<void> => {
    setWorking(true);
    try {
      await store.call('checkpoint:undoRestore', { sessionId, restoreId });
      setMessage({ text: 'The revert was undone.', restoreId: null, error: false });
    } catch (error) {
      setMessage({ text: errorMessage(error), restoreId: null, error: true });
    } finally {
      setWorking(false);
    }
  };

  return { working, message, setMessage, revert, undo };
}

/** Which changes are shown (the whole session's or one turn's), and their size. */
function ChangesHead({
  set,
  turnId,
  turnLabel,
  onTurn,
  onCommit,
}: {
  set: ChangeSet | null;
  turnId: string | null;
  turnLabel: (id: string, index: number) => string;
  onTurn: (turnId: string | null) => void;
  /** Opens the commit form; absent while it cannot be used (the agent is working, or nothing is left to commit). */
  onCommit: (() => void) | null;
}) {
  const files = set?.files ?? [];
  const added = files.reduce((sum, file) => sum + (file.added ?? 0), 0);
  const removed = files.reduce((sum, file) => sum + (file.removed ?? 0), 0);
  return (
    <div className="row changes-head">
      <select
        aria-label="Changes of"
        value={turnId ?? ''}
        onChange={(event) => onTurn(event.target.value === '' ? null : event.target.value)}
      >
        <option value="">The whole session</option>
        {(set?.turns ?? []).map((turn, index) => (
          <option key={turn.turnId} value={turn.turnId}>
            {turnLabel(turn.turnId, index)} ({turn.files} {turn.files === 1 ? 'path' : 'paths'})
          </option>
        ))}
      </select>
      {files.length > 0 && (
        <span className="muted small changes-total">
          {files.length} {files.length === 1 ? 'path' : 'paths'} · +{added} −{removed}
        </span>
      )}
      {onCommit && (
        <button type="button" onClick={onCommit}>
          Commit…
        </button>
      )}
    </div>
  );
}

/**
 * What the agent created, changed or deleted, over the session or one turn: each path with its
 * diff, and a revert of a file or of one part of it. A revert is saved first, so it can be undone.
 */
export function ChangesContent({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const view = useAppState(store, (state) => state.views[sessionId]);
  const request = useAppState(store, (state) => (state.changesRequest?.sessionId === sessionId ? state.changesRequest : null));
  const [turnId, setTurnId] = useState<string | null>(null);
  const [set, setSet] = useState<ChangeSet | null>(null);
  const [open, setOpen] = useState<{ path: string; diff: FileDiff | null } | null>(null);
  const { working, message, setMessage, revert, undo } = useReverts(store, sessionId, turnId);
  const [committing, setCommitting] = useState(false);
  // The commit form belongs to the session it was opened for.
  useEffect(() => setCommitting(false), [sessionId]);
  const busy = view ? view.status === 'planning' || view.status === 'executing' || view.status === 'waiting_approval' : true;

  useEffect(() => {
    if (!request) return;
    setTurnId(request.turnId);
    setOpen(null);
    store.requestChanges(null);
  }, [request, store]);

  // Looked at again whenever the files may have changed: a step saved files, a turn ended, a restore or revert was made.
  // While a turn runs, not at every step (comparing hundreds of files costs the main process tens of milliseconds):
  // once when it ends.
  const checkpoints = busy ? -1 : (view?.checkpoints.length ?? 0);
  const restored = view?.lastRestore?.restoreId ?? null;
  const openPath = open?.path ?? null;
  useEffect(() => {
    let live = true;
    store.call('changes:list', turnId === null ? { sessionId } : { sessionId, turnId }).then(
      (next) => {
        if (live) setSet(next);
      },
      (error: unknown) => {
        if (live) setMessage({ text: errorMessage(error), restoreId: null, error: true });
      },
    );
    return () => {
      live = false;
    };
  }, [store, sessionId, turnId, checkpoints, restored, busy]);

  // The open file's diff, again whenever the list was looked at again.
  useEffect(() => {
    if (openPath === null || set === null) return;
    let live = true;
    store.call('changes:diff', { sessionId, path: openPath, ...(turnId ? { turnId } : {}) }).then(
      (diff) => {
        if (live) setOpen((current) => (current?.path === openPath ? { path: openPath, diff } : current));
      },
      // Gone from the list (reverted): closed.
      () => {
        if (live) setOpen(null);
      },
    );
    return () => {
      live = false;
    };
  }, [store, sessionId, turnId, openPath, set]);

  const toggle = (path: string): void => {
    if (openPath === path) return setOpen(null);
    setOpen({ path, diff: null });
  };

  const turnLabel = (id: string, index: number): string => {
    const asked = view?.messages.find((item) => item.turnId === id && item.role === 'user');
    return `Turn ${index + 1}${asked ? `: ${firstWords(asked.text, 40)}` : ''}`;
  };
  const files = set?.files ?? [];
  const locked = working || busy;

  return (
    <section className="changes" aria-label="File changes">
      <ChangesHead
        set={set}
        turnId={turnId}
        turnLabel={turnLabel}
        onTurn={(next) => {
          setTurnId(next);
          setOpen(null);
          setCommitting(false);
        }}
        onCommit={!locked && files.some((file) => file.kind === 'file' && file.reverted !== 'whole') ? () => setCommitting(true) : null}
      />
      {committing && (
        <CommitDialog
          key={`${sessionId}:${turnId ?? ''}`}
          store={store}
          sessionId={sessionId}
          turnId={turnId}
          paths={files.filter((file) => file.kind === 'file' && file.reverted !== 'whole').map((file) => file.path)}
          onDone={(made) => {
            setCommitting(false);
            if (made)
              setMessage({
                text: `Committed ${made.commit.slice(0, 7)} on ${made.branch ?? 'a detached HEAD'}: ${made.subject}${made.hookOutput ? ` (hooks: ${firstWords(made.hookOutput, 120)})` : ''}`,
                restoreId: null,
                error: false,
              });
          }}
        />
      )}
      {message && (
        <p className={message.error ? 'notice notice-error small' : 'notice small'} role="status">
          {message.text}{' '}
          {message.restoreId && (
            <button type="button" className="link small" disabled={locked} onClick={() => void undo(message.restoreId ?? '')}>
              Undo
            </button>
          )}
        </p>
      )}
      {busy && files.length > 0 && <p className="muted small">Reverting waits until the agent is done.</p>}
      {set === null ? (
        <p className="muted small">Comparing files…</p>
      ) : !set.saved ? (
        <p className="muted small">
          {turnId
            ? 'This turn changed no files.'
            : 'Files the agent creates, changes or deletes show here, each with its diff and a revert.'}
        </p>
      ) : files.length === 0 ? (
        <p className="muted small">No changes left: the files are as they were {turnId ? 'before this turn' : 'when the session began'}.</p>
      ) : (
        <ChangeList
          files={files}
          open={open}
          locked={locked}
          onToggle={toggle}
          onRevert={(path, hunk) => void revert(path, hunk)}
          onOpenSession={(id) => void store.select(id)}
        />
      )}
    </section>
  );
}
