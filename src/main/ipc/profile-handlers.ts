import { InvalidInputError, NotFoundError, WorkbenchError } from '../../shared/errors';
import type { Session } from '../../shared/domain';
import type { JournalEntry } from '../../shared/events';
import type { SessionProfileView } from '../../shared/ipc/profile-channels';
import { profileFileText, readProfileFile, type Profile } from '../../shared/profiles';
import type { Clock } from '../agent/ports/clock';
import { turnProfile, type ProfileStore, type SavedScope } from '../agent/rules/profiles';
import type { SettingsStore } from '../agent/ports/settings';
import type { SessionStore } from '../agent/ports/stores';
import type { Handlers } from './router';

type ProfileChannel =
  | 'profile:list'
  | 'profile:versions'
  | 'profile:save'
  | 'profile:delete'
  | 'profile:export'
  | 'profile:import'
  | 'session:profile'
  | 'session:setProfile';

export interface ProfileHandlerDependencies {
  readonly profiles: ProfileStore;
  readonly store: SessionStore;
  readonly settings: SettingsStore;
  readonly clock: Clock;
  /** Refuses while the session's turn runs: a profile changes what the turn is. */
  readonly assertIdle: (sessionId: string) => void;
  readonly changed: (session: Session) => Session;
  /** Announces journal entries written here. */
  readonly onEntries: (sessionId: string, entries: readonly JournalEntry[]) => void;
}

const scopeOf = (input: { scope: 'global' | 'workspace'; workspacePath: string | null }): SavedScope => {
  if (input.scope === 'global') return { scope: 'global' };
  if (!input.workspacePath)
    throw new InvalidInputError('A profile for this workspace needs a workspace: open a folder, or save it for every workspace.');
  return { scope: 'workspace', workspacePath: input.workspacePath };
};

const fileNameOf = (profile: Profile): string =>
  `${
    profile.name
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .toLowerCase() || 'profile'
  }.profile.json`;

/** The handlers of agent profiles and of each session's profile. */
export function profileHandlers(deps: ProfileHandlerDependencies): Pick<Handlers, ProfileChannel> {
  const { profiles, store, settings, clock } = deps;
  const sessionOf = (sessionId: string): Session => {
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    return session;
  };
  const view = (session: Session): SessionProfileView => {
    const used = turnProfile(profiles, session.id, session.workspacePath, settings.get().defaultProfileId);
    const own = profiles.sessionProfile(session.id)?.toolGroupsOff ?? null;
    return {
      profileId: used.profile.id,
      name: used.profile.name,
      version: used.profile.version,
      toolGroupsOff: [...used.toolGroupsOff],
      ownToolGroups: own !== null,
    };
  };
  return {
    'profile:list': (input) => profiles.list(input.workspacePath),
    'profile:versions': (input) => {
      const versions = profiles.versions(input.profileId);
      if (versions.length === 0) throw new NotFoundError('Profile', input.profileId);
      return versions;
    },
    'profile:save': (input) => profiles.save(input.settings, scopeOf(input), input.profileId),
    'profile:delete': (input) => {
      if (settings.get().defaultProfileId === input.profileId)
        throw new WorkbenchError('invalid_state', 'This is the profile new sessions start with: choose another default first.');
      profiles.remove(input.profileId);
      return { deleted: true as const };
    },
    'profile:export': (input) => {
      const profile = profiles.get(input.profileId, input.version);
      if (!profile)
        throw new NotFoundError('Profile', input.version === undefined ? input.profileId : `${input.profileId} v${input.version}`);
      return { fileName: fileNameOf(profile), document: profileFileText(profile) };
    },
    'profile:import': (input) => {
      const read = readProfileFile(input.document);
      if (!read.ok) throw new InvalidInputError(read.message);
      return profiles.save(read.settings, scopeOf(input));
    },
    'session:profile': (input) => view(sessionOf(input.sessionId)),
    'session:setProfile': (input) => {
      const session = sessionOf(input.sessionId);
      deps.assertIdle(input.sessionId);
      const profile = profiles.get(input.profileId);
      if (!profile) throw new NotFoundError('Profile', input.profileId);
      if (profile.scope === 'workspace' && profile.workspacePath !== session.workspacePath)
        throw new InvalidInputError(`The profile ${profile.name} belongs to another workspace.`);
      const current = profiles.sessionProfile(session.id);
      // Switches given stay; none given keeps the session's own when the profile is the same, and drops them for another.
      const own =
        input.toolGroupsOff !== undefined ? input.toolGroupsOff : current?.profileId === profile.id ? current.toolGroupsOff : null;
      profiles.setSessionProfile(session.id, profile.id, own);
      if (current?.profileId !== profile.id && (profile.model || profile.autonomy)) {
        const patch = { ...(profile.model ? { model: profile.model } : {}), ...(profile.autonomy ? { autonomy: profile.autonomy } : {}) };
        const changesAutonomy = profile.autonomy !== null && profile.autonomy !== session.autonomy;
        // A change of autonomy is journalled as one from the status bar is: the audit lists it.
        const { updated, entries } = store.transaction(() => ({
          updated: store.update(session.id, patch, clock.now()),
          entries:
            changesAutonomy && profile.autonomy
              ? store.append(session.id, [{ type: 'autonomy_changed', from: session.autonomy, to: profile.autonomy }], clock.now())
              : [],
        }));
        if (entries.length > 0) deps.onEntries(session.id, entries);
        return view(deps.changed(updated));
      }
      return view(session);
    },
  };
}
