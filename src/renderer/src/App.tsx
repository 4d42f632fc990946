import { useState } from 'react';
import { ApprovalGate } from './components/ApprovalGate';
import { Composer } from './components/Composer';
import { PlanCard } from './components/PlanCard';
import { Conversation } from './components/Conversation';
import { SessionHeader } from './components/SessionHeader';
import { SettingsPanel } from './components/SettingsPanel';
import { Sidebar } from './components/Sidebar';
import { StartupError } from './components/StartupError';
import { StatusBar } from './components/StatusBar';
import { WorkspaceDropZone } from './components/WorkspaceDropZone';
import { InterruptedBanner } from './components/InterruptedBanner';
import { HistoryPanel, RestoreBar } from './components/HistoryPanel';
import { useAppState, type AppStore } from './store';

/** The plan waiting for an answer and the call waiting at its gate, docked above the message box. */
function Gates({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const plan = useAppState(store, (state) => state.views[sessionId]?.plan ?? null);
  const approval = useAppState(store, (state) => state.views[sessionId]?.pendingApproval ?? null);
  return (
    <>
      {plan && (plan.state === 'waiting' || plan.state === 'running') && <PlanCard store={store} plan={plan} />}
      {approval && <ApprovalGate store={store} approval={approval} />}
    </>
  );
}

export function App({ store }: { store: AppStore }) {
  const info = useAppState(store, (state) => state.info);
  const loadError = useAppState(store, (state) => state.loadError);
  const selectedId = useAppState(store, (state) => state.selectedId);
  const notice = useAppState(store, (state) => state.notice);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [historyOpen, setHistoryOpen] = useState(false);

  if (loadError) return <StartupError title="The app could not start" message={loadError} />;
  if (!info) return <div className="loading" aria-busy="true">Starting…</div>;
  if (info.startupError) return <StartupError title="Your data could not be opened" message={info.startupError.message} detail={`Database: ${info.databasePath}`} />;

  return (
    <WorkspaceDropZone store={store}>
      <div className="app">
        <StatusBar store={store} onOpenSettings={() => setSettingsOpen(true)} />
        <div className="body">
          <Sidebar store={store} />
          <main className="main" aria-label="Conversation">
            {selectedId ? (
              <>
                <SessionHeader store={store} sessionId={selectedId} onToggleHistory={() => setHistoryOpen((open) => !open)} historyOpen={historyOpen} />
                {notice && (
                  <div className={`notice notice-${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
                    <span>{notice.text}</span>
                    <button type="button" className="link" aria-label="Dismiss message" onClick={() => store.notify(null)}>
                      ×
                    </button>
                  </div>
                )}
                <RestoreBar store={store} sessionId={selectedId} />
                <Conversation store={store} sessionId={selectedId} />
                <InterruptedBanner store={store} sessionId={selectedId} />
                <Gates store={store} sessionId={selectedId} />
                <Composer store={store} sessionId={selectedId} />
              </>
            ) : (
              <div className="empty">
                <h1>Agent Workbench</h1>
                <p>Drop a folder here, or create a session to start.</p>
                <button type="button" className="primary" onClick={() => void store.createSession()}>
                  New session
                </button>
              </div>
            )}
          </main>
          {selectedId && historyOpen && <HistoryPanel store={store} sessionId={selectedId} onClose={() => setHistoryOpen(false)} />}
        </div>
        {settingsOpen && <SettingsPanel store={store} onClose={() => setSettingsOpen(false)} />}
      </div>
    </WorkspaceDropZone>
  );
}
