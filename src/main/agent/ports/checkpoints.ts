/*
 * The checkpoint store's interface and the shapes it keeps: a chain of deltas with parents, sequence numbers and a
 * format version.
 */
/** Which thread and which checkpoint in it. */
export interface CheckpointRef {
  readonly threadId: string;
  readonly checkpointId: string;
}

/** What one step changed: the messages it appended, and the scalar state after it when that changed. */
export interface CheckpointDelta {
  readonly appended: readonly unknown[];
  readonly state?: Readonly<Record<string, unknown>>;
}

export interface CheckpointMetadata {
  readonly source: 'input' | 'model' | 'tool' | 'approval' | 'compaction' | 'restore' | 'other';
  readonly step: number;
  readonly note?: string;
}

export interface CheckpointSummary {
  readonly ref: CheckpointRef;
  readonly parentRef: CheckpointRef | null;
  readonly seq: number;
  readonly createdAt: number;
  readonly metadata: CheckpointMetadata;
}

/** A checkpoint with its state put back together: every message along its chain, and the latest scalar state. */
export interface CheckpointTuple extends CheckpointSummary {
  readonly messages: unknown[];
  readonly state: Record<string, unknown>;
  /** Set when the checkpoint asked for (or one before it) failed its integrity check and an earlier, intact one was returned. */
  readonly recoveredFrom: CheckpointRef | null;
}

/** A checkpoint as it changed things: what an export carries. */
export interface CheckpointRecord {
  readonly id: string;
  readonly parentId: string | null;
  readonly seq: number;
  readonly createdAt: number;
  readonly metadata: CheckpointMetadata;
  readonly delta: CheckpointDelta;
}

export const checkpointFormatVersion = 1;

/**
 * Checkpoints after LangGraph's savers (`put`, `getTuple`), typed, and storing what changed at each
 * step rather than the whole state, so storage grows with the conversation and not with its square.
 * Listing and pending writes are left out: the journal lists checkpoints, and a step's writes land
 * in its own transaction.
 */
export interface CheckpointStore {
  /** `id` lets the caller journal the checkpoint's id in the same transaction; a time-sortable id is made otherwise. */
  put(parent: CheckpointRef | null, threadId: string, delta: CheckpointDelta, metadata: CheckpointMetadata, id?: string): CheckpointRef;
  getTuple(ref: CheckpointRef): CheckpointTuple | null;
  /** Every checkpoint of a thread, parents before children. */
  records(threadId: string): CheckpointRecord[];
  /** Removes a thread's checkpoints (its session was deleted). */
  deleteThread(threadId: string): void;
}
