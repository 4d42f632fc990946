/*
 * Agent profiles in SQLite, one row per version, and the profile each session uses.
 */

import type { Database, Statement } from 'better-sqlite3';
import { z } from 'zod';
import { InvalidInputError, NotFoundError } from '../../shared/errors';
import { builtInProfiles, profileSettingsSchema, type Profile, type ProfileSettings, type SessionProfile } from '../../shared/profiles';
import { toolGroupSchema, type ToolGroup } from '../../shared/tool-groups';
import type { Clock } from '../agent/ports/clock';
import { newId } from '../agent/ports/ids';
import type { ProfileStore, SavedScope } from '../agent/rules/profiles';

interface ProfileRow {
  id: string;
  version: number;
  scope: string;
  workspace_path: string | null;
  settings: string;
  created_at: number;
  deleted_at: number | null;
}

const groupsSchema = z.array(toolGroupSchema);

function toProfile(row: ProfileRow): Profile {
  return {
    ...profileSettingsSchema.parse(JSON.parse(row.settings)),
    id: row.id,
    version: row.version,
    scope: row.scope === 'workspace' ? 'workspace' : 'global',
    workspacePath: row.workspace_path,
    createdAt: row.created_at,
  };
}

const builtIn = (id: string): Profile | undefined => builtInProfiles.find((profile) => profile.id === id);

/** Profiles in SQLite, one row per version; the built-in ones live in the code and are listed first. */
export class SqliteProfileStore implements ProfileStore {
  private readonly statements: {
    latest: Statement<[string], ProfileRow>;
    version: Statement<[string, number], ProfileRow>;
    versions: Statement<[string], ProfileRow>;
    listed: Statement<[string], ProfileRow>;
    insert: Statement<Omit<ProfileRow, 'deleted_at'>>;
    remove: Statement<[number, string]>;
    session: Statement<[string], { session_id: string; profile_id: string; tool_groups_off: string | null }>;
    setSession: Statement<[string, string, string | null]>;
  };

  constructor(
    private readonly db: Database,
    private readonly clock: Pick<Clock, 'now'>,
  ) {
    const newest = 'version = (SELECT MAX(version) FROM profiles AS newer WHERE newer.id = profiles.id)';
    this.statements = {
      latest: db.prepare(`SELECT * FROM profiles WHERE id = ? AND ${newest}`),
      version: db.prepare('SELECT * FROM profiles WHERE id = ? AND version = ?'),
      versions: db.prepare('SELECT * FROM profiles WHERE id = ? ORDER BY version DESC'),
      listed: db.prepare(
        `SELECT * FROM profiles WHERE deleted_at IS NULL AND ${newest} AND (scope = 'global' OR workspace_path = ?) ORDER BY created_at, id`,
      ),
      insert: db.prepare(
        'INSERT INTO profiles (id, version, scope, workspace_path, settings, created_at) VALUES (@id, @version, @scope, @workspace_path, @settings, @created_at)',
      ),
      remove: db.prepare('UPDATE profiles SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL'),
      session: db.prepare('SELECT * FROM session_profiles WHERE session_id = ?'),
      setSession: db.prepare(
        'INSERT INTO session_profiles (session_id, profile_id, tool_groups_off) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET profile_id = excluded.profile_id, tool_groups_off = excluded.tool_groups_off',
      ),
    };
  }

  list(workspacePath: string | null): Profile[] {
    // A path no workspace has: only the global ones match.
    return [...builtInProfiles, ...this.statements.listed.all(workspacePath ?? '\u0000').map(toProfile)];
  }

  get(id: string, version?: number): Profile | null {
    const fixed = builtIn(id);
    if (fixed) return version === undefined || version === fixed.version ? fixed : null;
    const row = version === undefined ? this.statements.latest.get(id) : this.statements.version.get(id, version);
    if (!row || (version === undefined && row.deleted_at !== null)) return null;
    return toProfile(row);
  }

  versions(id: string): Profile[] {
    const fixed = builtIn(id);
    if (fixed) return [fixed];
    return this.statements.versions.all(id).map(toProfile);
  }

  save(settings: ProfileSettings, where: SavedScope, id?: string): Profile {
    if (id !== undefined && builtIn(id)) throw new InvalidInputError('A built-in profile cannot be changed: copy it, and change the copy.');
    const parsed = profileSettingsSchema.parse(settings);
    const now = this.clock.now();
    return this.db.transaction((): Profile => {
      const current = id === undefined ? undefined : this.statements.latest.get(id);
      if (id !== undefined && (!current || current.deleted_at !== null)) throw new NotFoundError('Profile', id);
      const row = {
        id: id ?? `profile:${newId(now)}`,
        version: (current?.version ?? 0) + 1,
        // A new version stays where the profile is: moving one between workspaces would change which sessions see it.
        scope: current?.scope ?? where.scope,
        workspace_path: current ? current.workspace_path : where.scope === 'workspace' ? where.workspacePath : null,
        settings: JSON.stringify(parsed),
        created_at: now,
      };
      this.statements.insert.run(row);
      return toProfile({ ...row, deleted_at: null });
    })();
  }

  remove(id: string): void {
    if (builtIn(id)) throw new InvalidInputError('A built-in profile cannot be deleted.');
    if (this.statements.remove.run(this.clock.now(), id).changes === 0) throw new NotFoundError('Profile', id);
  }

  sessionProfile(sessionId: string): SessionProfile | null {
    const row = this.statements.session.get(sessionId);
    if (!row) return null;
    const groups = row.tool_groups_off === null ? null : groupsSchema.safeParse(JSON.parse(row.tool_groups_off));
    return { sessionId, profileId: row.profile_id, toolGroupsOff: groups === null ? null : groups.success ? groups.data : null };
  }

  setSessionProfile(sessionId: string, profileId: string, toolGroupsOff: readonly ToolGroup[] | null): SessionProfile {
    this.statements.setSession.run(sessionId, profileId, toolGroupsOff === null ? null : JSON.stringify([...new Set(toolGroupsOff)]));
    return { sessionId, profileId, toolGroupsOff: toolGroupsOff === null ? null : [...new Set(toolGroupsOff)] };
  }
}
