/*
 * Checkpoints in SQLite: one row per step, chained by parent and hash, and joined into segments of 64 steps that a
 * restore reads at once.
 */

import { crc32 } from 'node:zlib';
import type { Database, Statement } from 'better-sqlite3';
import { checkpointHash } from '../agent/history/checkpoint-hash';
import { materialize, recordOf, summaryOf, type CheckpointRow } from '../agent/history/checkpoint-rows';
import {
  checkpointFormatVersion,
  type CheckpointRecord,
  type CheckpointDelta,
  type CheckpointMetadata,
  type CheckpointRef,
  type CheckpointStore,
  type CheckpointTuple,
} from '../agent/ports/checkpoints';
import { newId } from '../agent/ports/ids';
import { BoundedMap } from '../../shared/bounded-map';
import { NotFoundError, StoreError } from '../../shared/errors';

interface Row {
  thread_id: string;
  id: string;
  parent_id: string | null;
  seq: number;
  format: number;
  created_at: number;
  metadata: string;
  appended: string;
  state: string | null;
  hash: string;
}

interface SegmentRow {
  end_id: string;
  previous_end_id: string | null;
  /** The messages as one JSON array, UTF-8: checked and decoded without a copy through a string first. */
  content: Buffer;
  state: string;
  crc: number;
}

/** Steps per segment. */
const segmentSize = 64;
const segmentCrc = (content: Buffer, state: string): number => crc32(state, crc32(content));
const inner = (appended: string): string => appended.slice(1, -1);

const toRow = (row: Row): CheckpointRow => ({
  threadId: row.thread_id,
  id: row.id,
  parentId: row.parent_id,
  seq: row.seq,
  createdAt: row.created_at,
  metadata: row.metadata,
  appended: row.appended,
  state: row.state,
  hash: row.hash,
});

/**
 * Checkpoints in SQLite: one row per step with what it changed, found again by a recursive walk up
 * the parents (an index lookup per step of the chain). Statements are prepared once.
 */
export class SqliteCheckpointStore implements CheckpointStore {
  private readonly statements: {
    parent: Statement<[string, string], Pick<Row, 'seq' | 'hash'>>;
    insert: Statement<[Row]>;
    chain: Statement<[{ thread: string; id: string }], Row>;
    row: Statement<[string, string], Row>;
    all: Statement<[string], Row>;
    deleteThread: Statement<[string]>;
    deleteThreadSegments: Statement<[string]>;
    recentChain: Statement<[{ thread: string; id: string; depth: number }], Row>;
    segment: Statement<[string, string], SegmentRow>;
    segmentChain: Statement<[{ thread: string; id: string }], SegmentRow>;
    insertSegment: Statement<[Record<string, unknown>]>;
    dueSegments: Statement<[{ size: number; limit: number }], Row>;
  };
  /** The rows of the last eight segments' worth of steps written, so making a segment does not read them back. */
  private readonly recent = new BoundedMap<string, CheckpointRow>({ max: segmentSize * 8 });

  constructor(
    db: Database,
    private readonly now: () => number = Date.now,
  ) {
    this.statements = {
      parent: db.prepare('SELECT seq, hash FROM checkpoints WHERE thread_id = ? AND id = ?'),
      insert: db.prepare(
        'INSERT INTO checkpoints (thread_id, id, parent_id, seq, format, created_at, metadata, appended, state, hash) VALUES (@thread_id, @id, @parent_id, @seq, @format, @created_at, @metadata, @appended, @state, @hash)',
      ),
      chain: db.prepare(`
        WITH RECURSIVE chain(id, parent_id, depth) AS (
          SELECT id, parent_id, 0 FROM checkpoints WHERE thread_id = @thread AND id = @id
          UNION ALL
          SELECT c.id, c.parent_id, chain.depth + 1 FROM checkpoints c JOIN chain ON c.thread_id = @thread AND c.id = chain.parent_id
        )
        SELECT c.* FROM chain CROSS JOIN checkpoints c ON c.thread_id = @thread AND c.id = chain.id ORDER BY chain.depth DESC`),
      row: db.prepare('SELECT * FROM checkpoints WHERE thread_id = ? AND id = ?'),
      all: db.prepare('SELECT * FROM checkpoints WHERE thread_id = ? ORDER BY seq, id'),
      deleteThread: db.prepare('DELETE FROM checkpoints WHERE thread_id = ?'),
      deleteThreadSegments: db.prepare('DELETE FROM checkpoint_segments WHERE thread_id = ?'),
      // A checkpoint and at most @depth of its ancestors, in one read (a segment holds segmentSize steps).
      recentChain: db.prepare(`
        WITH RECURSIVE chain(id, parent_id, depth) AS (
          SELECT id, parent_id, 0 FROM checkpoints WHERE thread_id = @thread AND id = @id
          UNION ALL
          SELECT c.id, c.parent_id, chain.depth + 1 FROM checkpoints c JOIN chain ON c.thread_id = @thread AND c.id = chain.parent_id
          WHERE chain.depth < @depth
        )
        SELECT c.* FROM chain CROSS JOIN checkpoints c ON c.thread_id = @thread AND c.id = chain.id`),
      segment: db.prepare(
        'SELECT end_id, previous_end_id, content, state, crc FROM checkpoint_segments WHERE thread_id = ? AND end_id = ?',
      ),
      // A segment and the ones before it, oldest first, in one read.
      segmentChain: db.prepare(`
        WITH RECURSIVE chain(end_id, previous_end_id, depth) AS (
          SELECT end_id, previous_end_id, 0 FROM checkpoint_segments WHERE thread_id = @thread AND end_id = @id
          UNION ALL
          SELECT s.end_id, s.previous_end_id, chain.depth + 1 FROM checkpoint_segments s JOIN chain ON s.thread_id = @thread AND s.end_id = chain.previous_end_id
        )
        SELECT s.end_id, s.previous_end_id, s.content, s.state, s.crc FROM chain CROSS JOIN checkpoint_segments s ON s.thread_id = @thread AND s.end_id = chain.end_id ORDER BY chain.depth DESC`),
      dueSegments: db.prepare(
        'SELECT c.* FROM checkpoints c LEFT JOIN checkpoint_segments s ON s.thread_id = c.thread_id AND s.end_id = c.id WHERE (c.seq + 1) % @size = 0 AND s.end_id IS NULL ORDER BY c.seq LIMIT @limit',
      ),
      insertSegment: db.prepare(
        'INSERT OR IGNORE INTO checkpoint_segments (thread_id, end_id, previous_end_id, start_seq, end_seq, content, state, crc) VALUES (@thread_id, @end_id, @previous_end_id, @start_seq, @end_seq, @content, @state, @crc)',
      ),
    };
  }

  put(
    parent: CheckpointRef | null,
    threadId: string,
    delta: CheckpointDelta,
    metadata: CheckpointMetadata,
    id: string = newId(this.now()),
  ): CheckpointRef {
    let parentSeq = -1;
    let parentHash = '';
    if (parent) {
      const found = parent.threadId === threadId ? this.statements.parent.get(threadId, parent.checkpointId) : undefined;
      if (!found) throw new NotFoundError('Checkpoint', parent.checkpointId);
      parentSeq = found.seq;
      parentHash = found.hash;
    }
    const seq = parentSeq + 1;
    const appended = JSON.stringify(delta.appended);
    const state = delta.state === undefined ? null : JSON.stringify(delta.state);
    const meta = JSON.stringify(metadata);
    const row: Row = {
      thread_id: threadId,
      id,
      parent_id: parent?.checkpointId ?? null,
      seq,
      format: checkpointFormatVersion,
      created_at: this.now(),
      metadata: meta,
      appended,
      state,
      hash: checkpointHash(parentHash, seq, appended, state, meta),
    };
    this.statements.insert.run(row);
    this.remember(toRow(row));
    return { threadId, checkpointId: id };
  }

  /**
   * Writes the segments that are due, oldest first, at most `limit` of them. It runs when the app
   * is idle, not inside a step; until it has run, restores walk the rows instead.
   */
  compact(limit = 500): number {
    const due = this.statements.dueSegments.all({ size: segmentSize, limit });
    let written = 0;
    for (const row of due) if (this.writeSegment(toRow(row))) written += 1;
    return written;
  }

  private remember(row: CheckpointRow): void {
    this.recent.set(`${row.threadId}/${row.id}`, row);
  }

  private rowOf(threadId: string, id: string): CheckpointRow | null {
    const cached = this.recent.get(`${threadId}/${id}`);
    if (cached) return cached;
    const row = this.statements.row.get(threadId, id);
    return row ? toRow(row) : null;
  }

  /** Joins the messages of the last `segmentSize` steps of this chain into one segment. */
  private writeSegment(end: CheckpointRow): boolean {
    const rows: CheckpointRow[] = [end];
    while (rows.length < segmentSize) {
      const first = rows[0] as CheckpointRow;
      const parent = first.parentId === null ? null : this.rowOf(end.threadId, first.parentId);
      if (!parent) return false;
      rows.unshift(parent);
    }
    const first = rows[0] as CheckpointRow;
    const previousEndId = first.parentId;
    let state = [...rows].reverse().find((row) => row.state !== null)?.state ?? null;
    if (state === null) state = previousEndId === null ? '{}' : (this.statements.segment.get(end.threadId, previousEndId)?.state ?? null);
    if (state === null) return false;
    // A segment is only as good as its rows: each is checked against its hash before it is joined.
    let parentHash = previousEndId === null ? '' : (this.rowOf(end.threadId, previousEndId)?.hash ?? null);
    if (parentHash === null) return false;
    for (const row of rows) {
      if (checkpointHash(parentHash, row.seq, row.appended, row.state, row.metadata) !== row.hash) return false;
      parentHash = row.hash;
    }
    // Stored as a whole JSON array, so a restore parses it as it is read.
    const content = Buffer.from(
      `[${rows
        .map((row) => inner(row.appended))
        .filter((part) => part.length > 0)
        .join(',')}]`,
      'utf8',
    );
    this.statements.insertSegment.run({
      thread_id: end.threadId,
      end_id: end.id,
      previous_end_id: previousEndId,
      start_seq: first.seq,
      end_seq: end.seq,
      content,
      state,
      crc: segmentCrc(content, state),
    });
    return true;
  }

  /**
   * The quick way back: the steps after the newest segment one by one, then segment by segment to
   * the start. Null when a segment is missing or damaged, and the row-by-row walk decides.
   */
  private viaSegments(ref: CheckpointRef): CheckpointTuple | null {
    // Restores read from disk, never from the write cache, so damage on disk is seen. The steps
    // since the last segment boundary, and the boundary's own, come in one read of the chain.
    const stored = this.statements.row.get(ref.threadId, ref.checkpointId);
    if (!stored) return null;
    const depth = (stored.seq + 1) % segmentSize;
    const nearby = new Map(
      (depth === 0 ? [stored] : this.statements.recentChain.all({ thread: ref.threadId, id: ref.checkpointId, depth })).map((row) => [
        row.id,
        toRow(row),
      ]),
    );
    const targetRow = nearby.get(ref.checkpointId);
    if (!targetRow) return null;
    const fromDisk = (id: string): CheckpointRow | null => {
      const near = nearby.get(id);
      if (near) return near;
      const row = this.statements.row.get(ref.threadId, id);
      return row ? toRow(row) : null;
    };
    const tail: CheckpointRow[] = [];
    let cursor: CheckpointRow | null = targetRow;
    const target = cursor;
    while ((cursor.seq + 1) % segmentSize !== 0 || !this.statements.segment.get(ref.threadId, cursor.id)) {
      tail.unshift(cursor);
      if (cursor.parentId === null) {
        cursor = null;
        break;
      }
      cursor = fromDisk(cursor.parentId);
      if (!cursor) return null;
    }
    const segments = cursor ? this.statements.segmentChain.all({ thread: ref.threadId, id: cursor.id }) : [];
    if (segments.length === 0 && cursor) return null;
    if (segments[0]?.previous_end_id !== null && segments.length > 0) return null;
    const messages: unknown[] = [];
    for (const segment of segments) {
      if (segmentCrc(segment.content, segment.state) !== segment.crc) return null;
      const parsed = JSON.parse(segment.content.toString('utf8')) as unknown[];
      for (const item of parsed) messages.push(item);
    }
    let parentHash = cursor?.hash ?? '';
    for (const row of tail) {
      if (checkpointHash(parentHash, row.seq, row.appended, row.state, row.metadata) !== row.hash) return null;
      parentHash = row.hash;
    }
    for (const row of tail) for (const item of JSON.parse(row.appended) as unknown[]) messages.push(item);
    const state = [...tail].reverse().find((row) => row.state !== null)?.state ?? segments.at(-1)?.state ?? '{}';
    return {
      ...summaryOf(target),
      messages,
      state: JSON.parse(state) as Record<string, unknown>,
      recoveredFrom: null,
    };
  }

  getTuple(ref: CheckpointRef): CheckpointTuple | null {
    const quick = this.viaSegments(ref);
    if (quick) return quick;
    const rows = this.statements.chain.all({ thread: ref.threadId, id: ref.checkpointId });
    if (rows.length === 0) return null;
    if (rows.some((row) => row.format > checkpointFormatVersion))
      throw new StoreError('store_newer_version', `Checkpoint ${ref.checkpointId} was written by a newer version of the app.`);
    return materialize(rows.map(toRow), ref);
  }

  records(threadId: string): CheckpointRecord[] {
    return this.statements.all.all(threadId).map((row) => {
      if (row.format > checkpointFormatVersion)
        throw new StoreError('store_newer_version', `Checkpoint ${row.id} was written by a newer version of the app.`);
      return recordOf(toRow(row));
    });
  }

  deleteThread(threadId: string): void {
    this.statements.deleteThreadSegments.run(threadId);
    this.statements.deleteThread.run(threadId);
  }
}
