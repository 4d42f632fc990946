import { statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import type { CheckpointRef } from '../src/main/agent/ports/checkpoints';
import { openDatabase } from '../src/main/store/database';
import { SqliteCheckpointStore } from '../src/main/store/sqlite-checkpoint-store';
import { temporaryFolder } from '../test/helpers';
import { testDatabaseKeys } from '../test/host/test-keychain';

/*
 * The same conversation (one 1 KB message appended per step) checkpointed after every step by our
 * store and by LangGraph's SqliteSaver, side by side: bytes on disk over the raw message bytes,
 * write time per step, and restore time at N/2 and N against JSON.parse of the restored state.
 */

const message = (step: number) => ({
  role: step % 2 === 0 ? 'user' : 'assistant',
  content: `${String(step).padStart(6, '0')} ${'m'.repeat(1000 - 8)}`,
});
const rawBytes = (n: number): number => Buffer.byteLength(JSON.stringify(Array.from({ length: n }, (_, step) => message(step))));

function fileBytes(path: string): number {
  return [path, `${path}-wal`, `${path}-shm`].filter((file) => existsSync(file)).reduce((sum, file) => sum + statSync(file).size, 0);
}

const percentile = (values: number[], p: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? Number.NaN;

interface Result {
  n: number;
  storageRatio: number;
  writeP99: number;
  restoreVsParse: number;
}

/** Our store at `n` steps, on a plain database or on one encrypted at rest (AEGIS-256), as the app opens it. */
function ours(n: number, encrypted = false): Result {
  const folder = temporaryFolder('workbench-bench-cp-');
  const path = join(folder.path, 'workbench.sqlite');
  const { db, encryption } = openDatabase(path, encrypted ? { keys: testDatabaseKeys(folder.path) } : {});
  if (encryption.encrypted !== encrypted) throw new Error(`the database was to be ${encrypted ? 'encrypted' : 'plain'}`);
  const store = new SqliteCheckpointStore(db);
  const writes: number[] = [];
  const refs: CheckpointRef[] = [];
  let ref: CheckpointRef | null = null;
  for (let step = 0; step < n; step += 1) {
    const started = performance.now();
    ref = store.put(
      ref,
      'thread',
      { appended: [message(step)], ...(step % 64 === 0 ? { state: { step } } : {}) },
      { source: 'model', step },
    );
    writes.push(performance.now() - started);
    refs.push(ref);
  }
  // The app writes segments while idle; do the same before measuring size and restores.
  store.compact(Number.MAX_SAFE_INTEGER);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const storageRatio = fileBytes(path) / rawBytes(n);
  const ratios: number[] = [];
  for (const at of [Math.floor(n / 2) - 1, n - 1]) {
    const target = refs[at] as CheckpointRef;
    let restoreMs = Infinity;
    let parseMs = Infinity;
    for (let round = 0; round < 5; round += 1) {
      let started = performance.now();
      const tuple = store.getTuple(target);
      restoreMs = Math.min(restoreMs, performance.now() - started);
      const saved = JSON.stringify({ messages: tuple?.messages, state: tuple?.state });
      started = performance.now();
      JSON.parse(saved);
      parseMs = Math.min(parseMs, performance.now() - started);
    }
    ratios.push(restoreMs / parseMs);
  }
  db.close();
  folder.remove();
  return { n, storageRatio, writeP99: percentile(writes, 99), restoreVsParse: Math.max(...ratios) };
}

async function sqliteSaver(n: number): Promise<{ n: number; storageRatio: number; writeP99: number }> {
  const folder = temporaryFolder('workbench-bench-saver-');
  const path = join(folder.path, 'saver.sqlite');
  const saver = SqliteSaver.fromConnString(path);
  let config: { configurable: Record<string, unknown> } = { configurable: { thread_id: 'thread', checkpoint_ns: '' } };
  const messages: unknown[] = [];
  const writes: number[] = [];
  for (let step = 0; step < n; step += 1) {
    messages.push(message(step));
    const checkpoint = {
      ...emptyCheckpoint(),
      id: uuid6(step),
      ts: new Date().toISOString(),
      channel_values: { messages: [...messages] },
      channel_versions: { messages: step + 1 },
      versions_seen: {},
    };
    const started = performance.now();
    config = (await saver.put(config, checkpoint, { source: 'loop', step, parents: {} })) as typeof config;
    writes.push(performance.now() - started);
  }
  const db = (saver as unknown as { db: { pragma: (text: string) => unknown; close: () => void } }).db;
  db.pragma('wal_checkpoint(TRUNCATE)');
  const storageRatio = fileBytes(path) / rawBytes(n);
  db.close();
  folder.remove();
  return { n, storageRatio, writeP99: percentile(writes, 99) };
}

export async function runCheckpointsBench(): Promise<void> {
  const results: Result[] = [];
  for (const n of [100, 1000, 5000]) {
    const result = ours(n);
    results.push(result);
    console.log(
      `ours at ${n}: storage ×${result.storageRatio.toFixed(2)}, write p99 ${result.writeP99.toFixed(3)} ms, restore ${result.restoreVsParse.toFixed(2)}× JSON.parse`,
    );
  }
  const peers = [];
  for (const n of [100, 1000]) {
    const peer = await sqliteSaver(n);
    peers.push(peer);
    console.log(`SqliteSaver at ${n}: storage ×${peer.storageRatio.toFixed(2)}, write p99 ${peer.writeP99.toFixed(3)} ms`);
  }
  // The same 5,000 steps on an encrypted database against a plain one, in turns, the best of three of each.
  const plainP99: number[] = [];
  const encryptedP99: number[] = [];
  for (let round = 0; round < 3; round += 1) {
    plainP99.push(ours(5000).writeP99);
    encryptedP99.push(ours(5000, true).writeP99);
  }
  const encryptedRatio = Math.min(...encryptedP99) / Math.min(...plainP99);
  console.log(
    `encrypted at rest at 5000: write p99 ${Math.min(...encryptedP99).toFixed(3)} ms against ${Math.min(...plainP99).toFixed(3)} ms plain, ×${encryptedRatio.toFixed(2)}`,
  );
  const at5000 = results.find((result) => result.n === 5000) as Result;
  const at1000 = results.find((result) => result.n === 1000) as Result;
  const peer1000 = peers.find((peer) => peer.n === 1000) as { storageRatio: number; writeP99: number };
  const round = (value: number): number => Number(value.toFixed(3));
  console.log(
    JSON.stringify({
      bench: 'checkpoints',
      n: 5000,
      storage_ratio: round(at5000.storageRatio),
      write_p99_ms: round(at5000.writeP99),
      restore_vs_parse: round(at5000.restoreVsParse),
      n_peer: 1000,
      storage_ratio_at_n_peer: round(at1000.storageRatio),
      sqlitesaver_storage_ratio: round(peer1000.storageRatio),
      write_p99_ms_at_n_peer: round(at1000.writeP99),
      sqlitesaver_write_p99_ms: round(peer1000.writeP99),
      encrypted_write_p99_ms: round(Math.min(...encryptedP99)),
      plain_write_p99_ms: round(Math.min(...plainP99)),
      encrypted_vs_plain_write_p99: round(encryptedRatio),
    }),
  );
}
