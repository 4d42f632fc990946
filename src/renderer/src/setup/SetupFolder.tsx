/*
 * The model setup's second step: the folder the session works in (the one it has, a recent one, one chosen or
 * dropped), ending on a ready session; where commands cannot run (no shell), it says how to get one.
 */

import { useEffect, useRef, useState } from 'react';
import type { RecentFolder } from '../../../shared/ipc/contract';
import { errorMessage } from '../client';
import { readyLine, type ChosenModel } from './model-setup';
import { useAppState, type AppStore } from '../store';

/**
 * The setup's second step: the folder the session works in. The folder it already has (a new session starts in the
 * last one used) is kept with one click; other recent folders are offered when they still exist and said to be gone
 * when not; "Choose folder…" opens the system's dialog, and a folder dropped on the window counts too. Ends on the
 * ready line.
 */
export function SetupFolder({
  store,
  sessionId,
  chosen,
  onDone,
}: {
  store: AppStore;
  sessionId: string;
  chosen: ChosenModel;
  onDone: () => void;
}) {
  const folder = useAppState(store, (state) => state.sessions.find((session) => session.id === sessionId)?.workspacePath ?? null);
  // Without a shell (Windows without Git for Windows) the agent cannot run commands: said here, with how to get one.
  const shell = useAppState(store, (state) => state.info?.commandShell ?? null);
  const [recent, setRecent] = useState<readonly RecentFolder[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const folderAtStart = useRef(folder);
  const finished = useRef(false);

  useEffect(() => {
    void store.call('workspace:recent', {}).then(setRecent, () => setRecent([]));
  }, [store]);

  const finish = (path: string | null): void => {
    if (finished.current) return;
    finished.current = true;
    store.notify({ kind: 'info', text: readyLine(chosen.model, chosen.serverName, path) });
    onDone();
  };
  // A folder dropped on the window (WorkspaceDropZone) becomes the session's: that ends the step too.
  useEffect(() => {
    if (folder !== null && folder !== folderAtStart.current) finish(folder);
  });

  const act = async (action: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setFailure(null);
    try {
      await action();
    } catch (error) {
      setFailure(`That folder could not be used: ${errorMessage(error)}`);
    } finally {
      setBusy(false);
    }
  };
  const useFolder = (path: string): Promise<void> =>
    act(async () => {
      const session = await store.call('workspace:set', { sessionId, path });
      store.upsertSession(session);
      finish(session.workspacePath);
    });
  const chooseFolder = (): Promise<void> =>
    act(async () => {
      const session = await store.call('workspace:pick', { sessionId });
      // Null: the person closed the dialog; the step stays.
      if (!session) return;
      store.upsertSession(session);
      finish(session.workspacePath);
    });

  const others = recent.filter((item) => item.path !== folder);
  return (
    <section className="model-setup card" aria-label="Pick a folder">
      <h2>Pick a folder to work in</h2>
      <p className="small">
        Model: <strong>{chosen.model}</strong> on {chosen.serverName}. The agent reads, edits and runs commands only inside the folder you
        pick. A session without a folder can talk, but has no tools: the agent cannot read or run anything.
      </p>
      {shell && !shell.available && (
        <p className="setup-model-problem small" aria-label="No shell for commands">
          {shell.description}
        </p>
      )}
      {folder !== null && (
        <div className="row">
          <span className="small">
            This session works in <code>{folder}</code>, the last folder used.
          </span>
          <span className="spacer" />
          <button type="button" className="primary" disabled={busy} onClick={() => finish(folder)}>
            Keep this folder
          </button>
        </div>
      )}
      {others.length > 0 && <p className="small">{folder === null ? 'Folders used before:' : 'Or one used before:'}</p>}
      {others.length > 0 && (
        <ul className="setup-folders" aria-label="Folders used before">
          {others.map((item) => (
            <li key={item.path} className="row">
              <code className="small">{item.path}</code>
              <span className="spacer" />
              {item.exists ? (
                <button type="button" disabled={busy} aria-label={`Work in ${item.path}`} onClick={() => void useFolder(item.path)}>
                  Work here
                </button>
              ) : (
                <span className="muted small">no longer there (moved or deleted)</span>
              )}
            </li>
          ))}
        </ul>
      )}
      {failure && (
        <p className="setup-model-problem small" role="alert">
          {failure}
        </p>
      )}
      <div className="row">
        <button type="button" className={folder === null ? 'primary' : ''} disabled={busy} onClick={() => void chooseFolder()}>
          Choose folder…
        </button>
        <span className="muted small">or drop a folder onto this window.</span>
        <span className="spacer" />
        {folder === null && (
          <button type="button" className="link" disabled={busy} onClick={() => finish(null)}>
            Skip: talk without tools
          </button>
        )}
      </div>
    </section>
  );
}
