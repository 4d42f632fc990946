/*
 * Reads of one line of a session's journal that use an index, never a scan: a row by its id, the nearest row of a kind.
 */

import type { Database, Statement } from 'better-sqlite3';
import type { JournalEntry, RuntimeEvent } from '../../shared/events';
import type { BranchSummary, IdentifiedEventType } from '../agent/ports/stores';
import { toEntry, type JournalRow } from './journal-rows';

/** The branches whose rows make up a line, oldest first, each with the last seq it contributes. */
export type Line = ReadonlyArray<{ readonly branchId: string; readonly upTo: number }>;

type RowWithBranch = JournalRow & { branch: string };
const columns = 'session_id, seq, at, format, payload';

/**
 * Reads of one line of a session's journal that never scan it: a row by the id it introduces, the
 * nearest row of a kind before or after a point, what each branch holds. Each is an index lookup
 * per branch of the line (a line has as many branches as edits and restores nest).
 */
export class JournalLines {
  private readonly statements: {
    byRef: Statement<[string, string, string], RowWithBranch>;
    before: Statement<[string, string, number, number], JournalRow>;
    after: Statement<[string, string, number, number], JournalRow>;
    range: Statement<[string, string, number, number], JournalRow>;
    lastSeq: Statement<[string, string], { seq: number | null }>;
    counts: Statement<[string, string], { type: string; count: number }>;
    firstMessage: Statement<[string, string], JournalRow>;
    seqBeforeOfType: Statement<[string, string, string, number, number], { seq: number }>;
    seqAfterOfType: Statement<[string, string, string, number, number], { seq: number }>;
    budgetAnsweredBefore: Statement<[string, string, number, number], { seq: number }>;
    budgetAnsweredAfter: Statement<[string, string, number, number], { seq: number }>;
    bySeq: Statement<[string, number], JournalRow>;
  };

  constructor(db: Database) {
    this.statements = {
      byRef: db.prepare(
        `SELECT ${columns}, branch FROM journal INDEXED BY journal_ref WHERE session_id = ? AND ref = ? AND type = ? ORDER BY seq`,
      ),
      before: db.prepare(
        `SELECT ${columns} FROM journal INDEXED BY journal_branch WHERE session_id = ? AND branch = ? AND seq > ? AND seq <= ? ORDER BY seq DESC LIMIT 1`,
      ),
      after: db.prepare(
        `SELECT ${columns} FROM journal INDEXED BY journal_branch WHERE session_id = ? AND branch = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT 1`,
      ),
      range: db.prepare(`SELECT ${columns} FROM journal WHERE session_id = ? AND branch = ? AND seq > ? AND seq <= ? ORDER BY seq`),
      lastSeq: db.prepare('SELECT MAX(seq) AS seq FROM journal INDEXED BY journal_branch WHERE session_id = ? AND branch = ?'),
      counts: db.prepare(
        "SELECT type, COUNT(*) AS count FROM journal INDEXED BY journal_branch WHERE session_id = ? AND branch = ? AND type IN ('user_message', 'assistant_message_started', 'checkpoint_saved') GROUP BY type",
      ),
      firstMessage: db.prepare(
        `SELECT ${columns} FROM journal INDEXED BY journal_branch WHERE session_id = ? AND branch = ? AND type = 'user_message' ORDER BY seq LIMIT 1`,
      ),
      // Only the seq: journal_branch covers it, so the rows passed are not read (the table is WITHOUT ROWID, and a
      // statement that also selects the payload reads every row it passes to test its type).
      seqBeforeOfType: db.prepare(
        'SELECT seq FROM journal INDEXED BY journal_branch WHERE session_id = ? AND branch = ? AND type = ? AND seq > ? AND seq <= ? ORDER BY seq DESC LIMIT 1',
      ),
      seqAfterOfType: db.prepare(
        'SELECT seq FROM journal INDEXED BY journal_branch WHERE session_id = ? AND branch = ? AND type = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT 1',
      ),
      budgetAnsweredBefore: db.prepare(
        "SELECT seq FROM journal INDEXED BY journal_budget_answered WHERE session_id = ? AND branch = ? AND type = 'budget_answered' AND seq > ? AND seq <= ? ORDER BY seq DESC LIMIT 1",
      ),
      budgetAnsweredAfter: db.prepare(
        "SELECT seq FROM journal INDEXED BY journal_budget_answered WHERE session_id = ? AND branch = ? AND type = 'budget_answered' AND seq > ? AND seq <= ? ORDER BY seq LIMIT 1",
      ),
      bySeq: db.prepare(`SELECT ${columns} FROM journal WHERE session_id = ? AND seq = ?`),
    };
  }

  /** The rows of a line after `afterSeq` and up to `upToSeq`, in order. */
  rows(sessionId: string, line: Line, afterSeq: number, upToSeq: number): JournalEntry[] {
    const rows: JournalRow[] = [];
    let lower = -1;
    for (const { branchId, upTo } of line) {
      const from = Math.max(lower, afterSeq);
      const to = Math.min(upTo, upToSeq);
      if (to > from) for (const row of this.statements.range.iterate(sessionId, branchId, from, to)) rows.push(row);
      lower = upTo;
    }
    return rows.map((row) => toEntry(sessionId, row));
  }

  findById(sessionId: string, line: Line, type: IdentifiedEventType, id: string): JournalEntry | null {
    for (const row of this.statements.byRef.all(sessionId, id, type)) if (onLine(line, row.branch, row.seq)) return toEntry(sessionId, row);
    return null;
  }

  nearest(
    sessionId: string,
    line: Line,
    direction: 'before' | 'after',
    seq: number,
    types?: readonly RuntimeEvent['type'][],
  ): JournalEntry | null {
    const segments = segmentsOf(line);
    const ordered = direction === 'before' ? [...segments].reverse() : segments;
    for (const { branchId, lower, upTo } of ordered) {
      const from = direction === 'before' ? lower : Math.max(lower, seq);
      const to = direction === 'before' ? Math.min(upTo, seq - 1) : upTo;
      if (to <= from) continue;
      const found = this.nearestIn(sessionId, branchId, direction, from, to, types);
      if (found) return toEntry(sessionId, found);
    }
    return null;
  }

  /** The newest row each branch wrote itself. */
  lastSeqByBranch(sessionId: string, branchIds: readonly string[]): Map<string, number> {
    const last = new Map<string, number>();
    for (const branchId of branchIds) {
      const seq = this.statements.lastSeq.get(sessionId, branchId)?.seq;
      if (seq !== null && seq !== undefined) last.set(branchId, seq);
    }
    return last;
  }

  branchSummaries(sessionId: string, branchIds: readonly string[]): Map<string, BranchSummary> {
    const summaries = new Map<string, BranchSummary>();
    for (const branchId of branchIds) {
      const counts = new Map(this.statements.counts.all(sessionId, branchId).map((row) => [row.type, row.count]));
      const first = this.statements.firstMessage.get(sessionId, branchId);
      const event = first ? toEntry(sessionId, first).event : null;
      summaries.set(branchId, {
        title: event?.type === 'user_message' ? event.text : '',
        messages: (counts.get('user_message') ?? 0) + (counts.get('assistant_message_started') ?? 0),
        checkpoints: counts.get('checkpoint_saved') ?? 0,
      });
    }
    return summaries;
  }

  private nearestIn(
    sessionId: string,
    branchId: string,
    direction: 'before' | 'after',
    from: number,
    to: number,
    types: readonly RuntimeEvent['type'][] | undefined,
  ): JournalRow | undefined {
    if (!types) return (direction === 'before' ? this.statements.before : this.statements.after).get(sessionId, branchId, from, to);
    const { statements } = this;
    let best: number | undefined;
    for (const type of types) {
      const found =
        type === 'budget_answered'
          ? (direction === 'before' ? statements.budgetAnsweredBefore : statements.budgetAnsweredAfter).get(sessionId, branchId, from, to)
          : (direction === 'before' ? statements.seqBeforeOfType : statements.seqAfterOfType).get(sessionId, branchId, type, from, to);
      if (found && (best === undefined || (direction === 'before' ? found.seq > best : found.seq < best))) best = found.seq;
    }
    return best === undefined ? undefined : statements.bySeq.get(sessionId, best);
  }
}

/** Each branch of a line with the rows it contributes: after `lower`, up to `upTo`. */
function segmentsOf(line: Line): Array<{ branchId: string; lower: number; upTo: number }> {
  let lower = -1;
  return line.map(({ branchId, upTo }) => {
    const segment = { branchId, lower, upTo };
    lower = upTo;
    return segment;
  });
}

function onLine(line: Line, branchId: string, seq: number): boolean {
  return segmentsOf(line).some((segment) => segment.branchId === branchId && seq > segment.lower && seq <= segment.upTo);
}
