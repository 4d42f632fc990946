import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { CheckpointRef, CheckpointStore } from '../../../../src/main/agent/ports/checkpoints';
import { MemoryCheckpointStore } from './memory-checkpoint-store';
import { openDatabase } from '../../../../src/main/store/database';
import { migrations } from '../../../../src/main/store/migrations';
import { SqliteCheckpointStore } from '../../../../src/main/store/sqlite-checkpoint-store';
import { temporaryFolder } from '../../../helpers';

/** One spec for every checkpoint store: each initializer makes a store and can damage a row of it. */
interface StoreFixture {
  readonly store: CheckpointStore;
  tamper(ref: CheckpointRef, appended: string): void;
  destroy(): void;
}

const initializers: Array<{ name: string; create: () => StoreFixture }> = [
  {
    name: 'MemoryCheckpointStore',
    create: () => {
      const store = new MemoryCheckpointStore();
      return { store, tamper: (ref, appended) => store.tamper(ref, appended), destroy: () => undefined };
    },
  },
  {
    name: 'SqliteCheckpointStore',
    create: () => {
      const folder = temporaryFolder();
      const db: Database = openDatabase(join(folder.path, 'workbench.sqlite')).db;
      return {
        store: new SqliteCheckpointStore(db),
        tamper: (ref, appended) =>
          void db
            .prepare('UPDATE checkpoints SET appended = ? WHERE thread_id = ? AND id = ?')
            .run(appended, ref.threadId, ref.checkpointId),
        destroy: () => {
          db.close();
          folder.remove();
        },
      };
    },
  },
];

const meta = (step: number) => ({ source: 'model' as const, step });

describe.each(initializers)('$name', ({ create }) => {
  const withStore = (test: (fixture: StoreFixture) => void) => () => {
    const fixture = create();
    try {
      test(fixture);
    } finally {
      fixture.destroy();
    }
  };

  it(
    'puts each step’s change and gets back the whole state, in order',
    withStore(({ store }) => {
      const root = store.put(
        null,
        't1',
        { appended: [{ role: 'user', content: 'hi' }], state: { status: 'planning' } },
        { source: 'input', step: 0 },
      );
      const second = store.put(root, 't1', { appended: [{ role: 'assistant', content: 'hello ✓ “quotes” \u2028' }] }, meta(1));
      const third = store.put(second, 't1', { appended: [], state: { status: 'completed', nested: { list: [1, 2] } } }, meta(2));
      const tuple = store.getTuple(third);
      expect(tuple).toMatchObject({
        seq: 2,
        parentRef: second,
        metadata: meta(2),
        recoveredFrom: null,
        state: { status: 'completed', nested: { list: [1, 2] } },
      });
      expect(tuple?.messages).toEqual([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello ✓ “quotes” \u2028' },
      ]);
      expect(store.getTuple(root)?.state).toEqual({ status: 'planning' });
      expect(store.getTuple(second)?.state).toEqual({ status: 'planning' });
    }),
  );

  it(
    'keeps branches apart: two children of one parent each see their own history',
    withStore(({ store }) => {
      const root = store.put(null, 't', { appended: ['q'] }, meta(0));
      const a = store.put(root, 't', { appended: ['answer a'] }, meta(1));
      const b = store.put(root, 't', { appended: ['answer b'] }, meta(1));
      const a2 = store.put(a, 't', { appended: ['more a'] }, meta(2));
      expect(store.getTuple(a2)?.messages).toEqual(['q', 'answer a', 'more a']);
      expect(store.getTuple(b)?.messages).toEqual(['q', 'answer b']);
    }),
  );

  it(
    'falls back to the last intact checkpoint when one in the chain fails its hash',
    withStore(({ store, tamper }) => {
      const root = store.put(null, 't', { appended: ['a'] }, meta(0));
      const middle = store.put(root, 't', { appended: ['b'] }, meta(1));
      const last = store.put(middle, 't', { appended: ['c'] }, meta(2));
      tamper(middle, '["B, changed on disk"]');
      const tuple = store.getTuple(last);
      expect(tuple?.ref).toEqual(root);
      expect(tuple?.messages).toEqual(['a']);
      expect(tuple?.recoveredFrom).toEqual(last);
      tamper(root, '["x"]');
      expect(store.getTuple(last)).toBeNull();
    }),
  );

  it(
    'refuses a parent that does not exist and answers null for an unknown checkpoint',
    withStore(({ store }) => {
      expect(() => store.put({ threadId: 't', checkpointId: 'nope' }, 't', { appended: [] }, meta(0))).toThrow();
      const ref = store.put(null, 't', { appended: [] }, meta(0));
      expect(() => store.put(ref, 'another-thread', { appended: [] }, meta(1))).toThrow();
      expect(store.getTuple({ threadId: 't', checkpointId: 'nope' })).toBeNull();
    }),
  );

  it(
    'restores a long chain whole',
    withStore(({ store }) => {
      let ref: CheckpointRef | null = null;
      for (let step = 0; step < 2000; step += 1)
        ref = store.put(
          ref,
          't',
          { appended: [{ step, text: 'x'.repeat(100) }], ...(step % 100 === 0 ? { state: { step } } : {}) },
          meta(step),
        );
      const tuple = store.getTuple(ref as CheckpointRef);
      expect(tuple?.messages).toHaveLength(2000);
      expect((tuple?.messages[1999] as { step: number }).step).toBe(1999);
      expect(tuple?.state).toEqual({ step: 1900 });
    }),
  );

  it(
    'lists every checkpoint of a thread as it changed things, parents first, and a copy made from them restores the same',
    withStore(({ store }) => {
      const root = store.put(null, 't', { appended: ['q'], state: { status: 'planning' } }, { source: 'input', step: 0 });
      const a = store.put(root, 't', { appended: ['a'] }, meta(1));
      const b = store.put(root, 't', { appended: ['b'], state: { status: 'done' } }, meta(1));
      store.put(null, 'other', { appended: ['elsewhere'] }, meta(0));
      const records = store.records('t');
      expect(records.map((record) => record.id)).toEqual(expect.arrayContaining([root.checkpointId, a.checkpointId, b.checkpointId]));
      expect(records[0]?.id).toBe(root.checkpointId);
      expect(records.find((record) => record.id === b.checkpointId)).toMatchObject({
        parentId: root.checkpointId,
        seq: 1,
        delta: { appended: ['b'], state: { status: 'done' } },
      });
      for (const record of records)
        store.put(
          record.parentId ? { threadId: 'copy', checkpointId: record.parentId } : null,
          'copy',
          record.delta,
          record.metadata,
          record.id,
        );
      expect(store.getTuple({ threadId: 'copy', checkpointId: b.checkpointId })).toMatchObject({
        messages: ['q', 'b'],
        state: { status: 'done' },
        recoveredFrom: null,
      });
      store.deleteThread('t');
      expect(store.records('t')).toEqual([]);
      expect(store.getTuple(a)).toBeNull();
      expect(store.records('other')).toHaveLength(1);
    }),
  );
});

describe('SqliteCheckpointStore storage', () => {
  it('grows linearly with the conversation', () => {
    const folder = temporaryFolder();
    const db = openDatabase(join(folder.path, 'workbench.sqlite')).db;
    const store = new SqliteCheckpointStore(db);
    const pages = (): number => db.pragma('page_count', { simple: true }) as number;
    let ref: CheckpointRef | null = null;
    const sizes: number[] = [];
    for (let step = 1; step <= 2000; step += 1) {
      ref = store.put(ref, 't', { appended: [{ role: 'user', content: 'y'.repeat(1000) }] }, meta(step));
      if (step === 1000 || step === 2000) {
        db.pragma('wal_checkpoint(TRUNCATE)');
        sizes.push(pages());
      }
    }
    // Twice the steps, about twice the pages: not four times, as storing the whole state would give.
    expect((sizes[1] as number) / (sizes[0] as number)).toBeLessThan(2.2);
    const bytesPerStep = ((sizes[1] as number) * (db.pragma('page_size', { simple: true }) as number)) / 2000;
    expect(bytesPerStep).toBeLessThan(3 * 1000);
    db.close();
    folder.remove();
  });

  it("writes a page fewer in each step's commit than when checkpoints had an index by step number", () => {
    const framesPerStep = (upTo: number): number => {
      const folder = temporaryFolder();
      const path = join(folder.path, 'workbench.sqlite');
      const db = openDatabase(path, { migrations: migrations.filter((migration) => migration.version <= upTo) }).db;
      const store = new SqliteCheckpointStore(db);
      let ref: CheckpointRef | null = null;
      for (let step = 1; step <= 400; step += 1)
        ref = store.put(ref, 't', { appended: [{ role: 'user', content: 'y'.repeat(1000) }] }, meta(step));
      // Each commit appends the pages it changed to the write-ahead log; a checkpoint says how many are there.
      const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)') as [{ log: number }];
      db.close();
      folder.remove();
      return log / 400;
    };
    const before = framesPerStep(16);
    const now = framesPerStep(Number.MAX_SAFE_INTEGER);
    // About four pages before (the row's leaf, its parent at a split, two index entries), about three now.
    expect(before - now).toBeGreaterThan(0.9);
    expect(now).toBeLessThan(3.2);
  });
});

describe('SqliteCheckpointStore segments', () => {
  const setup = () => {
    const folder = temporaryFolder();
    const db = openDatabase(join(folder.path, 'workbench.sqlite')).db;
    return { db, store: new SqliteCheckpointStore(db), done: () => (db.close(), folder.remove()) };
  };
  const chain = (store: SqliteCheckpointStore, from: CheckpointRef | null, steps: number, label: string, start = 0): CheckpointRef[] => {
    const refs: CheckpointRef[] = [];
    let ref = from;
    for (let step = start; step < start + steps; step += 1)
      refs.push((ref = store.put(ref, 't', { appended: [`${label}${step}`] }, meta(step))));
    return refs;
  };

  it('restores the same with segments, with some of them, and with none', () => {
    const { store, done } = setup();
    const refs = chain(store, null, 300, 'm');
    const expected = (n: number) => Array.from({ length: n }, (_, step) => `m${step}`);
    expect(store.getTuple(refs[299] as CheckpointRef)?.messages).toEqual(expected(300));
    store.compact(2);
    expect(store.getTuple(refs[299] as CheckpointRef)?.messages).toEqual(expected(300));
    store.compact();
    expect(store.getTuple(refs[299] as CheckpointRef)?.messages).toEqual(expected(300));
    expect(store.getTuple(refs[127] as CheckpointRef)?.messages).toEqual(expected(128));
    done();
  });

  it('restores correctly from the rows when a segment is damaged', () => {
    const { db, store, done } = setup();
    const refs = chain(store, null, 200, 'm');
    expect((db.prepare('SELECT COUNT(*) AS n FROM checkpoint_segments').get() as { n: number }).n).toBe(0);
    expect(store.compact()).toBe(3);
    expect(store.compact()).toBe(0);
    expect((db.prepare('SELECT COUNT(*) AS n FROM checkpoint_segments').get() as { n: number }).n).toBe(3);
    db.prepare(`UPDATE checkpoint_segments SET content = CAST('"damaged"' AS BLOB) WHERE start_seq = 64`).run();
    const tuple = store.getTuple(refs[199] as CheckpointRef);
    expect(tuple?.messages).toEqual(Array.from({ length: 200 }, (_, step) => `m${step}`));
    expect(tuple?.recoveredFrom).toBeNull();
    done();
  });

  it('restores the same from a database written before the index by step number was dropped', () => {
    const folder = temporaryFolder();
    const path = join(folder.path, 'workbench.sqlite');
    const early = openDatabase(path, { migrations: migrations.filter((migration) => migration.version <= 16) }).db;
    const earlyStore = new SqliteCheckpointStore(early);
    const main = chain(earlyStore, null, 200, 'm');
    const branch = chain(earlyStore, main[99] as CheckpointRef, 60, 'b', 100);
    expect(earlyStore.compact(1)).toBe(1);
    early.close();
    const { db } = openDatabase(path);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'checkpoints_seq'").get()).toBeUndefined();
    const store = new SqliteCheckpointStore(db);
    const expected = (n: number) => Array.from({ length: n }, (_, step) => `m${step}`);
    expect(store.getTuple(main[199] as CheckpointRef)?.messages).toEqual(expected(200));
    expect(store.getTuple(branch[59] as CheckpointRef)?.messages).toEqual([
      ...expected(100),
      ...Array.from({ length: 60 }, (_, step) => `b${step + 100}`),
    ]);
    expect(store.compact()).toBe(3);
    expect(store.getTuple(main[199] as CheckpointRef)?.messages).toEqual(expected(200));
    expect(store.records('t')).toHaveLength(260);
    db.close();
    folder.remove();
  });

  it('keeps a branch made in the middle of a segment apart from the main line', () => {
    const { store, done } = setup();
    const main = chain(store, null, 200, 'm');
    const branch = chain(store, main[99] as CheckpointRef, 100, 'b', 100);
    expect(store.compact()).toBe(5);
    expect(store.getTuple(main[199] as CheckpointRef)?.messages).toEqual(Array.from({ length: 200 }, (_, step) => `m${step}`));
    expect(store.getTuple(branch[99] as CheckpointRef)?.messages).toEqual([
      ...Array.from({ length: 100 }, (_, step) => `m${step}`),
      ...Array.from({ length: 100 }, (_, step) => `b${step + 100}`),
    ]);
    expect(store.getTuple(branch[20] as CheckpointRef)?.messages.at(-1)).toBe('b120');
    done();
  });
});
