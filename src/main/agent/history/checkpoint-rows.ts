/*
 * A checkpoint put together from its stored chain of deltas.
 */
import { checkpointHash } from './checkpoint-hash';
import type { CheckpointRecord, CheckpointMetadata, CheckpointRef, CheckpointSummary, CheckpointTuple } from '../ports/checkpoints';

/** A checkpoint as stored: the delta as JSON text, and the chained hash. */
export interface CheckpointRow {
  readonly threadId: string;
  readonly id: string;
  readonly parentId: string | null;
  readonly seq: number;
  readonly createdAt: number;
  readonly metadata: string;
  /** A JSON array of the messages this step appended. */
  readonly appended: string;
  /** JSON of the scalar state, or null when it did not change. */
  readonly state: string | null;
  readonly hash: string;
}

export function summaryOf(row: CheckpointRow): CheckpointSummary {
  return {
    ref: { threadId: row.threadId, checkpointId: row.id },
    parentRef: row.parentId === null ? null : { threadId: row.threadId, checkpointId: row.parentId },
    seq: row.seq,
    createdAt: row.createdAt,
    metadata: JSON.parse(row.metadata) as CheckpointMetadata,
  };
}

/**
 * Puts a checkpoint together from its chain, root first. Each row's hash is checked against its
 * parent's; at the first row that fails, the chain is cut and its parent is what is returned,
 * marked as recovered from the checkpoint asked for. The messages are joined as JSON text and
 * parsed once, which costs about what parsing a saved whole state would.
 */
export function materialize(chain: readonly CheckpointRow[], requested: CheckpointRef): CheckpointTuple | null {
  let parentHash = '';
  let intact = chain.length;
  for (let index = 0; index < chain.length; index += 1) {
    const row = chain[index] as CheckpointRow;
    if (checkpointHash(parentHash, row.seq, row.appended, row.state, row.metadata) !== row.hash) {
      intact = index;
      break;
    }
    parentHash = row.hash;
  }
  if (intact === 0) return null;
  const used = chain.slice(0, intact);
  const last = used.at(-1) as CheckpointRow;
  const parts: string[] = [];
  let state = '{}';
  for (const row of used) {
    if (row.appended.length > 2) parts.push(row.appended.slice(1, -1));
    if (row.state !== null) state = row.state;
  }
  return {
    ...summaryOf(last),
    messages: JSON.parse(`[${parts.join(',')}]`) as unknown[],
    state: JSON.parse(state) as Record<string, unknown>,
    recoveredFrom: intact < chain.length ? requested : null,
  };
}

export function recordOf(row: CheckpointRow): CheckpointRecord {
  return {
    id: row.id,
    parentId: row.parentId,
    seq: row.seq,
    createdAt: row.createdAt,
    metadata: JSON.parse(row.metadata) as CheckpointMetadata,
    delta:
      row.state === null
        ? { appended: JSON.parse(row.appended) as unknown[] }
        : { appended: JSON.parse(row.appended) as unknown[], state: JSON.parse(row.state) as Record<string, unknown> },
  };
}
