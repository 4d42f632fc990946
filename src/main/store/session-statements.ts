/*
 * The statements of the session store, prepared once per database: sessions, their branches, and journal appends.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { JournalRow } from './journal-rows';
import type { BranchRow, SessionRow } from './session-rows';

export interface SessionStatements {
  list: Statement<[], SessionRow>;
  subAgents: Statement<[string], SessionRow>;
  get: Statement<[string], SessionRow>;
  insert: Statement<[SessionRow]>;
  update: Statement<[SessionRow]>;
  delete: Statement<[string]>;
  setArchived: Statement<[number | null, string]>;
  archived: Statement<[], SessionRow & { archived_at: number }>;
  worksIn: Statement<[string], { used: number }>;
  lastSeq: Statement<[string], { seq: number | null }>;
  appendEvent: Statement<[string, number, number, number, string, string, string, string | null]>;
  allRows: Statement<[string], JournalRow & { branch: string }>;
  branches: Statement<[string], BranchRow>;
  insertBranch: Statement<[BranchRow]>;
  activeBranch: Statement<[string], { active_branch: string }>;
  questions: Statement<[string, string, number, number, number], { seq: number }>;
  setActiveBranch: Statement<[string, number, string]>;
  touchBranch: Statement<[number, string, string]>;
}

/** Prepares the session store's statements on `db`. */
export function prepareSessionStatements(db: Database): SessionStatements {
  return {
    // An archived session is out of the list and not found by id: only the archive reads it, until it is restored.
    list: db.prepare('SELECT * FROM sessions WHERE archived_at IS NULL AND parent_session_id IS NULL ORDER BY updated_at DESC, id DESC'),
    subAgents: db.prepare('SELECT * FROM sessions WHERE parent_session_id = ? AND archived_at IS NULL ORDER BY created_at, id'),
    get: db.prepare('SELECT * FROM sessions WHERE id = ? AND archived_at IS NULL'),
    insert: db.prepare(
      'INSERT INTO sessions (id, title, workspace_path, model_provider_id, model_name, autonomy, status, created_at, updated_at, parent_session_id, sub_agent) VALUES (@id, @title, @workspace_path, @model_provider_id, @model_name, @autonomy, @status, @created_at, @updated_at, @parent_session_id, @sub_agent)',
    ),
    update: db.prepare(
      'UPDATE sessions SET title = @title, workspace_path = @workspace_path, model_provider_id = @model_provider_id, model_name = @model_name, autonomy = @autonomy, status = @status, updated_at = @updated_at WHERE id = @id',
    ),
    delete: db.prepare('DELETE FROM sessions WHERE id = ?'),
    setArchived: db.prepare('UPDATE sessions SET archived_at = ? WHERE id = ?'),
    archived: db.prepare('SELECT * FROM sessions WHERE archived_at IS NOT NULL ORDER BY archived_at DESC, id DESC'),
    // A sub-agent's row is not archived with its parent's: it counts only below a session in the list.
    worksIn: db.prepare(
      `WITH RECURSIVE live(id, workspace_path) AS (
         SELECT id, workspace_path FROM sessions WHERE archived_at IS NULL AND parent_session_id IS NULL
         UNION ALL
         SELECT child.id, child.workspace_path FROM sessions child JOIN live ON child.parent_session_id = live.id
         WHERE child.archived_at IS NULL
       )
       SELECT EXISTS (SELECT 1 FROM live WHERE workspace_path = ?) AS used`,
    ),
    lastSeq: db.prepare('SELECT MAX(seq) AS seq FROM journal WHERE session_id = ?'),
    appendEvent: db.prepare(
      'INSERT INTO journal (session_id, seq, at, format, type, payload, branch, ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    branches: db.prepare('SELECT * FROM branches WHERE session_id = ? ORDER BY created_at, id'),
    allRows: db.prepare('SELECT session_id, seq, at, format, payload, branch FROM journal WHERE session_id = ? ORDER BY seq'),
    insertBranch: db.prepare(
      'INSERT INTO branches (session_id, id, parent_id, fork_seq, checkpoint_id, reason, created_at, active_at) VALUES (@session_id, @id, @parent_id, @fork_seq, @checkpoint_id, @reason, @created_at, @active_at)',
    ),
    activeBranch: db.prepare('SELECT active_branch FROM sessions WHERE id = ?'),
    questions: db.prepare(
      "SELECT seq FROM journal INDEXED BY journal_branch WHERE session_id = ? AND branch = ? AND type = 'user_message' AND seq > ? AND seq <= ? ORDER BY seq DESC LIMIT ?",
    ),
    setActiveBranch: db.prepare('UPDATE sessions SET active_branch = ?, updated_at = ? WHERE id = ?'),
    touchBranch: db.prepare('UPDATE branches SET active_at = ? WHERE session_id = ? AND id = ?'),
  };
}
