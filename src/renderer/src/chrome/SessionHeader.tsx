/*
 * The header of the selected session: its title, its workspace folder with Choose folder… and its git branch, its
 * agent, History and Export.
 */

import { useAppState, type AppStore } from '../store';
import { SessionAgent } from './SessionAgent';
import { CheckControl } from './CheckControl';
import { GitBadge } from './GitBadge';
import { ExportControl } from './ExportControl';

/** The selected session's title and workspace (with Choose folder…), its agent, History and Export. */
export function SessionHeader({ store, sessionId, onShowHistory }: { store: AppStore; sessionId: string; onShowHistory: () => void }) {
  const session = useAppState(store, (state) => state.sessions.find((candidate) => candidate.id === sessionId));
  if (!session) return null;
  return (
    <div className="session-header">
      <div className="session-header-inner">
        <h2 className="session-heading" title={session.title}>
          {session.title}
        </h2>
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
          {session.workspacePath !== null && <GitBadge key={sessionId} store={store} sessionId={sessionId} />}
          {session.workspacePath !== null && <CheckControl store={store} sessionId={sessionId} workspacePath={session.workspacePath} />}
        </div>
        <div className="row">
          <SessionAgent store={store} sessionId={sessionId} />
          <button type="button" onClick={onShowHistory}>
            History
          </button>
          <ExportControl store={store} sessionId={sessionId} />
        </div>
      </div>
    </div>
  );
}
