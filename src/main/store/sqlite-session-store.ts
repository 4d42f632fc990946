import type { Database, Statement } from 'better-sqlite3';
import { autonomySchema, branchReasonSchema, sessionStatusSchema, type Branch, type Session } from '../../shared/domain';
import { NotFoundError, StoreError } from '../../shared/errors';
import { eventFormatVersion, runtimeEventSchema, type JournalEntry, type RuntimeEvent } from '../../shared/events';
import { branchLine } from '../agent/branching';
import { mainBranchId, type ImportedSession, type NewBranch, type NewSession, type SessionPatch, type SessionStore } from '../agent/stores';

interface SessionRow {
  id: string;
  title: string;
  workspace_path: string | null;
  model_provider_id: string | null;
  model_name: string | null;
  autonomy: string;
  status: string;
  created_at: number;
  updated_at: number;
}

interface BranchRow {
  session_id: string;
  id: string;
  parent_id: string | null;
  fork_seq: number;
  checkpoint_id: string | null;
  reason: string;
  created_at: number;
  active_at: number;
}

function toBranch(row: BranchRow): Branch {
  return {
    id: row.id,
    parentId: row.parent_id,
    forkSeq: row.fork_seq,
    checkpointId: row.checkpoint_id,
    reason: branchReasonSchema.parse(row.reason),
    createdAt: row.created_at,
    activeAt: row.active_at,
  };
}

interface JournalRow {
  session_id: string;
  seq: number;
  at: number;
  format: number;
  payload: string;
}

function toSession(row: SessionRow): Session {
  return {
    id: row.id,
    title: row.title,
    workspacePath: row.workspace_path,
    model: row.model_provider_id !== null && row.model_name !== null ? { providerId: row.model_provider_id, model: row.model_name } : null,
    autonomy: autonomySchema.parse(row.autonomy),
    status: sessionStatusSchema.parse(row.status),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Sessions and the event journal in SQLite. Statements are prepared once; appends are one transaction. */
export class SqliteSessionStore implements SessionStore {
  private readonly statements: {
    list: Statement<[], SessionRow>;
    get: Statement<[string], SessionRow>;
    insert: Statement<[SessionRow]>;
    update: Statement<[SessionRow]>;
    delete: Statement<[string]>;
    lastSeq: Statement<[string], { seq: number | null }>;
    appendEvent: Statement<[string, number, number, number, string, string, string]>;
    journal: Statement<[string, string, number, number], JournalRow>;
    allRows: Statement<[string], JournalRow & { branch: string }>;
    branches: Statement<[string], BranchRow>;
    insertBranch: Statement<[BranchRow]>;
    activeBranch: Statement<[string], { active_branch: string }>;
    lastOwnSeq: Statement<[string], { branch: string; seq: number }>;
    questions: Statement<[string, string, number, number, number], { seq: number }>;
    setActiveBranch: Statement<[string, number, string]>;
    touchBranch: Statement<[number, string, string]>;
  };
  /** The active branch per session, read once: appends go to it. */
  private readonly active = new Map<string, string>();
  /** Next sequence number per session. This process is the only writer, so it is read once. */
  private readonly nextSeq = new Map<string, number>();
  private readonly appendTransaction: (sessionId: string, events: readonly RuntimeEvent[], at: number) => JournalEntry[];

  /** One transaction wrapper, made once: better-sqlite3 builds a new one on every `db.transaction` call. */
  private readonly runInTransaction: (work: () => unknown) => unknown;

  constructor(private readonly db: Database) {
    this.runInTransaction = db.transaction((work: () => unknown) => work());
    this.statements = {
      list: db.prepare('SELECT * FROM sessions ORDER BY updated_at DESC, id DESC'),
      get: db.prepare('SELECT * FROM sessions WHERE id = ?'),
      insert: db.prepare(
        'INSERT INTO sessions (id, title, workspace_path, model_provider_id, model_name, autonomy, status, created_at, updated_at) VALUES (@id, @title, @workspace_path, @model_provider_id, @model_name, @autonomy, @status, @created_at, @updated_at)',
      ),
      update: db.prepare(
        'UPDATE sessions SET title = @title, workspace_path = @workspace_path, model_provider_id = @model_provider_id, model_name = @model_name, autonomy = @autonomy, status = @status, updated_at = @updated_at WHERE id = @id',
      ),
      delete: db.prepare('DELETE FROM sessions WHERE id = ?'),
      lastSeq: db.prepare('SELECT MAX(seq) AS seq FROM journal WHERE session_id = ?'),
      appendEvent: db.prepare('INSERT INTO journal (session_id, seq, at, format, type, payload, branch) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      journal: db.prepare(
        'SELECT session_id, seq, at, format, payload FROM journal WHERE session_id = ? AND branch = ? AND seq > ? AND seq <= ? ORDER BY seq',
      ),
      branches: db.prepare('SELECT * FROM branches WHERE session_id = ? ORDER BY created_at, id'),
      allRows: db.prepare('SELECT session_id, seq, at, format, payload, branch FROM journal WHERE session_id = ? ORDER BY seq'),
      insertBranch: db.prepare(
        'INSERT INTO branches (session_id, id, parent_id, fork_seq, checkpoint_id, reason, created_at, active_at) VALUES (@session_id, @id, @parent_id, @fork_seq, @checkpoint_id, @reason, @created_at, @active_at)',
      ),
      activeBranch: db.prepare('SELECT active_branch FROM sessions WHERE id = ?'),
      lastOwnSeq: db.prepare('SELECT branch, MAX(seq) AS seq FROM journal WHERE session_id = ? GROUP BY branch'),
      questions: db.prepare(
        "SELECT seq FROM journal WHERE session_id = ? AND branch = ? AND seq > ? AND seq <= ? AND type = 'user_message' ORDER BY seq DESC LIMIT ?",
      ),
      setActiveBranch: db.prepare('UPDATE sessions SET active_branch = ?, updated_at = ? WHERE id = ?'),
      touchBranch: db.prepare('UPDATE branches SET active_at = ? WHERE session_id = ? AND id = ?'),
    };
    const setStatus = db.prepare<[number, string, string]>('UPDATE sessions SET updated_at = ?, status = ? WHERE id = ?');
    const touch = db.prepare<[number, string]>('UPDATE sessions SET updated_at = ? WHERE id = ?');
    this.appendTransaction = db.transaction((sessionId: string, events: readonly RuntimeEvent[], at: number): JournalEntry[] => {
      let seq = this.nextSeq.get(sessionId) ?? (this.statements.lastSeq.get(sessionId)?.seq ?? -1) + 1;
      const branch = this.activeBranch(sessionId);
      const entries: JournalEntry[] = [];
      let status: string | null = null;
      for (const event of events) {
        this.statements.appendEvent.run(sessionId, seq, at, eventFormatVersion, event.type, JSON.stringify(event), branch);
        entries.push({ sessionId, seq, at, event });
        if (event.type === 'status_changed') status = event.status;
        seq += 1;
      }
      if (status !== null) setStatus.run(at, status, sessionId);
      else touch.run(at, sessionId);
      return entries;
    });
    const append = this.appendTransaction;
    this.appendTransaction = (sessionId, events, at) => {
      try {
        const entries = append(sessionId, events, at);
        const last = entries.at(-1);
        if (last) this.nextSeq.set(sessionId, last.seq + 1);
        return entries;
      } catch (error) {
        // A rolled-back append wrote nothing: read the number again next time.
        this.nextSeq.delete(sessionId);
        this.active.delete(sessionId);
        // The journal's foreign key refuses events of a session that does not exist.
        if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new NotFoundError('Session', sessionId);
        throw error;
      }
    };
  }

  list(): Session[] {
    return this.statements.list.all().map(toSession);
  }

  get(sessionId: string): Session | null {
    const row = this.statements.get.get(sessionId);
    return row ? toSession(row) : null;
  }

  create(session: NewSession): Session {
    const row: SessionRow = {
      id: session.id,
      title: session.title,
      workspace_path: session.workspacePath,
      model_provider_id: session.model?.providerId ?? null,
      model_name: session.model?.model ?? null,
      autonomy: session.autonomy,
      status: 'idle',
      created_at: session.createdAt,
      updated_at: session.createdAt,
    };
    this.transaction(() => {
      this.statements.insert.run(row);
      this.statements.insertBranch.run({
        session_id: session.id,
        id: mainBranchId,
        parent_id: null,
        fork_seq: -1,
        checkpoint_id: null,
        reason: 'start',
        created_at: session.createdAt,
        active_at: session.createdAt,
      });
    });
    return toSession(row);
  }

  update(sessionId: string, patch: SessionPatch, at: number): Session {
    const current = this.statements.get.get(sessionId);
    if (!current) throw new NotFoundError('Session', sessionId);
    const model = patch.model === undefined ? undefined : patch.model;
    const row: SessionRow = {
      ...current,
      title: patch.title ?? current.title,
      workspace_path: patch.workspacePath === undefined ? current.workspace_path : patch.workspacePath,
      model_provider_id: model === undefined ? current.model_provider_id : (model?.providerId ?? null),
      model_name: model === undefined ? current.model_name : (model?.model ?? null),
      autonomy: patch.autonomy ?? current.autonomy,
      status: patch.status ?? current.status,
      updated_at: at,
    };
    this.statements.update.run(row);
    return toSession(row);
  }

  delete(sessionId: string): boolean {
    this.nextSeq.delete(sessionId);
    this.active.delete(sessionId);
    return this.statements.delete.run(sessionId).changes > 0;
  }

  append(sessionId: string, events: readonly RuntimeEvent[], at: number): JournalEntry[] {
    if (events.length === 0) return [];
    return this.appendTransaction(sessionId, events, at);
  }

  transaction<T>(work: () => T): T {
    return this.runInTransaction(work) as T;
  }

  branches(sessionId: string): Branch[] {
    return this.statements.branches.all(sessionId).map(toBranch);
  }

  allRows(sessionId: string): Array<{ seq: number; at: number; branchId: string; format: number; event: RuntimeEvent }> {
    return this.statements.allRows
      .all(sessionId)
      .map((row) => ({ seq: row.seq, at: row.at, branchId: row.branch, format: row.format, event: this.parseRow(sessionId, row) }));
  }

  importSession(input: ImportedSession): Session {
    const { session } = input;
    const row: SessionRow = {
      id: session.id,
      title: session.title,
      workspace_path: session.workspacePath,
      model_provider_id: session.model?.providerId ?? null,
      model_name: session.model?.model ?? null,
      autonomy: session.autonomy,
      status: session.status,
      created_at: session.createdAt,
      updated_at: session.updatedAt,
    };
    this.transaction(() => {
      this.statements.insert.run(row);
      for (const branch of input.branches) {
        this.statements.insertBranch.run({
          session_id: session.id,
          id: branch.id,
          parent_id: branch.parentId,
          fork_seq: branch.forkSeq,
          checkpoint_id: branch.checkpointId,
          reason: branch.reason,
          created_at: branch.createdAt,
          active_at: branch.activeAt,
        });
      }
      this.statements.setActiveBranch.run(input.activeBranchId, session.updatedAt, session.id);
      for (const entry of input.rows)
        this.statements.appendEvent.run(
          session.id,
          entry.seq,
          entry.at,
          eventFormatVersion,
          entry.event.type,
          JSON.stringify(entry.event),
          entry.branchId,
        );
    });
    this.nextSeq.delete(session.id);
    this.active.delete(session.id);
    return toSession(row);
  }

  recentTurnsStart(sessionId: string, turns: number): number {
    const line = branchLine(this.branches(sessionId), this.activeBranch(sessionId));
    let found = 0;
    // Newest part of the line first: each branch contributes the rows after its parent's part.
    for (let index = line.length - 1; index >= 0; index -= 1) {
      const element = line[index];
      if (!element) continue;
      const below = line[index - 1]?.upTo ?? -1;
      const seqs = this.statements.questions.all(sessionId, element.branchId, below, element.upTo, turns - found);
      found += seqs.length;
      if (found >= turns) return seqs.at(-1)?.seq ?? -1;
    }
    return -1;
  }

  lastSeqByBranch(sessionId: string): Map<string, number> {
    return new Map(this.statements.lastOwnSeq.all(sessionId).map((row) => [row.branch, row.seq]));
  }

  activeBranch(sessionId: string): string {
    const cached = this.active.get(sessionId);
    if (cached !== undefined) return cached;
    const row = this.statements.activeBranch.get(sessionId);
    if (!row) throw new NotFoundError('Session', sessionId);
    this.active.set(sessionId, row.active_branch);
    return row.active_branch;
  }

  /** When a branch was last shown, strictly after every other, so "the one seen last" is never a tie. */
  private lookedAt(sessionId: string, at: number): number {
    return Math.max(at, ...this.branches(sessionId).map((branch) => branch.activeAt + 1));
  }

  createBranch(sessionId: string, branch: NewBranch, at: number): Branch {
    const looked = this.lookedAt(sessionId, at);
    const row: BranchRow = {
      session_id: sessionId,
      id: branch.id,
      parent_id: branch.parentId,
      fork_seq: branch.forkSeq,
      checkpoint_id: branch.checkpointId,
      reason: branch.reason,
      created_at: at,
      active_at: looked,
    };
    this.transaction(() => {
      if (!this.statements.get.get(sessionId)) throw new NotFoundError('Session', sessionId);
      if (!this.branches(sessionId).some((existing) => existing.id === branch.parentId)) throw new NotFoundError('Branch', branch.parentId);
      this.statements.insertBranch.run(row);
      this.statements.setActiveBranch.run(branch.id, at, sessionId);
    });
    this.active.set(sessionId, branch.id);
    return toBranch(row);
  }

  activateBranch(sessionId: string, branchId: string, at: number): Branch {
    const found = this.branches(sessionId).find((branch) => branch.id === branchId);
    if (!found) throw new NotFoundError('Branch', branchId);
    const looked = this.lookedAt(sessionId, at);
    this.transaction(() => {
      this.statements.setActiveBranch.run(branchId, at, sessionId);
      this.statements.touchBranch.run(looked, sessionId, branchId);
    });
    this.active.set(sessionId, branchId);
    return { ...found, activeAt: looked };
  }

  journal(sessionId: string, options: { afterSeq?: number; branchId?: string } = {}): JournalEntry[] {
    const branches = this.branches(sessionId);
    if (branches.length === 0) return [];
    let line: ReturnType<typeof branchLine>;
    try {
      line = branchLine(branches, options.branchId ?? this.activeBranch(sessionId));
    } catch (error) {
      throw new StoreError('store_corrupt', `Session ${sessionId}: ${(error as Error).message}`);
    }
    const afterSeq = options.afterSeq ?? -1;
    const rows = line.flatMap(({ branchId, upTo }) =>
      upTo <= afterSeq ? [] : this.statements.journal.all(sessionId, branchId, afterSeq, upTo),
    );
    return rows.map((row) => ({ sessionId: row.session_id, seq: row.seq, at: row.at, event: this.parseRow(sessionId, row) }));
  }

  private parseRow(sessionId: string, row: JournalRow): RuntimeEvent {
    if (row.format > eventFormatVersion) {
      throw new StoreError('store_newer_version', `Event ${row.seq} of session ${sessionId} was written by a newer version of the app.`);
    }
    const parsed = runtimeEventSchema.safeParse(JSON.parse(row.payload));
    if (!parsed.success)
      throw new StoreError(
        'store_corrupt',
        `Event ${row.seq} of session ${sessionId} is damaged: ${parsed.error.issues[0]?.message ?? 'invalid'}.`,
      );
    return parsed.data;
  }
}
