import type { Autonomy } from '../../../shared/domain';
import { useAppState, type AppStore } from '../store';
import { ModelPicker } from './ModelPicker';

/** Saves a session export as a file the browser (or the app window) downloads. */
function download(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

export function SessionHeader({ store, sessionId, onToggleHistory, historyOpen }: { store: AppStore; sessionId: string; onToggleHistory: () => void; historyOpen: boolean }) {
  const session = useAppState(store, (state) => state.sessions.find((candidate) => candidate.id === sessionId));
  if (!session) return null;
  return (
    <div className="session-header">
      <h2 className="session-heading">{session.title}</h2>
      <div className="workspace" aria-label="Workspace">
        <span className="muted small">Workspace</span>
        <code className="path" title={session.workspacePath ?? ''}>
          {session.workspacePath ?? 'none: drop a folder on the window'}
        </code>
        <button
          type="button"
          onClick={() =>
            void store.attempt(async () => {
              const updated = await store.call('workspace:pick', { sessionId });
              if (updated) store.upsertSession(updated);
            })
          }
        >
          Choose folder…
        </button>
      </div>
      <ModelPicker store={store} sessionId={sessionId} />
      <div className="row">
        <button type="button" aria-pressed={historyOpen} onClick={onToggleHistory}>
          History
        </button>
        <button
          type="button"
          onClick={() =>
            void store.attempt(async () => {
              const { fileName, document: text } = await store.call('session:export', { sessionId });
              download(fileName, text);
            })
          }
        >
          Export
        </button>
      </div>
      <label className="autonomy">
        <span className="muted small">Autonomy</span>
        <select
          aria-label="Autonomy"
          value={session.autonomy}
          onChange={(event) =>
            void store.attempt(async () => store.upsertSession(await store.call('session:setAutonomy', { sessionId, autonomy: event.target.value as Autonomy })))
          }
        >
          <option value="L0">L0 observe: ask for everything</option>
          <option value="L1">L1 recommend: reads run, writes ask</option>
          <option value="L2">L2 assisted: small writes run</option>
          <option value="L3">L3 supervised: all but destructive run</option>
        </select>
      </label>
    </div>
  );
}
