import type { Autonomy, Branch, BranchReason, ModelChoice, Session, SessionStatus } from '../../shared/domain';
import type { JournalEntry, RuntimeEvent } from '../../shared/events';

export interface NewSession {
  readonly id: string;
  readonly title: string;
  readonly workspacePath: string | null;
  readonly model: ModelChoice | null;
  readonly autonomy: Autonomy;
  readonly createdAt: number;
}

export interface SessionPatch {
  readonly title?: string;
  readonly workspacePath?: string | null;
  readonly model?: ModelChoice | null;
  readonly autonomy?: Autonomy;
  readonly status?: SessionStatus;
}

export interface NewBranch {
  readonly id: string;
  readonly parentId: string;
  readonly forkSeq: number;
  readonly checkpointId: string | null;
  readonly reason: BranchReason;
}

export const mainBranchId = 'main';

export interface ImportedSession {
  readonly session: NewSession & { readonly status: SessionStatus; readonly updatedAt: number };
  readonly branches: readonly Branch[];
  readonly activeBranchId: string;
  readonly rows: ReadonlyArray<{ seq: number; at: number; branchId: string; event: RuntimeEvent }>;
}

/**
 * Sessions and their event journal. Appends are atomic: all events of a call land, or none. A
 * session's journal is a tree of branches; appends go to the active branch, and `journal` reads
 * one branch's whole line (its ancestors' events up to each fork, then its own).
 */
export interface SessionStore {
  list(): Session[];
  get(sessionId: string): Session | null;
  create(session: NewSession): Session;
  update(sessionId: string, patch: SessionPatch, at: number): Session;
  delete(sessionId: string): boolean;
  /** Appends events in order; a `status_changed` event also updates the session row in the same transaction. */
  append(sessionId: string, events: readonly RuntimeEvent[], at: number): JournalEntry[];
  journal(sessionId: string, options?: { afterSeq?: number; branchId?: string }): JournalEntry[];
  branches(sessionId: string): Branch[];
  /** Where the last `turns` turns of the shown line begin (the seq of that user message); -1 when the line has no more turns than that. */
  recentTurnsStart(sessionId: string, turns: number): number;
  activeBranch(sessionId: string): string;
  /** The newest journal row each branch wrote itself. */
  lastSeqByBranch(sessionId: string): Map<string, number>;
  /** Adds a branch and makes it the active one. */
  createBranch(sessionId: string, branch: NewBranch, at: number): Branch;
  activateBranch(sessionId: string, branchId: string, at: number): Branch;
  /** Every journal row of every branch, in order: what an export carries. */
  allRows(sessionId: string): Array<{ seq: number; at: number; branchId: string; format: number; event: RuntimeEvent }>;
  /** Writes a whole session at once (an import): the session, its branches and its journal, in one transaction. */
  importSession(input: ImportedSession): Session;
  /** Runs `work` in one transaction, so appends and other writes of the same database land together or not at all. */
  transaction<T>(work: () => T): T;
}
