/*
 * Sessions as the person makes and changes them: new ones, titles, models, autonomy, workspaces and profiles.
 */
import type { Autonomy, ModelChoice, Session } from '../../../shared/domain';
import type { ToolGroup } from '../../../shared/tool-groups';
import { InvalidInputError, NotFoundError, WorkbenchError } from '../../../shared/errors';
import type { Clock } from '../ports/clock';
import type { WorkspaceInspector } from '../ports/ports';
import type { SessionStore } from '../ports/stores';
import type { SessionJournal } from '../history/session-journal';
import type { ProfileStore } from '../rules/profiles';

/** The title of a session nobody named yet: its first message names it. */
export const defaultTitle = 'New session';

/** A short title from a message: its first line, cut at a word near 60 characters. */
export function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  if (line.length <= 60) return line || defaultTitle;
  const cut = line.slice(0, 60);
  const space = cut.lastIndexOf(' ');
  return `${(space > 30 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** What a new session starts with, as the settings say now. */
export interface SessionDefaults {
  readonly model: ModelChoice | null;
  readonly autonomy: Autonomy;
  /** The profile new sessions start with: it brings its model and autonomy, where it sets them. */
  readonly profileId: string | null;
}

export interface SessionsOptions {
  readonly store: SessionStore;
  readonly journal: SessionJournal;
  readonly clock: Clock;
  readonly newId: () => string;
  readonly workspaces: WorkspaceInspector;
  readonly defaults: () => SessionDefaults;
  /** Whether a model endpoint of this id is configured. */
  readonly providerExists: (providerId: string) => boolean;
  /** Whether a turn of the session runs: its model, workspace and profile stay as they are meanwhile. */
  readonly isBusy: (sessionId: string) => boolean;
  readonly profiles?: ProfileStore;
}

/**
 * Sessions as the person makes and changes them: a new one in the last folder used with the default profile's model
 * and autonomy, its title, model, autonomy, workspace and profile. Every change is announced, and one that the audit
 * must know of (an autonomy changed) is journalled with it, in one transaction.
 */
export class Sessions {
  constructor(private readonly options: SessionsOptions) {}

  /**
   * A new session. No folder given (`undefined`): the last folder used, as long as it is still there; null asks for
   * none. A folder given must be one (`InvalidInputError` otherwise), and nothing is written before it is checked.
   */
  async create(input: {
    readonly title?: string;
    readonly workspacePath?: string | null;
    /** The model and autonomy the session starts with, instead of the defaults (the terminal runner's own). */
    readonly model?: ModelChoice;
    readonly autonomy?: Autonomy;
  }): Promise<Session> {
    const { store, clock, workspaces, journal } = this.options;
    const workspacePath =
      input.workspacePath === null
        ? null
        : input.workspacePath === undefined
          ? await this.lastFolderUsed()
          : await workspaces.resolveFolder(input.workspacePath);
    const defaults = this.options.defaults();
    const starting = defaults.profileId === null ? null : (this.options.profiles?.get(defaults.profileId) ?? null);
    const usable = starting && (starting.scope !== 'workspace' || starting.workspacePath === workspacePath) ? starting : null;
    const session = store.create({
      id: this.options.newId(),
      title: input.title ?? defaultTitle,
      workspacePath,
      model: input.model ?? usable?.model ?? defaults.model,
      autonomy: input.autonomy ?? usable?.autonomy ?? defaults.autonomy,
      createdAt: clock.now(),
    });
    journal.announceSession(session.id);
    return session;
  }

  rename(sessionId: string, title: string): Session {
    this.existing(sessionId);
    return this.options.journal.update(sessionId, { title });
  }

  /** A session still called "New session" is named after its first message, as people expect. */
  nameAfter(sessionId: string, text: string): void {
    if (this.existing(sessionId).title === defaultTitle) this.options.journal.update(sessionId, { title: titleFrom(text) });
  }

  setModel(sessionId: string, model: ModelChoice): Session {
    this.existing(sessionId);
    this.assertIdle(sessionId, 'Stop the running turn before you change the model.');
    if (!this.options.providerExists(model.providerId)) throw new NotFoundError('Provider', model.providerId);
    return this.options.journal.update(sessionId, { model });
  }

  /**
   * A running turn keeps the autonomy it started with; the new level applies from the next turn. A change is journalled
   * with it, so the audit view can say which level decided each call and who changed it.
   */
  setAutonomy(sessionId: string, autonomy: Autonomy): Session {
    const from = this.existing(sessionId).autonomy;
    if (from === autonomy) return this.options.journal.update(sessionId, {});
    return this.options.journal.update(sessionId, { autonomy }, [{ type: 'autonomy_changed', from, to: autonomy }]);
  }

  async setWorkspace(sessionId: string, path: string): Promise<Session> {
    this.assertWorkspaceChangeable(sessionId);
    return this.moveTo(sessionId, path);
  }

  /** Sets the session's workspace to a folder the person picks (checked first); null when they pick none. */
  async pickWorkspace(sessionId: string, pick: () => Promise<string | null>): Promise<Session | null> {
    this.assertWorkspaceChangeable(sessionId);
    const picked = await pick();
    return picked === null ? null : this.moveTo(sessionId, picked);
  }

  /**
   * Chooses the session's profile. Switches given stay; none given keeps the session's own when the profile is the same,
   * and drops them for another. Another profile brings its model and autonomy, where it sets them; a change of autonomy
   * is journalled as one from the status bar is.
   */
  setProfile(sessionId: string, profileId: string, toolGroupsOff: readonly ToolGroup[] | null | undefined): Session {
    const profiles = this.profileStore();
    const session = this.existing(sessionId);
    this.assertIdle(sessionId, 'Stop the running turn first: a profile changes what the turn is.');
    const profile = profiles.get(profileId);
    if (!profile) throw new NotFoundError('Profile', profileId);
    if (profile.scope === 'workspace' && profile.workspacePath !== session.workspacePath)
      throw new InvalidInputError(`The profile ${profile.name} belongs to another workspace.`);
    const current = profiles.sessionProfile(session.id);
    const own = toolGroupsOff !== undefined ? toolGroupsOff : current?.profileId === profile.id ? current.toolGroupsOff : null;
    profiles.setSessionProfile(session.id, profile.id, own);
    if (current?.profileId === profile.id || (!profile.model && !profile.autonomy)) return session;
    const patch = { ...(profile.model ? { model: profile.model } : {}), ...(profile.autonomy ? { autonomy: profile.autonomy } : {}) };
    const changesAutonomy = profile.autonomy !== null && profile.autonomy !== session.autonomy;
    const events =
      changesAutonomy && profile.autonomy ? [{ type: 'autonomy_changed' as const, from: session.autonomy, to: profile.autonomy }] : [];
    return this.options.journal.update(session.id, patch, events);
  }

  private assertWorkspaceChangeable(sessionId: string): void {
    this.existing(sessionId);
    this.assertIdle(sessionId, 'Stop the running turn before you change the workspace.');
  }

  private async moveTo(sessionId: string, path: string): Promise<Session> {
    const folder = await this.options.workspaces.resolveFolder(path);
    return this.options.journal.update(sessionId, { workspacePath: folder });
  }

  private assertIdle(sessionId: string, message: string): void {
    if (this.options.isBusy(sessionId)) throw new WorkbenchError('session_busy', message);
  }

  private profileStore(): ProfileStore {
    if (!this.options.profiles) throw new WorkbenchError('invalid_state', 'Profiles are not kept in this setup.');
    return this.options.profiles;
  }

  private existing(sessionId: string): Session {
    const session = this.options.store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    return session;
  }

  /** The folder of the most recently changed session that has one, when it still exists and is a folder. */
  private async lastFolderUsed(): Promise<string | null> {
    const { store } = this.options;
    const last = store
      .list()
      .filter((session) => session.workspacePath !== null)
      .sort((a, b) => b.updatedAt - a.updatedAt)[0];
    if (!last) return null;
    // A session in a worktree of its own worked for the person's folder: that is the folder used, not the app's copy.
    const made = store.nearest(last.id, 'after', -1, ['worktree_created']);
    const recent = made?.event.type === 'worktree_created' ? made.event.worktree.mainPath : last.workspacePath;
    if (!recent) return null;
    try {
      return await this.options.workspaces.resolveFolder(recent);
    } catch {
      return null;
    }
  }
}
