/*
 * Sessions, their branches and the event journal in SQLite, with archived sessions and imports.
 */

import type { Database } from 'better-sqlite3';
import type { Branch, Session, SessionStatus } from '../../shared/domain';
import { BugError, NotFoundError, StoreError } from '../../shared/errors';
import { eventFormatVersion, type JournalEntry, type RuntimeEvent } from '../../shared/events';
import { branchLine } from '../agent/history/branching';
import type { SessionHead } from '../agent/ports/session-head';
import {
  mainBranchId,
  type ArchivedSession,
  type BranchSummary,
  type IdentifiedEventType,
  type ImportedSession,
  type NewBranch,
  type NewSession,
  type SessionPatch,
  type SessionStore,
} from '../agent/ports/stores';
import { parseJournalRow, refOf } from './journal-rows';
import { sessionRow, toBranch, toSession, type SessionRow } from './session-rows';
import { JournalLines, type Line } from './sqlite-journal-lines';
import { SqliteHeads } from './sqlite-heads';
import { prepareSessionStatements, type SessionStatements } from './session-statements';

/**
 * Sessions, their branches and the event journal in SQLite. Statements are prepared once; an append
 * is one transaction, which also moves the session's status and its line's head.
 */
export class SqliteSessionStore implements SessionStore {
  private readonly statements: SessionStatements;
  /** The shown branch per session, read once: appends go to it. */
  private readonly active = new Map<string, string>();
  /** The shown line per session, read once and forgotten when branches change. */
  private readonly lines = new Map<string, Line>();
  /** Sessions read lately, kept as every write here changes them. */
  private readonly sessions = new Map<string, Session>();
  /** Sessions the running transaction appended to. */
  private readonly written = new Set<string>();
  /** Next sequence number per session. This process is the only writer, so it is read once. */
  private readonly seqs = new Map<string, number>();
  private readonly lineReads: JournalLines;
  private readonly heads: SqliteHeads;
  /** One transaction wrapper, made once: better-sqlite3 builds a new one on every `db.transaction` call. */
  private readonly runInTransaction: (work: () => unknown) => unknown;

  constructor(private readonly db: Database) {
    this.runInTransaction = db.transaction((work: () => unknown) => work());
    this.statements = prepareSessionStatements(db);
    this.lineReads = new JournalLines(db);
    this.heads = new SqliteHeads(db);
  }

  list(): Session[] {
    return this.statements.list.all().map(toSession);
  }

  subAgents(parentSessionId: string): Session[] {
    return this.statements.subAgents.all(parentSessionId).map(toSession);
  }

  get(sessionId: string): Session | null {
    const cached = this.sessions.get(sessionId);
    if (cached) return cached;
    const row = this.statements.get.get(sessionId);
    if (!row) return null;
    const session = toSession(row);
    this.sessions.set(sessionId, session);
    return session;
  }

  create(session: NewSession): Session {
    const row = sessionRow(session);
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
      this.heads.start(session.id);
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
      updated_at: at,
    };
    this.statements.update.run(row);
    this.sessions.delete(sessionId);
    return toSession(row);
  }

  delete(sessionId: string): boolean {
    this.forget(sessionId);
    return this.statements.delete.run(sessionId).changes > 0;
  }

  setArchived(sessionId: string, archivedAt: number | null): boolean {
    this.forget(sessionId);
    return this.statements.setArchived.run(archivedAt, sessionId).changes > 0;
  }

  archived(): ArchivedSession[] {
    return this.statements.archived.all().map((row) => ({ session: toSession(row), archivedAt: row.archived_at }));
  }

  worksIn(folder: string): boolean {
    return this.statements.worksIn.get(folder)?.used === 1;
  }

  append(
    sessionId: string,
    events: readonly RuntimeEvent[],
    at: number,
    options: { readonly head: SessionHead; readonly branch?: NewBranch },
  ): JournalEntry[] {
    if (events.length === 0) return [];
    try {
      const entries = this.transaction(() => {
        if (options.branch) this.openBranch(sessionId, options.branch, events, at);
        return this.appendRows(sessionId, events, at, options.head);
      });
      const last = entries.at(-1);
      if (last) this.seqs.set(sessionId, last.seq + 1);
      return entries;
    } catch (error) {
      // A rolled-back append wrote nothing: what is cached of the session is read again next time.
      this.forget(sessionId);
      // The journal's foreign key refuses events of a session that does not exist.
      if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new NotFoundError('Session', sessionId);
      throw error;
    }
  }

  transaction<T>(work: () => T): T {
    // Inside a transaction already, the work joins it: a nested one would cost a savepoint, and
    // nothing here takes back part of a transaction and goes on.
    if (this.db.inTransaction) return work();
    try {
      return this.runInTransaction(work) as T;
    } catch (error) {
      // Rolled back: what is cached of the sessions it wrote to is read again next time.
      for (const sessionId of this.written) this.forget(sessionId);
      throw error;
    } finally {
      this.written.clear();
    }
  }

  nextSeq(sessionId: string): number {
    return this.seqs.get(sessionId) ?? (this.statements.lastSeq.get(sessionId)?.seq ?? -1) + 1;
  }

  head(sessionId: string): SessionHead | null {
    return this.heads.shown(sessionId);
  }

  putHead(sessionId: string, head: SessionHead): void {
    this.heads.put(sessionId, this.activeBranch(sessionId), head, true);
  }

  journal(sessionId: string, options: { afterSeq?: number; upToSeq?: number; branchId?: string } = {}): JournalEntry[] {
    const branches = this.branches(sessionId);
    if (branches.length === 0) return [];
    const line = options.branchId === undefined ? this.line(sessionId) : this.lineOf(sessionId, branches, options.branchId);
    return this.lineReads.rows(sessionId, line, options.afterSeq ?? -1, options.upToSeq ?? Number.MAX_SAFE_INTEGER);
  }

  findById(sessionId: string, type: IdentifiedEventType, id: string): JournalEntry | null {
    return this.lineReads.findById(sessionId, this.line(sessionId), type, id);
  }

  nearest(sessionId: string, direction: 'before' | 'after', seq: number, types?: readonly RuntimeEvent['type'][]): JournalEntry | null {
    return this.lineReads.nearest(sessionId, this.line(sessionId), direction, seq, types);
  }

  branches(sessionId: string): Branch[] {
    return this.statements.branches.all(sessionId).map(toBranch);
  }

  branchSummaries(sessionId: string): Map<string, BranchSummary> {
    return this.lineReads.branchSummaries(
      sessionId,
      this.branches(sessionId).map((branch) => branch.id),
    );
  }

  lastSeqByBranch(sessionId: string): Map<string, number> {
    return this.lineReads.lastSeqByBranch(
      sessionId,
      this.branches(sessionId).map((branch) => branch.id),
    );
  }

  allRows(sessionId: string): Array<{ seq: number; at: number; branchId: string; format: number; event: RuntimeEvent }> {
    return this.statements.allRows
      .all(sessionId)
      .map((row) => ({ seq: row.seq, at: row.at, branchId: row.branch, format: row.format, event: parseJournalRow(sessionId, row) }));
  }

  importSession(input: ImportedSession): Session {
    const { session } = input;
    const row = sessionRow(session);
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
      for (const entry of input.rows) this.insertRow(session.id, entry.seq, entry.at, entry.event, entry.branchId);
      for (const [branchId, head] of input.heads) this.heads.put(session.id, branchId, head, branchId === input.activeBranchId);
    });
    this.forget(session.id);
    return toSession(row);
  }

  recentTurnsStart(sessionId: string, turns: number): number {
    const line = this.line(sessionId);
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

  activeBranch(sessionId: string): string {
    const cached = this.active.get(sessionId);
    if (cached !== undefined) return cached;
    const row = this.statements.activeBranch.get(sessionId);
    if (!row) throw new NotFoundError('Session', sessionId);
    this.active.set(sessionId, row.active_branch);
    return row.active_branch;
  }

  activateBranch(sessionId: string, branchId: string, at: number): Branch {
    const found = this.branches(sessionId).find((branch) => branch.id === branchId);
    if (!found) throw new NotFoundError('Branch', branchId);
    const looked = this.lookedAt(sessionId, at);
    const from = this.activeBranch(sessionId);
    try {
      this.transaction(() => {
        if (from !== branchId) this.heads.show(sessionId, from, branchId);
        this.statements.setActiveBranch.run(branchId, at, sessionId);
        this.statements.touchBranch.run(looked, sessionId, branchId);
      });
    } catch (error) {
      // Rolled back: the head cached for the other branch goes with it.
      this.forget(sessionId);
      throw error;
    }
    this.active.set(sessionId, branchId);
    this.lines.delete(sessionId);
    this.sessions.delete(sessionId);
    return { ...found, activeAt: looked };
  }

  /** Writes rows to the shown branch and moves the session's status and the branch's head with them. */
  private appendRows(sessionId: string, events: readonly RuntimeEvent[], at: number, head: SessionHead): JournalEntry[] {
    this.written.add(sessionId);
    let seq = this.nextSeq(sessionId);
    const branch = this.activeBranch(sessionId);
    const entries: JournalEntry[] = [];
    let status: SessionStatus | null = null;
    for (const event of events) {
      this.insertRow(sessionId, seq, at, event, branch);
      entries.push({ sessionId, seq, at, event });
      if (event.type === 'status_changed') status = event.status;
      seq += 1;
    }
    this.heads.advance(sessionId, head, at, status);
    const cached = this.sessions.get(sessionId);
    if (cached) this.sessions.set(sessionId, { ...cached, updatedAt: at, status: status ?? cached.status });
    return entries;
  }

  private insertRow(sessionId: string, seq: number, at: number, event: RuntimeEvent, branch: string): void {
    this.statements.appendEvent.run(sessionId, seq, at, eventFormatVersion, event.type, JSON.stringify(event), branch, refOf(event));
  }

  /** Adds a branch and shows it; its first event must be its own `branch_started`. */
  private openBranch(sessionId: string, branch: NewBranch, events: readonly RuntimeEvent[], at: number): void {
    const first = events[0];
    if (first?.type !== 'branch_started' || first.branchId !== branch.id) {
      throw new BugError('A branch opens with its own branch_started event.');
    }
    if (!this.statements.get.get(sessionId)) throw new NotFoundError('Session', sessionId);
    const branches = this.branches(sessionId);
    if (!branches.some((existing) => existing.id === branch.parentId)) throw new NotFoundError('Branch', branch.parentId);
    const looked = this.lookedAt(sessionId, at);
    this.statements.insertBranch.run({
      session_id: sessionId,
      id: branch.id,
      parent_id: branch.parentId,
      fork_seq: branch.forkSeq,
      checkpoint_id: branch.checkpointId,
      reason: branch.reason,
      created_at: at,
      active_at: looked,
    });
    this.heads.leave(sessionId, this.activeBranch(sessionId));
    this.statements.setActiveBranch.run(branch.id, at, sessionId);
    this.active.set(sessionId, branch.id);
    this.lines.delete(sessionId);
    this.sessions.delete(sessionId);
  }

  /** When a branch was last shown, strictly after every other, so "the one seen last" is never a tie. */
  private lookedAt(sessionId: string, at: number): number {
    return Math.max(at, ...this.branches(sessionId).map((branch) => branch.activeAt + 1));
  }

  private line(sessionId: string): Line {
    const cached = this.lines.get(sessionId);
    if (cached) return cached;
    const line = this.lineOf(sessionId, this.branches(sessionId), this.activeBranch(sessionId));
    this.lines.set(sessionId, line);
    return line;
  }

  private lineOf(sessionId: string, branches: readonly Branch[], branchId: string): Line {
    try {
      return branchLine(branches, branchId);
    } catch (error) {
      throw new StoreError('store_corrupt', `Session ${sessionId}: ${(error as Error).message}`);
    }
  }

  private forget(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.seqs.delete(sessionId);
    this.active.delete(sessionId);
    this.lines.delete(sessionId);
    this.heads.forget(sessionId);
  }
}
