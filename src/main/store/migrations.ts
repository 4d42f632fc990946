/*
 * The database's schema as numbered steps, oldest first: a shipped step is never edited, the next one is added.
 */

import { firstMigrations, type Migration } from './migrations-first';

export type { Migration } from './migrations-first';

/** The schema, in order. Never edit a shipped migration: add the next one. */
export const migrations: readonly Migration[] = [
  ...firstMigrations,
  {
    version: 11,
    description: 'archived sessions: deleting a session archives it, to be restored or purged later',
    up(db) {
      db.exec(`
        -- NULL for a session in the list; when set, the session was deleted then and is kept until it is purged.
        ALTER TABLE sessions ADD COLUMN archived_at INTEGER;
        CREATE INDEX sessions_archived ON sessions (archived_at) WHERE archived_at IS NOT NULL;
      `);
    },
  },
  {
    version: 12,
    description: 'agent profiles, one row per version, and the profile each session uses',
    up(db) {
      db.exec(`
        -- Editing a profile adds a version; no version is ever changed, so a turn's recorded version can be read back.
        CREATE TABLE profiles (
          id TEXT NOT NULL,
          version INTEGER NOT NULL,
          scope TEXT NOT NULL,
          workspace_path TEXT,
          settings TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          deleted_at INTEGER,
          PRIMARY KEY (id, version)
        ) STRICT, WITHOUT ROWID;
        -- tool_groups_off: the session's own switches (JSON), NULL to use the profile's.
        CREATE TABLE session_profiles (
          session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
          profile_id TEXT NOT NULL,
          tool_groups_off TEXT
        ) STRICT;
      `);
    },
  },
  {
    version: 13,
    description: 'the newest budget answer of a line found without walking the line',
    up(db) {
      db.exec(`
        -- Every turn start reads the session allowance from the newest budget_answered row of the line; the type is rare,
        -- so walking journal_branch for it passes every row of the line. Partial: no other append writes to it.
        CREATE INDEX journal_budget_answered ON journal (session_id, branch, seq) WHERE type = 'budget_answered';
      `);
    },
  },
  {
    version: 14,
    description: 'the prompt tokens of a model call that a server read from its cache, and wrote to it',
    up(db) {
      db.exec(`
        -- Both are part of input_tokens. NULL where the server did not say, as for every call recorded before.
        ALTER TABLE model_calls ADD COLUMN cache_read_tokens INTEGER;
        ALTER TABLE model_calls ADD COLUMN cache_write_tokens INTEGER;
      `);
    },
  },
  {
    version: 15,
    description: 'sub-agents: a session linked to the session and tool call that handed it its brief',
    up(db) {
      db.exec(`
        -- A sub-agent's session goes with its parent's; its link (depth, tools, bounds) is JSON read through its schema.
        ALTER TABLE sessions ADD COLUMN parent_session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE;
        ALTER TABLE sessions ADD COLUMN sub_agent TEXT;
        CREATE INDEX sessions_parent ON sessions (parent_session_id) WHERE parent_session_id IS NOT NULL;
      `);
    },
  },
  {
    version: 16,
    description: "steady time for deadlines, and each timed grant's end on it",
    up(db) {
      db.exec(`
        -- One row: where steady time stood and the wall clock's time then. Steady time starts at the wall clock's
        -- time, so a grant kept from before ends on it where its wall-clock end said.
        CREATE TABLE steady_time (id INTEGER PRIMARY KEY CHECK (id = 1), steady INTEGER NOT NULL, wall INTEGER NOT NULL) STRICT;
        ALTER TABLE trust_grants ADD COLUMN deadline INTEGER;
        UPDATE trust_grants SET deadline = expires_at WHERE expires_at IS NOT NULL;
      `);
    },
  },
  {
    version: 17,
    description: "checkpoints without the index by step number: one page fewer in each step's commit",
    up(db) {
      db.exec(`
        -- A restore finds the steps since the last segment by walking parents, as every other read of a chain does.
        DROP INDEX checkpoints_seq;
      `);
    },
  },
];

export const latestSchemaVersion = migrations.at(-1)?.version ?? 0;
