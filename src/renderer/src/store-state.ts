/*
 * The shape of the renderer's state (`AppState`), and what it is before anything is loaded.
 */
import type { FolderTrustList } from '../../shared/folder-trust';
import type { UpdatesView } from '../../shared/updates';
import type { ModelCheck, ModelInfo, Session, Settings, TrustGrant } from '../../shared/domain';
import type { BranchPoint } from '../../shared/branches';
import type { AppInfo, ProviderView } from '../../shared/ipc/contract';
import type { SessionView } from '../../shared/session-view';
import { defaultSessionListView, type SessionListView } from './chrome/session-groups';

export interface Notice {
  readonly kind: 'error' | 'info';
  readonly text: string;
}

/** What an endpoint answered when its models were last asked for. */
export type EndpointState =
  | { readonly state: 'checking' }
  | { readonly state: 'ok'; readonly models: readonly ModelInfo[] }
  | { readonly state: 'unreachable'; readonly message: string };

export interface AppState {
  readonly info: AppInfo | null;
  readonly loadError: string | null;
  readonly sessions: readonly Session[];
  readonly selectedId: string | null;
  readonly views: Readonly<Record<string, SessionView>>;
  /** Per session: the places on the shown line where other versions exist. */
  readonly branchPoints: Readonly<Record<string, readonly BranchPoint[]>>;
  /** Sessions shown from their last turns while the rest loads. */
  readonly partial: Readonly<Record<string, boolean>>;
  readonly providers: readonly ProviderView[];
  readonly settings: Settings | null;
  readonly grants: readonly TrustGrant[];
  /** What checks of models found (the model doctor). */
  readonly checks: readonly ModelCheck[];
  /** Per endpoint: reachable with these models, unreachable and why, or being asked. */
  readonly endpoints: Readonly<Record<string, EndpointState>>;
  readonly notice: Notice | null;
  /** Text to put in a session's message box (a queued message handed back). */
  readonly drafts: Readonly<Record<string, string>>;
  /** A checkpoint the person asked to restore from a message ("Restore to here"): the history opens it. */
  readonly restoreRequest: { readonly sessionId: string; readonly checkpointId: string } | null;
  /** Changes the person asked to review from a turn: the Changes tab opens on them (turnId null: the whole session). */
  readonly changesRequest: { readonly sessionId: string; readonly turnId: string | null } | null;
  /** Per session: workspace paths to put in the message box as `@path` ("Attach to message" in a preview). */
  readonly mentions: Readonly<Record<string, readonly string[]>>;
  /**
   * Per session: the restore of files made while this window watched, until the shown version changes or a turn starts.
   * Its bar (with Undo) shows only then, not again each time a version that holds it is shown.
   */
  readonly freshRestores: Readonly<Record<string, string>>;
  /** The sessions list's search and folded groups, which the window's keys follow too. */
  readonly sessionList: SessionListView;
  /**
   * Per session: how many times its workspace files are known to have changed (the agent's writes, a restore or its
   * undo, a revert, a file put back from the trash). The Files tree reads the folder again at each.
   */
  readonly filesChanged: Readonly<Record<string, number>>;
  /** The folder trust decisions as last announced (null until one changes): what shows a folder's trust reads again at each. */
  readonly folderTrust: FolderTrustList | null;
  /** Updates as last read or announced: what applies, what the policy locks, and the updater's state. */
  readonly updates: UpdatesView | null;
}

/** The state before anything is loaded. */
export const initialState: AppState = {
  info: null,
  loadError: null,
  sessions: [],
  selectedId: null,
  views: {},
  branchPoints: {},
  partial: {},
  providers: [],
  settings: null,
  grants: [],
  checks: [],
  endpoints: {},
  notice: null,
  drafts: {},
  restoreRequest: null,
  changesRequest: null,
  mentions: {},
  freshRestores: {},
  sessionList: defaultSessionListView,
  filesChanged: {},
  folderTrust: null,
  updates: null,
};
