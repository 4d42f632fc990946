/*
 * Where each session's shown line stands (its head), kept on the session's and branches' rows so a session opens
 * without replaying its journal.
 */

import type { Database, Statement } from 'better-sqlite3';
import { emptyHead, headFormatVersion, resumeStateSchema, type SessionHead } from '../agent/ports/session-head';

interface HeadRow {
  head_checkpoint: string | null;
  open_turn: string | null;
  queued: string | null;
  resume: string | null;
  last_seq: number;
  head_format: number;
}

type HeadValues = [string | null, string | null, string | null, string | null, number, number];

const headColumns = 'head_checkpoint, open_turn, queued, resume, last_seq, head_format';
const setHead = 'head_checkpoint = ?, open_turn = ?, queued = ?, resume = ?, last_seq = ?, head_format = ?';

/**
 * Where each session stands: the head of its shown line is on the session's own row, written in the
 * same statement as its status in every append. When another branch is shown, the head of the line
 * left is kept on that branch's row, and the shown branch's is brought onto the session's. A head
 * not computed (a database from before heads, a branch whose head was not kept) is read as null, and
 * the journal replays it; the store never folds events itself. Heads read lately are kept in memory:
 * this process is the only writer.
 */
export class SqliteHeads {
  private readonly statements: {
    ofSession: Statement<[string], HeadRow>;
    ofBranch: Statement<[string, string], HeadRow>;
    advance: Statement<[number, string | null, ...HeadValues, string]>;
    setOfSession: Statement<[...HeadValues, string]>;
    setOfBranch: Statement<[...HeadValues, string, string]>;
  };
  /** The shown line's head per session. */
  private readonly cache = new Map<string, SessionHead>();

  constructor(db: Database) {
    this.statements = {
      ofSession: db.prepare(`SELECT ${headColumns} FROM sessions WHERE id = ?`),
      ofBranch: db.prepare(`SELECT ${headColumns} FROM branches WHERE session_id = ? AND id = ?`),
      advance: db.prepare(`UPDATE sessions SET updated_at = ?, status = COALESCE(?, status), ${setHead} WHERE id = ?`),
      setOfSession: db.prepare(`UPDATE sessions SET ${setHead} WHERE id = ?`),
      setOfBranch: db.prepare(`UPDATE branches SET ${setHead} WHERE session_id = ? AND id = ?`),
    };
  }

  /** The head of the session's shown line; null when it is not computed. */
  shown(sessionId: string): SessionHead | null {
    const cached = this.cache.get(sessionId);
    if (cached) return cached;
    const row = this.statements.ofSession.get(sessionId);
    if (!row) return emptyHead;
    const head = this.parsed(row);
    if (head) this.cache.set(sessionId, head);
    return head;
  }

  /** Moves the shown line's head after an append, with the session's status and time, in one statement. */
  advance(sessionId: string, head: SessionHead, at: number, status: string | null): void {
    this.statements.advance.run(at, status, ...values(head), sessionId);
    this.cache.set(sessionId, head);
  }

  /** A new session, or a new branch shown: its line starts with nothing. */
  start(sessionId: string): void {
    this.statements.setOfSession.run(...values(emptyHead), sessionId);
    this.cache.set(sessionId, emptyHead);
  }

  /** A new branch is about to be shown: the head of the line left is kept on its branch's row, and the new line starts with nothing. */
  leave(sessionId: string, from: string): void {
    this.statements.setOfBranch.run(...values(this.shown(sessionId)), sessionId, from);
    this.start(sessionId);
  }

  /**
   * Another branch is shown: the head of the line left (`from`) is kept on its branch's row, and the
   * head of `to` (kept there when it was left, or not computed) goes on the session's row.
   */
  show(sessionId: string, from: string, to: string): void {
    this.statements.setOfBranch.run(...values(this.shown(sessionId)), sessionId, from);
    const row = this.statements.ofBranch.get(sessionId, to);
    const head = row ? this.parsed(row) : null;
    this.statements.setOfSession.run(...values(head), sessionId);
    if (head) this.cache.set(sessionId, head);
    else this.cache.delete(sessionId);
  }

  /** Saves a head worked out elsewhere (a replay of a line, an import's heads). */
  put(sessionId: string, branchId: string, head: SessionHead, shown: boolean): void {
    if (shown) this.statements.setOfSession.run(...values(head), sessionId);
    else this.statements.setOfBranch.run(...values(head), sessionId, branchId);
    this.cache.delete(sessionId);
  }

  /** Forgets what is cached of a session (its append was rolled back, or it was deleted or imported). */
  forget(sessionId: string): void {
    this.cache.delete(sessionId);
  }

  /** A stored head, or null when it is not computed, of another format or damaged: the journal is the truth, and it is replayed. */
  private parsed(row: HeadRow): SessionHead | null {
    if (row.head_format !== headFormatVersion) return null;
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
}

/** A head's columns; a head not computed is stored as format 0, which no fold has. */
function values(head: SessionHead | null): HeadValues {
  if (head === null) return [null, null, null, null, -1, 0];
  const resume = head.resume === null ? null : JSON.stringify(head.resume);
  return [head.checkpointId, head.openTurn, head.queued, resume, head.lastSeq, headFormatVersion];
}
