import type { Database, Statement } from 'better-sqlite3';
import type { JournalEntry } from '../../shared/events';
import { emptyHead, headFormatVersion, replayHead, resumeStateSchema, type SessionHead } from '../agent/session-head';

interface HeadRow {
  head_checkpoint: string | null;
  open_turn: string | null;
  queued: string | null;
  resume: string | null;
  last_seq: number;
  head_format: number;
}

/**
 * The head of each branch's line, on its branch row. It is written in the transaction of every
 * append; a row not computed yet (a database from before heads, an import) is replayed from its
 * line's journal once, on first use. Heads read lately are kept in memory: this process is the
 * only writer.
 */
export class SqliteHeads {
  private readonly statements: {
    get: Statement<[string, string], HeadRow>;
    set: Statement<[string | null, string | null, string | null, string | null, number, number, string, string]>;
  };
  private readonly cache = new Map<string, SessionHead>();

  constructor(
    db: Database,
    private readonly replayLine: (sessionId: string, branchId: string) => JournalEntry[],
  ) {
    this.statements = {
      get: db.prepare(
        'SELECT head_checkpoint, open_turn, queued, resume, last_seq, head_format FROM branches WHERE session_id = ? AND id = ?',
      ),
      set: db.prepare(
        'UPDATE branches SET head_checkpoint = ?, open_turn = ?, queued = ?, resume = ?, last_seq = ?, head_format = ? WHERE session_id = ? AND id = ?',
      ),
    };
  }

  /** The head of the line ending at `branchId`. */
  get(sessionId: string, branchId: string): SessionHead {
    const key = `${sessionId}/${branchId}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const row = this.statements.get.get(sessionId, branchId);
    if (!row) return emptyHead;
    // A head of another format, or a damaged one, is computed again: the journal is the truth.
    const head = (row.head_format === headFormatVersion ? parseHead(row) : null) ?? this.replay(sessionId, branchId);
    this.cache.set(key, head);
    return head;
  }

  /** Saves a head; call it inside the append's transaction. */
  set(sessionId: string, branchId: string, head: SessionHead): void {
    const resume = head.resume === null ? null : JSON.stringify(head.resume);
    this.statements.set.run(head.checkpointId, head.openTurn, head.queued, resume, head.lastSeq, headFormatVersion, sessionId, branchId);
    this.cache.set(`${sessionId}/${branchId}`, head);
  }

  /** Forgets what is cached of a session (its append was rolled back, or it was deleted or imported). */
  forget(sessionId: string): void {
    for (const key of this.cache.keys()) if (key.startsWith(`${sessionId}/`)) this.cache.delete(key);
  }

  private replay(sessionId: string, branchId: string): SessionHead {
    const head = replayHead(this.replayLine(sessionId, branchId));
    this.set(sessionId, branchId, head);
    return head;
  }
}

function parseHead(row: HeadRow): SessionHead | null {
  let resume: SessionHead['resume'] = null;
  if (row.resume !== null) {
    let raw: unknown;
    try {
      raw = JSON.parse(row.resume);
    } catch {
      return null;
    }
    const parsed = resumeStateSchema.safeParse(raw);
    if (!parsed.success) return null;
    resume = parsed.data;
  }
  return { checkpointId: row.head_checkpoint, openTurn: row.open_turn, queued: row.queued, resume, lastSeq: row.last_seq };
}
