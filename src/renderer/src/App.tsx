import { useEffect, useRef, useState } from 'react';
import { ApprovalGate } from './gates/ApprovalGate';
import { BudgetGatePanel } from './gates/BudgetGate';
import { ResultReviewGate } from './gates/ResultReview';
import { Composer } from './composer/Composer';
import { Conversation } from './conversation/Conversation';
import { FileTree } from './panels/FileTree';
import { RestoreBar } from './panels/HistoryPanel';
import { InterruptedBanner } from './chrome/InterruptedBanner';
import { RightPanel } from './panels/RightPanel';
import { SessionHeader } from './chrome/SessionHeader';
import { SettingsPanel } from './settings/SettingsPanel';
import { ShortcutsDialog } from './chrome/ShortcutsDialog';
import { Sidebar } from './chrome/Sidebar';
import { Splitter } from './chrome/Splitter';
import { StartupError } from './chrome/StartupError';
import { ModelSetup, type SetupProgress } from './setup/ModelSetup';
import type { ChosenModel } from './setup/model-setup';
import { PlanPrompt } from './gates/PlanCard';
import { noModelWorks } from './models/model-readiness';
import { StatusBar } from './status-bar/StatusBar';
import { WorkspaceDropZone } from './chrome/WorkspaceDropZone';
import { useDisposables } from './disposables';
import { usePersistentLayout } from './layout';
import { useAppState, type AppStore } from './store';

/** The call waiting at its gate, a budget reached, or the first result held for review, docked above the message box. */
function Gate({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const approval = useAppState(store, (state) => state.views[sessionId]?.pendingApproval ?? null);
  const review = useAppState(store, (state) => state.views[sessionId]?.pendingReviews[0] ?? null);
  const budget = useAppState(store, (state) => state.views[sessionId]?.pendingBudget ?? null);
  if (approval) return <ApprovalGate key={approval.approvalId} store={store} approval={approval} />;
  if (budget) return <BudgetGatePanel key={budget.gateId} store={store} gate={budget} />;
  return review ? <ResultReviewGate key={review.reviewId} store={store} review={review} /> : null;
}

/** Asks for a desktop notification when a session starts waiting for the person while the window is in the background. */
function useApprovalNotifications(store: AppStore): void {
  const waiting = useAppState(store, (state) =>
    state.sessions
      .filter((session) => session.status === 'waiting_approval')
      .map((session) => `${session.id}\u0000${session.title}`)
      .join('\n'),
  );
  const seen = useRef(new Set<string>());
  useEffect(() => {
    const now = new Set(waiting === '' ? [] : waiting.split('\n'));
    for (const item of now) {
      if (seen.current.has(item)) continue;
      const title = item.split('\u0000')[1] ?? '';
      if (typeof Notification !== 'undefined' && !document.hasFocus()) {
        const show = (): void => void new Notification('Approval needed', { body: `“${title}” is waiting for you.`, tag: item });
        if (Notification.permission === 'granted') show();
        else if (Notification.permission === 'default')
          void Notification.requestPermission().then((permission) => permission === 'granted' && show());
      }
    }
    seen.current = now;
  }, [waiting]);
}

export function App({ store }: { store: AppStore }) {
  const info = useAppState(store, (state) => state.info);
  const loadError = useAppState(store, (state) => state.loadError);
  const selectedId = useAppState(store, (state) => state.selectedId);
  // Loaded first, so a first run does not flash the setup before the endpoints are known.
  const noModel = useAppState(store, (state) => state.settings !== null && noModelWorks(state));
  const setupShown = useAppState(
    store,
    (state) => noModel && state.selectedId !== null && (state.views[state.selectedId]?.messages.length ?? 0) === 0,
  );
  const notice = useAppState(store, (state) => state.notice);
  const planWaiting = useAppState(store, (state) => (state.selectedId ? state.views[state.selectedId]?.plan?.state === 'waiting' : false));
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  // The setup stays from the person's first step in it to its end, even once a model works meanwhile (a check saves an
  // endpoint); at its folder step it holds the model chosen.
  const [setup, setSetup] = useState<{ chosen: ChosenModel | null } | null>(null);
  const setupProgress: SetupProgress = {
    onEngage: () => setSetup((current) => current ?? { chosen: null }),
    onChosen: (chosen) => setSetup({ chosen }),
    onDone: () => setSetup(null),
  };
  const [layout, setLayout] = usePersistentLayout();
  const theme = useAppState(store, (state) => state.settings?.theme ?? 'system');
  useApprovalNotifications(store);

  // Light and dark follow the OS unless the theme setting picks one.
  useEffect(() => {
    if (theme === 'system') delete document.documentElement.dataset['theme'];
    else document.documentElement.dataset['theme'] = theme;
  }, [theme]);

  // A plan that waits for an answer is shown, whatever the panels were doing.
  useEffect(() => {
    if (planWaiting) setLayout({ rightOpen: true, rightTab: 'plan' });
  }, [planWaiting, setLayout]);
  // "Restore to here" opens the history, where the restore shows under its step.
  const restoreAsked = useAppState(store, (state) => state.restoreRequest !== null);
  useEffect(() => {
    if (restoreAsked) setLayout({ rightOpen: true, rightTab: 'history' });
  }, [restoreAsked, setLayout]);
  // "Review changes" on a turn opens the Changes tab on that turn.
  const changesAsked = useAppState(store, (state) => state.changesRequest !== null);
  useEffect(() => {
    if (changesAsked) setLayout({ rightOpen: true, rightTab: 'changes' });
  }, [changesAsked, setLayout]);

  // Keyboard first: new session, switching sessions, and the panels.
  useDisposables(
    (disposables) => {
      disposables.listen(window, 'keydown', (event: KeyboardEvent) => {
        const command = event.ctrlKey || event.metaKey;
        const sessions = store.getState().sessions;
        const current = sessions.findIndex((session) => session.id === store.getState().selectedId);
        if (command && !event.shiftKey && event.key.toLowerCase() === 'n') void store.createSession();
        else if (command && event.key.toLowerCase() === 'b') setLayout({ leftOpen: !layout.leftOpen });
        else if (command && event.key.toLowerCase() === 'j') setLayout({ rightOpen: !layout.rightOpen });
        else if (command && event.key === ',') setSettingsOpen(true);
        else if (command && event.key === '/') setShortcutsOpen((open) => !open);
        else if (event.altKey && (event.key === 'ArrowDown' || event.key === 'ArrowUp') && sessions.length > 0) {
          const next = sessions[(current + (event.key === 'ArrowDown' ? 1 : -1) + sessions.length) % sessions.length];
          if (next) void store.select(next.id);
        } else if (command && /^[1-9]$/.test(event.key)) {
          const target = sessions[Number(event.key) - 1];
          if (target) void store.select(target.id);
        } else return;
        event.preventDefault();
      });
    },
    [store, layout.leftOpen, layout.rightOpen, setLayout],
  );

  if (loadError) return <StartupError title="The app could not start" message={loadError} />;
  if (!info)
    return (
      <div className="loading" aria-busy="true">
        Starting…
      </div>
    );
  if (info.startupError)
    return (
      <StartupError title="Your data could not be opened" message={info.startupError.message} detail={`Database: ${info.databasePath}`} />
    );

  return (
    <WorkspaceDropZone store={store}>
      <div className="app">
        <StatusBar
          store={store}
          onOpenSettings={() => setSettingsOpen(true)}
          onOpenShortcuts={() => setShortcutsOpen(true)}
          onToggleLeft={() => setLayout({ leftOpen: !layout.leftOpen })}
          onToggleRight={() => setLayout({ rightOpen: !layout.rightOpen })}
          layout={layout}
        />
        <div className="body">
          {layout.leftOpen && (
            <>
              <div className="left-panel" style={{ width: layout.leftWidth }}>
                <Sidebar store={store} />
                {selectedId && (
                  <details
                    className="files-section"
                    open={layout.filesOpen}
                    onToggle={(event) => setLayout({ filesOpen: event.currentTarget.open })}
                  >
                    <summary>Files</summary>
                    <FileTree store={store} sessionId={selectedId} />
                  </details>
                )}
              </div>
              <Splitter
                label="Resize the sessions panel"
                side="left"
                width={layout.leftWidth}
                onResize={(width) => setLayout({ leftWidth: Math.round(Math.min(640, Math.max(160, width))) })}
                onToggle={() => setLayout({ leftOpen: false })}
              />
            </>
          )}
          <main className="main" aria-label="Conversation">
            {selectedId ? (
              <>
                <SessionHeader
                  store={store}
                  sessionId={selectedId}
                  onShowHistory={() => setLayout({ rightOpen: true, rightTab: 'history' })}
                />
                {notice && (
                  <div className={`notice notice-${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
                    <span>{notice.text}</span>
                    <button type="button" className="link" aria-label="Dismiss message" onClick={() => store.notify(null)}>
                      ×
                    </button>
                  </div>
                )}
                <RestoreBar store={store} sessionId={selectedId} />
                {(setupShown || setup !== null) && (
                  <ModelSetup
                    store={store}
                    sessionId={selectedId}
                    chosen={setup?.chosen ?? null}
                    progress={setupProgress}
                    onOpenSettings={() => setSettingsOpen(true)}
                  />
                )}
                <Conversation key={selectedId} store={store} sessionId={selectedId} />
                <InterruptedBanner store={store} sessionId={selectedId} />
                <Gate store={store} sessionId={selectedId} />
                {!(layout.rightOpen && layout.rightTab === 'plan') && (
                  <PlanPrompt store={store} sessionId={selectedId} onShowPlan={() => setLayout({ rightOpen: true, rightTab: 'plan' })} />
                )}
                <Composer store={store} sessionId={selectedId} />
              </>
            ) : (
              <div className="empty">
                <h1>Agent Workbench</h1>
                <p>Drop a folder here, or create a session to start.</p>
                <button type="button" className="primary" onClick={() => void store.createSession()}>
                  New session
                </button>
                {(noModel || setup !== null) && (
                  <ModelSetup
                    store={store}
                    sessionId={null}
                    chosen={null}
                    progress={setupProgress}
                    onOpenSettings={() => setSettingsOpen(true)}
                  />
                )}
              </div>
            )}
          </main>
          {selectedId && layout.rightOpen && (
            <>
              <Splitter
                label="Resize the details panel"
                side="right"
                width={layout.rightWidth}
                onResize={(width) => setLayout({ rightWidth: Math.round(Math.min(800, Math.max(220, width))) })}
                onToggle={() => setLayout({ rightOpen: false })}
              />
              <div className="right-wrap" style={{ width: layout.rightWidth }}>
                <RightPanel
                  store={store}
                  sessionId={selectedId}
                  tab={layout.rightTab}
                  onTab={(rightTab) => setLayout({ rightTab })}
                  onClose={() => setLayout({ rightOpen: false })}
                />
              </div>
            </>
          )}
        </div>
        {settingsOpen && <SettingsPanel store={store} onClose={() => setSettingsOpen(false)} />}
        {shortcutsOpen && <ShortcutsDialog onClose={() => setShortcutsOpen(false)} />}
      </div>
    </WorkspaceDropZone>
  );
}
