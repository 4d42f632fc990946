/*
 * The window: the status bar on top, sessions and files on the left, the selected session in the middle and its
 * details on the right.
 *
 * Settings and the shortcuts open over it; the model setup shows in the middle while no model works.
 */

import { useState } from 'react';
import { useApprovalNotifications } from './chrome/approval-notifications';
import { InterruptedBanner } from './chrome/InterruptedBanner';
import { FolderTrustPrompt } from './chrome/FolderTrustPrompt';
import { NoticeBar } from './chrome/NoticeBar';
import { UpdateNotice } from './chrome/UpdateNotice';
import { SessionHeader } from './chrome/SessionHeader';
import { ShortcutsDialog } from './chrome/ShortcutsDialog';
import { Sidebar } from './chrome/Sidebar';
import { Splitter } from './chrome/Splitter';
import { StartupError } from './chrome/StartupError';
import { useTheme } from './chrome/theme';
import { useWindowKeys } from './chrome/window-keys';
import { WorkspaceDropZone } from './chrome/WorkspaceDropZone';
import { Composer } from './composer/Composer';
import { Conversation } from './conversation/Conversation';
import { Gate } from './gates/Gate';
import { PlanPrompt } from './gates/PlanCard';
import { fitPanels, usePersistentLayout, useWindowWidth, type Layout } from './layout';
import { noModelWorks } from './models/model-readiness';
import { FileTree } from './panels/FileTree';
import { RestoreBar } from './panels/HistoryPanel';
import { SubAgentBar } from './sub-agents/SubAgentLink';
import { usePanelRequests } from './panels/panel-requests';
import { RightPanel } from './panels/RightPanel';
import { SettingsPanel } from './settings/SettingsPanel';
import { ModelSetup } from './setup/ModelSetup';
import type { ChosenModel } from './setup/model-setup';
import { useSetupProgress, type SetupProgress } from './setup/setup-progress';
import { StatusBar } from './status-bar/StatusBar';
import { useAppState, type AppStore } from './store';

/** What the window's parts need of its layout: the layout, and a change to it. */
interface LayoutProps {
  store: AppStore;
  layout: Layout;
  setLayout: (change: Partial<Layout>) => void;
}

/** Whether the model setup shows, at which step, and what it tells the window. */
interface SetupShown {
  readonly shown: boolean;
  /** The model chosen in its first step: the setup is at its folder step. */
  readonly chosen: ChosenModel | null;
  readonly progress: SetupProgress;
  readonly onOpenSettings: () => void;
}

/** The left side: the sessions, the selected session's files, and the splitter that sizes them. */
function LeftSide({ store, layout, setLayout, selectedId }: LayoutProps & { selectedId: string | null }) {
  return (
    <>
      <div className="left-panel" style={{ width: layout.leftWidth }} data-region="sessions">
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
  );
}

/** The right side: the splitter that sizes it, and the details panel of the selected session. */
function RightSide({ store, layout, setLayout, sessionId }: LayoutProps & { sessionId: string }) {
  return (
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
          sessionId={sessionId}
          tab={layout.rightTab}
          onTab={(rightTab) => setLayout({ rightTab })}
          onClose={() => setLayout({ rightOpen: false })}
        />
      </div>
    </>
  );
}

/**
 * The middle of the window for the selected session, top to bottom: its header, the app's notice, a restore's way
 * back, the model setup while one is under way, the conversation, what an interruption left, what waits for the
 * person, and the message box.
 */
function SessionMain({ store, layout, setLayout, sessionId, setup }: LayoutProps & { sessionId: string; setup: SetupShown }) {
  // A sub-agent's session takes no message of the person's: its work is its brief, and its answer goes to its parent.
  const subAgent = useAppState(store, (state) => state.sessions.some((session) => session.id === sessionId && session.subAgent));
  return (
    <>
      <SessionHeader store={store} sessionId={sessionId} onShowHistory={() => setLayout({ rightOpen: true, rightTab: 'history' })} />
      <SubAgentBar store={store} sessionId={sessionId} />
      <NoticeBar store={store} />
      <FolderTrustPrompt key={sessionId} store={store} sessionId={sessionId} />
      <RestoreBar store={store} sessionId={sessionId} />
      {setup.shown && (
        <ModelSetup
          store={store}
          sessionId={sessionId}
          chosen={setup.chosen}
          progress={setup.progress}
          onOpenSettings={setup.onOpenSettings}
        />
      )}
      <Conversation key={sessionId} store={store} sessionId={sessionId} />
      <InterruptedBanner store={store} sessionId={sessionId} />
      <Gate store={store} sessionId={sessionId} />
      {!(layout.rightOpen && layout.rightTab === 'plan') && (
        <PlanPrompt store={store} sessionId={sessionId} onShowPlan={() => setLayout({ rightOpen: true, rightTab: 'plan' })} />
      )}
      {!subAgent && <Composer store={store} sessionId={sessionId} />}
    </>
  );
}

/** No session selected: a way to start one, and the model setup while no model works. */
function NoSession({ store, setup }: { store: AppStore; setup: SetupShown }) {
  return (
    <div className="empty">
      <h1>Agent Workbench</h1>
      {/* While no model works, the setup is the one thing to do; a session comes with it. */}
      {!setup.shown && (
        <>
          <p>Drop a folder here, or create a session to start.</p>
          <button type="button" className="primary" onClick={() => void store.createSession()}>
            New session
          </button>
        </>
      )}
      {setup.shown && (
        <ModelSetup store={store} sessionId={null} chosen={null} progress={setup.progress} onOpenSettings={setup.onOpenSettings} />
      )}
    </div>
  );
}

/**
 * The window: the status bar over the sessions and files on the left, the selected session in the middle and its
 * details on the right, each side folding away and sized by a splitter; Settings and the shortcuts over it all.
 */
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
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const { setup, progress } = useSetupProgress();
  const [saved, setLayout] = usePersistentLayout();
  // The panels as drawn: narrowed in a small window so the conversation keeps its room.
  const windowWidth = useWindowWidth();
  const layout = { ...saved, ...fitPanels(saved, windowWidth) };
  useApprovalNotifications(store);
  useTheme(store);
  usePanelRequests(store, setLayout);
  useWindowKeys(store, layout, setLayout, {
    openSettings: () => setSettingsOpen(true),
    toggleShortcuts: () => setShortcutsOpen((open) => !open),
  });

  if (loadError) return <StartupError title="The app could not start" message={loadError} />;
  if (!info)
    return (
      <div className="loading" aria-busy="true">
        Starting…
      </div>
    );
  if (info.startupError)
    return info.startupError.code.startsWith('store_') ? (
      <StartupError
        title="Your data could not be opened"
        message={info.startupError.message}
        detail={`Database: ${info.databasePath}`}
        {...(info.startupError.backupPath === undefined
          ? {}
          : {
              backupPath: info.startupError.backupPath,
              ...(info.startupError.backupTakenAt === undefined ? {} : { backupTakenAt: info.startupError.backupTakenAt }),
              restoreBackup: () => store.call('app:restoreBackup', {}),
            })}
      />
    ) : (
      <StartupError title="The app could not start" message={info.startupError.message} />
    );

  const openSettings = (): void => setSettingsOpen(true);
  const parts = { store, layout, setLayout };
  return (
    <WorkspaceDropZone store={store}>
      <div className="app">
        <StatusBar
          store={store}
          onOpenSettings={openSettings}
          onOpenShortcuts={() => setShortcutsOpen(true)}
          onToggleLeft={() => setLayout({ leftOpen: !layout.leftOpen })}
          onToggleRight={() => setLayout({ rightOpen: !layout.rightOpen })}
          layout={layout}
        />
        <UpdateNotice store={store} />
        <div className="body">
          {layout.leftOpen && <LeftSide {...parts} selectedId={selectedId} />}
          <main className="main" aria-label="Conversation">
            {selectedId ? (
              <SessionMain
                {...parts}
                sessionId={selectedId}
                setup={{ shown: setupShown || setup !== null, chosen: setup?.chosen ?? null, progress, onOpenSettings: openSettings }}
              />
            ) : (
              <NoSession store={store} setup={{ shown: noModel || setup !== null, chosen: null, progress, onOpenSettings: openSettings }} />
            )}
          </main>
          {selectedId && layout.rightOpen && <RightSide {...parts} sessionId={selectedId} />}
        </div>
        {settingsOpen && <SettingsPanel store={store} onClose={() => setSettingsOpen(false)} />}
        {shortcutsOpen && <ShortcutsDialog onClose={() => setShortcutsOpen(false)} />}
      </div>
    </WorkspaceDropZone>
  );
}
