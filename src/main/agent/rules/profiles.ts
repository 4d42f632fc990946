/*
 * Agent profiles: the store's interface, the profile a session's next turn runs with, and the tools it switches
 * off.
 */
import { builtInProfiles, defaultProfileId, type Profile, type ProfileSettings, type SessionProfile } from '../../../shared/profiles';
import { toolGroupOf, type ToolGroup } from '../../../shared/tool-groups';
import type { Tool } from '../ports/tools';

/** Where a profile is saved: for every workspace, or for one. */
export type SavedScope = { readonly scope: 'global' } | { readonly scope: 'workspace'; readonly workspacePath: string };

/**
 * Agent profiles, versioned: `save` of an existing id adds a version and never changes one, so what a turn used can be
 * read back. The built-in profiles are listed with the others and cannot be saved over or deleted.
 */
export interface ProfileStore {
  /** The built-in profiles, the global ones and a workspace's own (for a workspace), each at its newest version. */
  list(workspacePath: string | null): Profile[];
  /** A profile at a version (its newest when not given); null when unknown or deleted. */
  get(id: string, version?: number): Profile | null;
  /** Every version of a profile, newest first. */
  versions(id: string): Profile[];
  /** Creates a profile (no `id`) or adds a version of one. Throws for a built-in or unknown id. */
  save(settings: ProfileSettings, where: SavedScope, id?: string): Profile;
  /** Deletes a profile; its versions stay readable for the turns that used them. */
  remove(id: string): void;
  sessionProfile(sessionId: string): SessionProfile | null;
  setSessionProfile(sessionId: string, profileId: string, toolGroupsOff: readonly ToolGroup[] | null): SessionProfile;
}

/** The profile a turn runs with, at the version it found. */
export interface TurnProfile {
  readonly profile: Profile;
  /** The groups switched off for this session: its own switches, or the profile's. */
  readonly toolGroupsOff: readonly ToolGroup[];
}

/** Whether a profile may be used in a workspace: a workspace's own profile is not used elsewhere. */
const usableIn = (profile: Profile, workspacePath: string | null): boolean =>
  profile.scope !== 'workspace' || profile.workspacePath === workspacePath;

/**
 * The profile a session's next turn runs with: the one chosen for the session, else the default one, else "Code". A
 * profile deleted since it was chosen, or one of another workspace, gives way to the default; the session's own tool
 * switches apply whichever profile it gets.
 */
export function turnProfile(store: ProfileStore, sessionId: string, workspacePath: string | null, defaultId: string | null): TurnProfile {
  const chosen = store.sessionProfile(sessionId);
  const candidates = [chosen?.profileId, defaultId, defaultProfileId];
  let profile: Profile | undefined;
  for (const id of candidates) {
    const found = id ? store.get(id) : null;
    if (found && usableIn(found, workspacePath)) {
      profile = found;
      break;
    }
  }
  const used = profile ?? (builtInProfiles[0] as Profile);
  return { profile: used, toolGroupsOff: chosen?.toolGroupsOff ?? used.toolGroupsOff };
}

/** The names of the tools in groups switched off: not offered, and refused if called. */
export function toolsSwitchedOff(tools: readonly Tool[], off: readonly ToolGroup[]): string[] {
  if (off.length === 0) return [];
  return tools
    .filter((tool) =>
      off.includes(
        toolGroupOf({
          name: tool.name,
          ...(tool.group === undefined ? {} : { group: tool.group }),
          readOnly: tool.baseRisk === 'read_only',
        }),
      ),
    )
    .map((tool) => tool.name);
}
