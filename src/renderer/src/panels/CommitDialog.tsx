/*
 * Commit… from Changes: a message drafted by the session's model from the agent's diff (the person may rewrite it or
 * write their own), the files the commit takes (the agent's alone), and the commit.
 */

import { useEffect, useRef, useState } from 'react';
import type { GitCommit } from '../../../shared/git';
import { errorMessage } from '../client';
import type { AppStore } from '../store';

interface Draft {
  readonly paths: readonly string[];
  readonly changedSince: readonly string[];
}

/** The commit form for the session's (or a turn's) changes; `onDone` hears of the commit made, or null when cancelled. */
export function CommitDialog({
  store,
  sessionId,
  turnId,
  paths,
  onDone,
}: {
  store: AppStore;
  sessionId: string;
  turnId: string | null;
  /** The paths Changes lists, shown until the draft says which the commit takes. */
  paths: readonly string[];
  onDone: (commit: GitCommit | null) => void;
}) {
  const [message, setMessage] = useState('');
  const [draft, setDraft] = useState<Draft | null>(null);
  const [drafting, setDrafting] = useState(false);
  const [committing, setCommitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const typed = useRef(false);
  // A draft that arrives after the form closed goes nowhere.
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);
  const scope = turnId === null ? { sessionId } : { sessionId, turnId };

  const askDraft = (): void => {
    setDrafting(true);
    setError(null);
    store
      .call('git:draft', scope)
      .then((next) => {
        if (!live.current) return;
        setDraft({ paths: next.paths, changedSince: next.changedSince });
        // What the person wrote meanwhile is theirs: a draft never writes over it.
        if (!typed.current) setMessage(next.message);
      })
      .catch((failure: unknown) => {
        if (live.current) setError(`No message was drafted: ${errorMessage(failure)} Write one below.`);
      })
      .finally(() => {
        if (live.current) setDrafting(false);
      });
  };
  // A draft is asked for when the form opens (it is made anew for another session or turn).
  useEffect(askDraft, []);

  const commit = (): void => {
    setCommitting(true);
    setError(null);
    store
      .call('git:commit', { ...scope, message })
      .then((made) => {
        if (live.current) onDone(made);
      })
      .catch((failure: unknown) => {
        if (live.current) setError(errorMessage(failure));
      })
      .finally(() => {
        if (live.current) setCommitting(false);
      });
  };

  const shown = draft?.paths ?? paths;
  return (
    <div className="dialog commit-dialog" role="dialog" aria-label="Commit the agent's changes">
      <h3>Commit {turnId === null ? "the session's changes" : "this turn's changes"}</h3>
      <p className="muted small">
        Only the agent's files are committed, as they are on disk; what you staged for other files stays staged. The repository's hooks run.
      </p>
      <label className="stack">
        <span className="small">Message{drafting ? ' (the model is drafting one…)' : ''}</span>
        <textarea
          aria-label="Commit message"
          rows={6}
          value={message}
          disabled={committing}
          onChange={(event) => {
            typed.current = true;
            setMessage(event.target.value);
          }}
        />
      </label>
      <ul className="commit-paths small" aria-label="Files to commit">
        {shown.map((path) => (
          <li key={path}>
            <code>{path}</code>
            {draft?.changedSince.includes(path) && (
              <span className="muted"> (also changed since the agent left it: those changes are committed too)</span>
            )}
          </li>
        ))}
      </ul>
      {error && (
        <p className="notice notice-error small" role="alert">
          {error}
        </p>
      )}
      <div className="row">
        <button type="button" className="primary" disabled={committing || message.trim() === ''} onClick={commit}>
          {committing ? 'Committing…' : 'Commit'}
        </button>
        <button
          type="button"
          disabled={drafting || committing}
          onClick={() => {
            typed.current = false;
            askDraft();
          }}
        >
          Draft again
        </button>
        <button type="button" disabled={committing} onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </div>
  );
}
