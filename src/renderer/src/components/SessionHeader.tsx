import { useAppState, type AppStore } from '../store';
import { ModelPicker } from './ModelPicker';

export function SessionHeader({ store, sessionId }: { store: AppStore; sessionId: string }) {
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
    </div>
  );
}
