/*
 * The session store's interface: sessions, their branches, the journal, and where each line stands.
 */
import type { Autonomy, Branch, BranchReason, ModelChoice, Session, SessionStatus, SubAgentLink } from '../../../shared/domain';
import type { JournalEntry, RuntimeEvent } from '../../../shared/events';
import type { SessionHead } from './session-head';

export interface NewSession {
  readonly id: string;
  readonly title: string;
  readonly workspacePath: string | null;
  readonly model: ModelChoice | null;
  readonly autonomy: Autonomy;
  readonly createdAt: number;
  /** A sub-agent's session: its parent's session and call, and its bounds. */
  readonly subAgent?: SubAgentLink;
}

export interface SessionPatch {
  readonly title?: string;
  readonly workspacePath?: string | null;
  readonly model?: ModelChoice | null;
  readonly autonomy?: Autonomy;
}

/** A session that was deleted and is kept, restorable, until it is purged. */
export interface ArchivedSession {
  readonly session: Session;
  readonly archivedAt: number;
}

export interface NewBranch {
  readonly id: string;
  readonly parentId: string;
  readonly forkSeq: number;
  readonly checkpointId: string | null;
  readonly reason: BranchReason;
}

export const mainBranchId = 'main';

/** Events that introduce an id of their own, by which their row is found. */
export type IdentifiedEventType = 'user_message' | 'run_started' | 'checkpoint_saved' | 'files_restored';

export interface BranchSummary {
  /** The text of the branch's first message, or ''. */
  readonly title: string;
  readonly messages: number;
  readonly checkpoints: number;
}

export interface ImportedSession {
  readonly session: NewSession & { readonly status: SessionStatus; readonly updatedAt: number };
  readonly branches: readonly Branch[];
  readonly activeBranchId: string;
  readonly rows: ReadonlyArray<{ seq: number; at: number; branchId: string; event: RuntimeEvent }>;
  /** Where each branch's line stands after `rows`, by branch id (see `history/head-fold.ts`). */
  readonly heads: ReadonlyMap<string, SessionHead>;
}

/**
 * Sessions and their event journal. Appends are atomic: all events of a call land, or none. A
 * session's journal is a tree of branches; appends go to the active branch, and `journal` reads
 * one branch's whole line (its ancestors' events up to each fork, then its own).
 */
export interface SessionStore {
  /** The person's own sessions, not archived: sub-agents' sessions are not listed (see `subAgents`). */
  list(): Session[];
  /** The sub-agents' sessions a session's calls started, oldest first. */
  subAgents(parentSessionId: string): Session[];
  get(sessionId: string): Session | null;
  create(session: NewSession): Session;
  update(sessionId: string, patch: SessionPatch, at: number): Session;
  delete(sessionId: string): boolean;
  /**
   * Archives a session at `archivedAt` (null takes it out of the archive again). An archived session keeps every row
   * but is neither listed nor found by `get`, so nothing can run in it until it is restored.
   */
  setArchived(sessionId: string, archivedAt: number | null): boolean;
  /** The archived sessions, most recently archived first. */
  archived(): ArchivedSession[];
  /** Whether a session works in the folder: one of the person's, not archived, or a sub-agent's of one. */
  worksIn(folder: string): boolean;
  /**
   * Appends events in order to the shown branch, or to `branch`, which is opened (and shown) first in
   * the same transaction; its events then begin with its `branch_started`. They take the seqs from
   * `nextSeq` on. A `status_changed` event also updates the session row, and `head`, where the line
   * stands after the events (the journal folds it), is kept in the same transaction.
   */
  append(
    sessionId: string,
    events: readonly RuntimeEvent[],
    at: number,
    options: { readonly head: SessionHead; readonly branch?: NewBranch },
  ): JournalEntry[];
  /** The seq the session's next journal row takes. */
  nextSeq(sessionId: string): number;
  /** A line of the journal: the shown branch's unless `branchId`, rows after `afterSeq` and up to `upToSeq`. */
  journal(sessionId: string, options?: { afterSeq?: number; upToSeq?: number; branchId?: string }): JournalEntry[];
  /**
   * Where the shown line stands, as kept with its last append; null when it was never computed or by another version
   * of the fold (a database from before heads, a branch shown again whose head was not kept): the journal then
   * replays the line and keeps what it finds with `putHead`.
   */
  head(sessionId: string): SessionHead | null;
  /** Keeps where the shown line stands, as a replay of its journal found it. */
  putHead(sessionId: string, head: SessionHead): void;
  /** The row of an event on the shown line, found by the id it introduces: a message, a turn, a checkpoint, a restore. */
  findById(sessionId: string, type: IdentifiedEventType, id: string): JournalEntry | null;
  /** The nearest row on the shown line before or after `seq` (not at it), of one of `types` when given. */
  nearest(sessionId: string, direction: 'before' | 'after', seq: number, types?: readonly RuntimeEvent['type'][]): JournalEntry | null;
  /** What each branch holds, for telling them apart: its first message, its messages and checkpoints. */
  branchSummaries(sessionId: string): Map<string, BranchSummary>;
  branches(sessionId: string): Branch[];
  /** Where the last `turns` turns of the shown line begin (the seq of that user message); -1 when the line has no more turns than that. */
  recentTurnsStart(sessionId: string, turns: number): number;
  activeBranch(sessionId: string): string;
  /** The newest journal row each branch wrote itself. */
  lastSeqByBranch(sessionId: string): Map<string, number>;
  activateBranch(sessionId: string, branchId: string, at: number): Branch;
  /** Every journal row of every branch, in order: what an export carries. */
  allRows(sessionId: string): Array<{ seq: number; at: number; branchId: string; format: number; event: RuntimeEvent }>;
  /** Writes a whole session at once (an import): the session, its branches and its journal, in one transaction. */
  importSession(input: ImportedSession): Session;
  /**
   * Runs `work` in one transaction, so appends and other writes of the same database land together
   * or not at all. Inside one already, `work` joins it: an error inside a transaction ends it, and
   * nothing catches one there and goes on writing.
   */
  transaction<T>(work: () => T): T;
}
