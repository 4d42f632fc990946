import type { Database, Statement } from 'better-sqlite3';
import { autonomySchema, sessionStatusSchema, type Session } from '../../shared/domain';
import { NotFoundError, StoreError } from '../../shared/errors';
import { eventFormatVersion, runtimeEventSchema, type JournalEntry, type RuntimeEvent } from '../../shared/events';
import type { NewSession, SessionPatch, SessionStore } from '../agent/stores';

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
    appendEvent: Statement<[string, number, number, number, string, string]>;
    journal: Statement<[string, number], JournalRow>;
  };
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
      appendEvent: db.prepare('INSERT INTO journal (session_id, seq, at, format, type, payload) VALUES (?, ?, ?, ?, ?, ?)'),
      journal: db.prepare('SELECT session_id, seq, at, format, payload FROM journal WHERE session_id = ? AND seq > ? ORDER BY seq'),
    };
    const setStatus = db.prepare<[number, string, string]>('UPDATE sessions SET updated_at = ?, status = ? WHERE id = ?');
    const touch = db.prepare<[number, string]>('UPDATE sessions SET updated_at = ? WHERE id = ?');
    this.appendTransaction = db.transaction((sessionId: string, events: readonly RuntimeEvent[], at: number): JournalEntry[] => {
      let seq = this.nextSeq.get(sessionId) ?? (this.statements.lastSeq.get(sessionId)?.seq ?? -1) + 1;
      const entries: JournalEntry[] = [];
      let status: string | null = null;
      for (const event of events) {
        this.statements.appendEvent.run(sessionId, seq, at, eventFormatVersion, event.type, JSON.stringify(event));
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
    this.statements.insert.run(row);
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
    return this.statements.delete.run(sessionId).changes > 0;
  }

  append(sessionId: string, events: readonly RuntimeEvent[], at: number): JournalEntry[] {
    if (events.length === 0) return [];
    return this.appendTransaction(sessionId, events, at);
  }

  transaction<T>(work: () => T): T {
    return this.runInTransaction(work) as T;
  }

  journal(sessionId: string, options: { afterSeq?: number } = {}): JournalEntry[] {
    return this.statements.journal.all(sessionId, options.afterSeq ?? -1).map((row) => {
      if (row.format > eventFormatVersion) {
        throw new StoreError('store_newer_version', `Event ${row.seq} of session ${sessionId} was written by a newer version of the app.`);
      }
      const parsed = runtimeEventSchema.safeParse(JSON.parse(row.payload));
      if (!parsed.success) throw new StoreError('store_corrupt', `Event ${row.seq} of session ${sessionId} is damaged: ${parsed.error.issues[0]?.message ?? 'invalid'}.`);
      return { sessionId: row.session_id, seq: row.seq, at: row.at, event: parsed.data };
    });
  }
}
