import { newId } from '../../../../src/main/agent/ports/ids';
import { checkpointHash } from '../../../../src/main/agent/history/checkpoint-hash';
import { materialize, recordOf, type CheckpointRow } from '../../../../src/main/agent/history/checkpoint-rows';
import type {
  CheckpointRecord,
  CheckpointDelta,
  CheckpointMetadata,
  CheckpointRef,
  CheckpointStore,
  CheckpointTuple,
} from '../../../../src/main/agent/ports/checkpoints';

/** Checkpoints in memory, the second store the conformance suite runs against: the same rows and checks as the SQLite store. */
export class MemoryCheckpointStore implements CheckpointStore {
  private readonly rows = new Map<string, CheckpointRow>();

  constructor(private readonly now: () => number = Date.now) {}

  put(
    parent: CheckpointRef | null,
    threadId: string,
    delta: CheckpointDelta,
    metadata: CheckpointMetadata,
    id: string = newId(this.now()),
  ): CheckpointRef {
    const parentRow = parent ? this.rows.get(`${parent.threadId}/${parent.checkpointId}`) : undefined;
    if (parent && (!parentRow || parent.threadId !== threadId))
      throw new Error(`No checkpoint ${parent.checkpointId} in thread ${threadId}.`);
    const seq = parentRow ? parentRow.seq + 1 : 0;
    const appended = JSON.stringify(delta.appended);
    const state = delta.state === undefined ? null : JSON.stringify(delta.state);
    const meta = JSON.stringify(metadata);
    const row: CheckpointRow = {
      threadId,
      id,
      parentId: parentRow?.id ?? null,
      seq,
      createdAt: this.now(),
      metadata: meta,
      appended,
      state,
      hash: checkpointHash(parentRow?.hash ?? '', seq, appended, state, meta),
    };
    this.rows.set(`${threadId}/${row.id}`, row);
    return { threadId, checkpointId: row.id };
  }

  getTuple(ref: CheckpointRef): CheckpointTuple | null {
    const chain: CheckpointRow[] = [];
    for (
      let row = this.rows.get(`${ref.threadId}/${ref.checkpointId}`);
      row;
      row = row.parentId === null ? undefined : this.rows.get(`${ref.threadId}/${row.parentId}`)
    )
      chain.unshift(row);
    if (chain.length === 0) return null;
    return materialize(chain, ref);
  }

  records(threadId: string): CheckpointRecord[] {
    return [...this.rows.values()]
      .filter((row) => row.threadId === threadId)
      .sort((a, b) => a.seq - b.seq || (a.id < b.id ? -1 : 1))
      .map(recordOf);
  }

  deleteThread(threadId: string): void {
    for (const [key, row] of this.rows) if (row.threadId === threadId) this.rows.delete(key);
  }

  /** Test hook: changes a stored row as damage on disk would. */
  tamper(ref: CheckpointRef, appended: string): void {
    const key = `${ref.threadId}/${ref.checkpointId}`;
    const row = this.rows.get(key);
    if (row) this.rows.set(key, { ...row, appended });
  }
}
