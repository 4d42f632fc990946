/*
 * The renderer's state (`AppStore`): sessions and their views folded from main's events, endpoints, settings and
 * grants, and the calls that change them.
 *
 * Changes apply at once but are announced at most once per animation frame, so a fast stream repaints once per frame.
 */

import { useSyncExternalStore } from 'react';
import type { ModelCheck, Session, SessionModel, Settings } from '../../shared/domain';
import type { BranchPoint } from '../../shared/branches';
import type { UpdatesView } from '../../shared/updates';
import type { JournalEntry, ToolCallDraftEvent } from '../../shared/events';
import type { EventPayload } from '../../shared/ipc/contract';
import { emptySessionView, reduceSessionView } from '../../shared/session-view';
import { applyToolCallDrafts } from '../../shared/tool-call-drafts';
import type { WorkbenchBridge } from '../../shared/ipc/bridge';
import { DisposableStore, toDisposable, type Disposable } from '../../shared/lifecycle';
import { callWith, errorMessage, type Call } from './client';
import { animationFrame, scheduleIn, subscription } from './disposables';
import { EndpointChecks } from './store-endpoints';
import { initialState, type AppState, type EndpointState, type Notice } from './store-state';

export type { AppState, EndpointState, Notice } from './store-state';

type Listener = () => void;

/** Whether a journal entry says the workspace's files changed: the agent's changes saved, or files restored. */
const changesFiles = ({ event }: JournalEntry): boolean =>
  (event.type === 'files_snapshotted' && event.changed.length > 0) || event.type === 'files_restored';

/** Turns read first when a session opens, enough to fill the window. */
const recentTurnsFirst = 30;

/**
 * The renderer's state. Changes are applied at once but announced at most once per animation
 * frame, so a fast stream repaints once per frame however many messages arrive. It owns its
 * subscriptions to main's events and the frame it waits for; disposing it lets go of both.
 */
export class AppStore implements Disposable {
  private state: AppState = initialState;
  private readonly listeners = new Set<Listener>();
  /** The subscriptions to main's events and the frame waited for, while there is one. */
  private readonly lifetime = new DisposableStore();
  private frame: Disposable | null = null;
  /** Entries that arrived while a session was being opened; folded in after the open answers. */
  private readonly early = new Map<string, JournalEntry[]>();
  private readonly opening = new Set<string>();
  private readonly scheduleFrame: (callback: () => void) => Disposable;
  /** Endpoints being asked for their models, so two pickers share one request. */
  private readonly endpointChecks: EndpointChecks;
  /** A path opened from outside while the store was starting: shown once the first session list is in. */
  private launchedEarly: EventPayload<'launch:opened'> | null = null;
  private started = false;

  /** Calls a channel of main; rejects with a `RemoteError` when main refuses. */
  readonly call: Call;

  /**
   * @param scheduleFrame how to wait for the next frame where the page's own frames are not wanted
   * (the benchmarks run the store under Node); such a wait cannot be cancelled, so once the store is
   * disposed its callback does nothing.
   */
  constructor(
    readonly api: WorkbenchBridge,
    scheduleFrame?: (callback: () => void) => void,
  ) {
    this.call = (channel, input) => callWith(this.api, channel, input);
    this.endpointChecks = new EndpointChecks(this.call, {
      known: (providerId) => this.state.endpoints[providerId],
      put: (providerId, found) => this.set((state) => ({ ...state, endpoints: { ...state.endpoints, [providerId]: found } })),
    });
    this.scheduleFrame = scheduleFrame
      ? (callback) => {
          let wanted = true;
          scheduleFrame(() => wanted && callback());
          return toDisposable(() => void (wanted = false));
        }
      : animationFrame;
    this.lifetime.add(toDisposable(() => this.listeners.clear()));
  }

  getState = (): AppState => this.state;

  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private set(update: (state: AppState) => AppState): void {
    this.state = update(this.state);
    if (this.frame !== null || this.lifetime.isDisposed) return;
    this.frame = scheduleIn(this.lifetime, this.scheduleFrame, () => {
      this.frame = null;
      for (const listener of this.listeners) listener();
    });
  }

  async start(): Promise<void> {
    const api = this.api;
    this.lifetime.add(
      subscription(api.on['session:events']((payload) => this.applyEntries(payload.sessionId, payload.entries, payload.drafts))),
    );
    this.lifetime.add(subscription(api.on['trust:changed']((payload) => this.set((state) => ({ ...state, grants: payload.grants })))));
    this.lifetime.add(subscription(api.on['folder-trust:changed']((list) => this.set((state) => ({ ...state, folderTrust: list })))));
    this.lifetime.add(subscription(api.on['updates:changed']((updates) => this.setUpdates(updates))));
    this.lifetime.add(subscription(api.on['model:checked']((payload) => this.putCheck(payload.check))));
    this.lifetime.add(
      subscription(
        api.on['launch:opened']((payload) => {
          if (this.started) void this.showLaunched(payload);
          else this.launchedEarly = payload;
        }),
      ),
    );
    this.lifetime.add(
      subscription(
        api.on['session:changed']((payload) => {
          if ('deletedSessionId' in payload) this.removeSession(payload.deletedSessionId);
          else this.upsertSession(payload.session);
        }),
      ),
    );
    try {
      const info = await this.call('app:info', {});
      this.set((state) => ({ ...state, info }));
      if (info.startupError) return;
      const [sessions, providers, settings, grants, checks] = await Promise.all([
        this.call('session:list', {}),
        this.call('provider:list', {}),
        this.call('settings:get', {}),
        this.call('trust:list', {}),
        this.call('model:checks', {}),
      ]);
      this.set((state) => ({ ...state, sessions, providers, settings, grants, checks }));
      this.checkAllEndpoints();
      const first = sessions[0];
      if (first) await this.select(first.id);
    } catch (error) {
      this.set((state) => ({ ...state, loadError: errorMessage(error) }));
    } finally {
      this.started = true;
      const launched = this.launchedEarly;
      this.launchedEarly = null;
      if (launched) await this.showLaunched(launched);
    }
  }

  /** Shows the session a folder or a session file given from outside opened as, or says why it could not be opened. */
  private async showLaunched(launched: EventPayload<'launch:opened'>): Promise<void> {
    if ('error' in launched) {
      this.notify({ kind: 'error', text: `${launched.path} could not be opened: ${launched.error.message}` });
      return;
    }
    this.upsertSession(launched.session);
    await this.select(launched.session.id);
  }

  /** Stops listening to main and cancels the frame it waits for; the state is no longer announced. */
  dispose(): Promise<void> {
    return this.lifetime.dispose();
  }

  setDraft(sessionId: string, text: string | null): void {
    this.set((state) => {
      const { [sessionId]: _old, ...rest } = state.drafts;
      return { ...state, drafts: text === null ? rest : { ...rest, [sessionId]: text } };
    });
  }

  /** Asks a session's message box to point at a workspace file; null: the box took what was asked. */
  mention(sessionId: string, path: string | null): void {
    this.set((state) => {
      const { [sessionId]: asked = [], ...rest } = state.mentions;
      return { ...state, mentions: path === null ? rest : { ...rest, [sessionId]: [...asked, path] } };
    });
  }

  /** Opens the restore of a checkpoint in the history (null: the request was taken). */
  requestRestore(request: AppState['restoreRequest']): void {
    this.set((state) => ({ ...state, restoreRequest: request }));
  }

  /** Opens a session's or a turn's changes in the Changes tab (null: the request was taken). */
  requestChanges(request: AppState['changesRequest']): void {
    this.set((state) => ({ ...state, changesRequest: request }));
  }

  /** Changes the sessions list's search or its folded groups. */
  setSessionList(change: Partial<AppState['sessionList']>): void {
    this.set((state) => ({ ...state, sessionList: { ...state.sessionList, ...change } }));
  }

  notify(notice: Notice | null): void {
    this.set((state) => ({ ...state, notice }));
  }

  /** Runs an action and shows its error in place instead of throwing. */
  async attempt<T>(action: () => Promise<T>): Promise<T | undefined> {
    try {
      return await action();
    } catch (error) {
      this.notify({ kind: 'error', text: errorMessage(error) });
      return undefined;
    }
  }

  async select(sessionId: string): Promise<void> {
    this.set((state) => ({ ...state, selectedId: sessionId, notice: null }));
    if (this.state.views[sessionId] || this.opening.has(sessionId)) return;
    await this.reload(sessionId);
  }

  /**
   * Reads a session's shown line again from main: after another branch is shown, a message is
   * edited, a turn retried or a checkpoint restored. Entries that arrive meanwhile are kept and
   * folded in after.
   */
  async reload(sessionId: string): Promise<void> {
    if (this.opening.has(sessionId)) return;
    this.opening.add(sessionId);
    const show = (opened: { entries: readonly JournalEntry[]; branchPoints: readonly BranchPoint[]; complete: boolean }): void => {
      const view = reduceSessionView(reduceSessionView(emptySessionView, opened.entries), this.early.get(sessionId) ?? []);
      this.set((state) => ({
        ...state,
        views: { ...state.views, [sessionId]: view },
        branchPoints: { ...state.branchPoints, [sessionId]: opened.branchPoints },
        partial: { ...state.partial, [sessionId]: !opened.complete },
      }));
      // A line read again follows a restore, a version shown or a message edited: what its files are is read again too.
      this.noteFilesChanged([sessionId]);
    };
    try {
      // A long session paints its last turns first; the whole line follows at once.
      const recent = await this.attempt(() => this.call('session:open', { sessionId, recentTurns: recentTurnsFirst }));
      if (!recent) return;
      show(recent);
      this.upsertSession(recent.session);
      if (recent.complete) return;
      const whole = await this.attempt(() => this.call('session:open', { sessionId }));
      if (whole) show(whole);
    } finally {
      this.opening.delete(sessionId);
      this.early.delete(sessionId);
    }
  }

  /** A new session: in `workspacePath`, in no folder for null, or (not given) in the last folder used. */
  async createSession(workspacePath?: string | null): Promise<void> {
    const session = await this.attempt(() => this.call('session:create', workspacePath === undefined ? {} : { workspacePath }));
    if (!session) return;
    this.upsertSession(session);
    this.set((state) => ({ ...state, views: { ...state.views, [session.id]: emptySessionView } }));
    await this.select(session.id);
  }

  async refreshProviders(): Promise<void> {
    const [providers, settings, checks] = await Promise.all([
      this.call('provider:list', {}),
      this.call('settings:get', {}),
      this.call('model:checks', {}),
    ]);
    // Endpoints may have changed address or key: what they answered before no longer counts.
    this.endpointChecks.clear();
    this.set((state) => ({ ...state, providers, settings, checks, endpoints: {} }));
    this.checkAllEndpoints();
  }

  /** Asks every endpoint for its models, in the background: pickers, Send and the setup all read the answers. */
  private checkAllEndpoints(): void {
    for (const provider of this.state.providers) void this.checkEndpoint(provider.id);
  }

  /**
   * Asks an endpoint for its models, once: the answer is kept until `again` or until endpoints change. While asking,
   * the endpoint shows as being checked.
   */
  checkEndpoint(providerId: string, again = false): Promise<EndpointState> {
    return this.endpointChecks.check(providerId, again);
  }

  /** Saves a session's endpoint and model (an empty model picks only the endpoint); answers the session as saved. */
  async setSessionModel(sessionId: string, model: SessionModel): Promise<Session | undefined> {
    const updated = await this.attempt(() => this.call('session:setModel', { sessionId, model }));
    if (updated) this.upsertSession(updated);
    return updated;
  }

  /** Keeps a model's newest check in place of the one before. */
  putCheck(check: ModelCheck): void {
    this.set((state) => ({
      ...state,
      checks: [check, ...state.checks.filter((known) => known.providerId !== check.providerId || known.model !== check.model)],
    }));
  }

  setSettings(settings: Settings): void {
    this.set((state) => ({ ...state, settings }));
  }

  setUpdates(updates: UpdatesView): void {
    this.set((state) => ({ ...state, updates }));
  }

  upsertSession(session: Session): void {
    this.set((state) => {
      const others = state.sessions.filter((existing) => existing.id !== session.id);
      const sessions = [session, ...others].sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1));
      return { ...state, sessions };
    });
  }

  private removeSession(sessionId: string): void {
    this.set((state) => {
      // Everything kept by session goes with it, or a long life of the window keeps every deleted session's part.
      const { [sessionId]: _view, ...views } = state.views;
      const { [sessionId]: _points, ...branchPoints } = state.branchPoints;
      const { [sessionId]: _partial, ...partial } = state.partial;
      const { [sessionId]: _draft, ...drafts } = state.drafts;
      const { [sessionId]: _files, ...filesChanged } = state.filesChanged;
      // Its sub-agents go with it; the next one shown is a session of the person's, never a sub-agent's.
      const gone = (session: Session): boolean => session.id === sessionId || session.subAgent?.parentSessionId === sessionId;
      const sessions = state.sessions.filter((session) => !gone(session));
      const selectedGone = state.sessions.some((session) => session.id === state.selectedId && gone(session));
      const selectedId = selectedGone ? (sessions.find((session) => !session.subAgent)?.id ?? null) : state.selectedId;
      return { ...state, sessions, views, branchPoints, partial, drafts, filesChanged, selectedId };
    });
    const next = this.state.selectedId;
    if (next && !this.state.views[next]) void this.select(next);
  }

  /**
   * Says that the files of these sessions' workspaces changed, so what shows them reads them again. Changes the journal
   * records (the agent's, restores, reverts) are noted as their events arrive.
   */
  noteFilesChanged(sessionIds: readonly string[]): void {
    if (sessionIds.length === 0) return;
    this.set((state) => {
      const filesChanged = { ...state.filesChanged };
      for (const sessionId of sessionIds) filesChanged[sessionId] = (filesChanged[sessionId] ?? 0) + 1;
      return { ...state, filesChanged };
    });
  }

  /** Says that files changed in a workspace folder from outside a session's journal (a file put back from the trash). */
  noteWorkspaceChanged(workspacePath: string): void {
    this.noteFilesChanged(this.state.sessions.filter((session) => session.workspacePath === workspacePath).map((session) => session.id));
  }

  /** Runs an action that changes which line of a session is shown, then shows it. */
  async changeLine<T>(sessionId: string, action: () => Promise<T>): Promise<T | undefined> {
    // What was restored before is no longer news on another version; a restore this action makes is.
    this.markRestore(sessionId, null);
    const result = await this.attempt(action);
    if (result !== undefined) await this.reload(sessionId);
    return result;
  }

  /** Remembers the restore just made in a session (or forgets it): see `freshRestores`. */
  private markRestore(sessionId: string, restoreId: string | null): void {
    if ((this.state.freshRestores[sessionId] ?? null) === restoreId) return;
    this.set((state) => {
      const { [sessionId]: _dropped, ...others } = state.freshRestores;
      return { ...state, freshRestores: restoreId === null ? others : { ...others, [sessionId]: restoreId } };
    });
  }

  /** Drafts of tool calls are folded after the entries they came with; while a session opens they are let go (the finished calls follow). */
  private applyEntries(sessionId: string, entries: readonly JournalEntry[], drafts: readonly ToolCallDraftEvent[] = []): void {
    let restoredHere = false;
    for (const { event } of entries) {
      if (event.type === 'files_restored') {
        this.markRestore(sessionId, event.restoreId);
        restoredHere = true;
        // A turn that starts makes an earlier restore old news; not the one it opens with (an edit that put files back).
      } else if (event.type === 'run_started' && !restoredHere) this.markRestore(sessionId, null);
    }
    const view = this.state.views[sessionId];
    if (!view || this.opening.has(sessionId)) {
      // A session that is not open is read whole from the journal when it is opened.
      if (!this.opening.has(sessionId)) return;
      const buffered = this.early.get(sessionId) ?? [];
      buffered.push(...entries);
      this.early.set(sessionId, buffered);
      return;
    }
    const next = applyToolCallDrafts(reduceSessionView(view, entries), drafts);
    this.set((state) => ({ ...state, views: { ...state.views, [sessionId]: next } }));
    if (entries.some(changesFiles)) this.noteFilesChanged([sessionId]);
  }
}

export function useAppState<T>(store: AppStore, select: (state: AppState) => T): T {
  return useSyncExternalStore(store.subscribe, () => select(store.getState()));
}
