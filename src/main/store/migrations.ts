import type { Database } from 'better-sqlite3';

/** One schema step. `version` is the `PRAGMA user_version` the database has after it. */
export interface Migration {
  readonly version: number;
  readonly description: string;
  up(db: Database): void;
}

/** The schema, in order. Never edit a shipped migration: add the next one. */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    description: 'sessions and the event journal',
    up(db) {
      db.exec(`
        CREATE TABLE sessions (
          id TEXT PRIMARY KEY,
          title TEXT NOT NULL,
          workspace_path TEXT,
          model_provider_id TEXT,
          model_name TEXT,
          status TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE journal (
          session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
          seq INTEGER NOT NULL,
          at INTEGER NOT NULL,
          format INTEGER NOT NULL,
          type TEXT NOT NULL,
          payload TEXT NOT NULL,
          PRIMARY KEY (session_id, seq)
        ) STRICT, WITHOUT ROWID;
      `);
    },
  },
];

export const latestSchemaVersion = migrations.at(-1)?.version ?? 0;
