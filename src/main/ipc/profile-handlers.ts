/*
 * The IPC handlers of agent profiles (saved, versioned, exported and imported) and of the profile and tool groups each
 * session runs with.
 */

import { InvalidInputError, NotFoundError, WorkbenchError } from '../../shared/errors';
import type { Session } from '../../shared/domain';
import type { SessionProfileView } from '../../shared/ipc/profile-channels';
import { profileFileText, readProfileFile, type Profile } from '../../shared/profiles';
import type { SessionRuntime } from '../agent/session/session-runtime';
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
  readonly runtime: SessionRuntime;
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
  const { profiles, store, settings } = deps;
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
    'session:setProfile': (input) => view(deps.runtime.sessions.setProfile(input.sessionId, input.profileId, input.toolGroupsOff)),
  };
}
