/*
 * The schema's first ten steps, as they shipped: a shipped step is never edited. The later steps, and the list the
 * database is opened with, are in migrations.ts.
 */

import type { Database } from 'better-sqlite3';

/** One schema step. `version` is the `PRAGMA user_version` the database has after it. */
export interface Migration {
  readonly version: number;
  readonly description: string;
  up(db: Database): void;
}

/** Steps 1 to 10, in order. */
export const firstMigrations: readonly Migration[] = [
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
  {
    version: 2,
    description: 'autonomy per session, trust grants, and accounting of model and tool calls',
    up(db) {
      db.exec(`
        ALTER TABLE sessions ADD COLUMN autonomy TEXT NOT NULL DEFAULT 'L1';
        CREATE TABLE trust_grants (
          id TEXT PRIMARY KEY,
          tool TEXT NOT NULL,
          pattern TEXT NOT NULL,
          workspace_path TEXT,
          max_risk TEXT NOT NULL,
          session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          expires_at INTEGER,
          revoked_at INTEGER,
          description TEXT NOT NULL
        ) STRICT;
        CREATE INDEX trust_grants_tool ON trust_grants (tool, revoked_at);
        CREATE TABLE model_calls (
          id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
          turn_id TEXT NOT NULL,
          provider_id TEXT NOT NULL,
          provider_kind TEXT NOT NULL,
          model TEXT NOT NULL,
          input_tokens INTEGER NOT NULL,
          output_tokens INTEGER NOT NULL,
          latency_ms REAL NOT NULL,
          cost_usd REAL,
          status TEXT NOT NULL,
          at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX model_calls_session ON model_calls (session_id);
        CREATE TABLE tool_calls (
          id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
          turn_id TEXT NOT NULL,
          tool TEXT NOT NULL,
          input TEXT NOT NULL,
          output TEXT NOT NULL,
          output_bytes INTEGER NOT NULL,
          output_truncated INTEGER NOT NULL,
          status TEXT NOT NULL,
          latency_ms REAL NOT NULL,
          at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX tool_calls_session ON tool_calls (session_id);
      `);
    },
  },
  {
    version: 3,
    description: 'checkpoints: what each step changed, chained by parent and hash',
    up(db) {
      db.exec(`
        CREATE TABLE checkpoints (
          thread_id TEXT NOT NULL,
          id TEXT NOT NULL,
          parent_id TEXT,
          seq INTEGER NOT NULL,
          format INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          metadata TEXT NOT NULL,
          appended TEXT NOT NULL,
          state TEXT,
          hash TEXT NOT NULL
        ) STRICT;
        CREATE UNIQUE INDEX checkpoints_ref ON checkpoints (thread_id, id);
        CREATE INDEX checkpoints_seq ON checkpoints (thread_id, seq);
        -- Every 64 steps, the messages of those steps joined into one segment that points at the
        -- segment before it, so a restore reads a few long strings instead of one row per step.
        CREATE TABLE checkpoint_segments (
          thread_id TEXT NOT NULL,
          end_id TEXT NOT NULL,
          previous_end_id TEXT,
          start_seq INTEGER NOT NULL,
          end_seq INTEGER NOT NULL,
          content TEXT NOT NULL,
          state TEXT NOT NULL,
          crc INTEGER NOT NULL,
          PRIMARY KEY (thread_id, end_id)
        ) STRICT;
        CREATE TABLE checkpoint_writes (
          thread_id TEXT NOT NULL,
          checkpoint_id TEXT NOT NULL,
          task_id TEXT NOT NULL,
          idx INTEGER NOT NULL,
          channel TEXT NOT NULL,
          value TEXT NOT NULL,
          PRIMARY KEY (thread_id, checkpoint_id, task_id, idx)
        ) STRICT;
      `);
    },
  },
  {
    version: 4,
    description: 'branches: each journal row belongs to one, and a session shows one at a time',
    up(db) {
      db.exec(`
        ALTER TABLE journal ADD COLUMN branch TEXT NOT NULL DEFAULT 'main';
        ALTER TABLE sessions ADD COLUMN active_branch TEXT NOT NULL DEFAULT 'main';
        -- A branch continues its parent's journal after the parent's row fork_seq, from checkpoint_id.
        CREATE TABLE branches (
          session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
          id TEXT NOT NULL,
          parent_id TEXT,
          fork_seq INTEGER NOT NULL,
          checkpoint_id TEXT,
          reason TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          active_at INTEGER NOT NULL,
          PRIMARY KEY (session_id, id)
        ) STRICT;
        INSERT INTO branches (session_id, id, parent_id, fork_seq, checkpoint_id, reason, created_at, active_at)
          SELECT id, 'main', NULL, -1, NULL, 'start', created_at, updated_at FROM sessions;
        CREATE INDEX journal_branch ON journal (session_id, branch, seq);
      `);
    },
  },
  {
    version: 5,
    description: 'file snapshots for time travel: content-addressed blobs and manifests that store what changed',
    up(db) {
      db.exec(`
        CREATE TABLE file_blobs (
          hash TEXT PRIMARY KEY,
          size INTEGER NOT NULL,
          data BLOB NOT NULL
        ) STRICT, WITHOUT ROWID;
        -- A manifest is the whole file list (base_id NULL) or the changes from the snapshot base_id.
        CREATE TABLE file_snapshots (
          id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
          workspace_path TEXT NOT NULL,
          kind TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          base_id TEXT,
          depth INTEGER NOT NULL,
          truncated INTEGER NOT NULL,
          manifest TEXT NOT NULL
        ) STRICT;
        CREATE INDEX file_snapshots_session ON file_snapshots (session_id, id);
      `);
    },
  },
  {
    version: 6,
    description: 'checkpoint segments hold whole JSON arrays as UTF-8 bytes; the old ones are dropped and written again while idle',
    up(db) {
      db.exec(`
        DROP TABLE checkpoint_segments;
        CREATE TABLE checkpoint_segments (
          thread_id TEXT NOT NULL,
          end_id TEXT NOT NULL,
          previous_end_id TEXT,
          start_seq INTEGER NOT NULL,
          end_seq INTEGER NOT NULL,
          content BLOB NOT NULL,
          state TEXT NOT NULL,
          crc INTEGER NOT NULL,
          PRIMARY KEY (thread_id, end_id)
        ) STRICT;
      `);
    },
  },
  {
    version: 7,
    description: 'where a session stands (its head) on its row, and journal rows found by the id they introduce or by their kind',
    up(db) {
      db.exec(`
        -- The id an event introduces (a message, a turn, a checkpoint, a restore), so its row is found without a scan.
        ALTER TABLE journal ADD COLUMN ref TEXT;
        -- A damaged row keeps no id: reading it still says it is damaged, and the database opens.
        UPDATE journal SET ref = CASE WHEN json_valid(payload) THEN CASE type
          WHEN 'user_message' THEN json_extract(payload, '$.messageId')
          WHEN 'run_started' THEN json_extract(payload, '$.turnId')
          WHEN 'checkpoint_saved' THEN json_extract(payload, '$.checkpointId')
          WHEN 'files_restored' THEN json_extract(payload, '$.restoreId')
        END END;
        CREATE INDEX journal_ref ON journal (session_id, ref) WHERE ref IS NOT NULL;
        -- A line's rows in order, with their kind beside them: the nearest row of a kind before or
        -- after a point (a checkpoint, a message, a file snapshot) is found by walking this index
        -- alone, without reading the rows it passes, and no new index costs every append a write.
        DROP INDEX journal_branch;
        CREATE INDEX journal_branch ON journal (session_id, branch, seq, type);
        -- Where the session's shown line stands (its head), updated with every append; a branch's row
        -- keeps the head of its line while another is shown. head_format 0 means not computed yet:
        -- it is replayed from the journal once, on first use.
        ALTER TABLE sessions ADD COLUMN head_checkpoint TEXT;
        ALTER TABLE sessions ADD COLUMN open_turn TEXT;
        ALTER TABLE sessions ADD COLUMN queued TEXT;
        ALTER TABLE sessions ADD COLUMN resume TEXT;
        ALTER TABLE sessions ADD COLUMN last_seq INTEGER NOT NULL DEFAULT -1;
        ALTER TABLE sessions ADD COLUMN head_format INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE branches ADD COLUMN head_checkpoint TEXT;
        ALTER TABLE branches ADD COLUMN open_turn TEXT;
        ALTER TABLE branches ADD COLUMN queued TEXT;
        ALTER TABLE branches ADD COLUMN resume TEXT;
        ALTER TABLE branches ADD COLUMN last_seq INTEGER NOT NULL DEFAULT -1;
        ALTER TABLE branches ADD COLUMN head_format INTEGER NOT NULL DEFAULT 0;
        -- Nothing wrote pending writes: a step's writes land in its own transaction.
        DROP TABLE checkpoint_writes;
      `);
    },
  },
  {
    version: 8,
    description: 'what a check of each model found (the model doctor)',
    up(db) {
      db.exec(`
        CREATE TABLE model_checks (
          provider_id TEXT NOT NULL,
          model TEXT NOT NULL,
          checked_at INTEGER NOT NULL,
          report TEXT NOT NULL,
          PRIMARY KEY (provider_id, model)
        ) STRICT, WITHOUT ROWID;
      `);
    },
  },
  {
    version: 9,
    description: 'the escalation a trust grant covers (network access, no sandbox), when the person trusted one explicitly',
    up(db) {
      db.exec(`
        -- NULL for every grant made before: they were made at ordinary gates and cover no escalation.
        ALTER TABLE trust_grants ADD COLUMN escalation TEXT;
      `);
    },
  },
  {
    version: 10,
    description: 'memories with full-text search, and the system prompts model calls were sent',
    up(db) {
      db.exec(`
        -- A memory outlives the session that wrote it: session_id is where it came from, not an owner.
        -- The integer key is the full-text index's rowid, which VACUUM keeps only when it is declared.
        CREATE TABLE memories (
          n INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          scope TEXT NOT NULL,
          text TEXT NOT NULL,
          source TEXT NOT NULL,
          session_id TEXT,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX memories_scope ON memories (scope, updated_at);
        CREATE VIRTUAL TABLE memories_text USING fts5(text, content = 'memories', content_rowid = 'n', tokenize = 'porter unicode61');
        CREATE TRIGGER memories_added AFTER INSERT ON memories BEGIN
          INSERT INTO memories_text (rowid, text) VALUES (new.n, new.text);
        END;
        CREATE TRIGGER memories_removed AFTER DELETE ON memories BEGIN
          INSERT INTO memories_text (memories_text, rowid, text) VALUES ('delete', old.n, old.text);
        END;
        CREATE TRIGGER memories_changed AFTER UPDATE OF text ON memories BEGIN
          INSERT INTO memories_text (memories_text, rowid, text) VALUES ('delete', old.n, old.text);
          INSERT INTO memories_text (rowid, text) VALUES (new.n, new.text);
        END;
        -- One row per distinct system prompt (keyed by its hash): a model call names the one it was sent.
        CREATE TABLE prompts (
          id TEXT PRIMARY KEY,
          body TEXT NOT NULL,
          created_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
      `);
    },
  },
];
