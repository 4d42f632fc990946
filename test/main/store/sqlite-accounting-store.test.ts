import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { costOf, type ModelCallRecord } from '../../../src/main/agent/ports/accounting';
import { openDatabase } from '../../../src/main/store/database';
import { migrations } from '../../../src/main/store/migrations';
import { SqliteAccountingStore } from '../../../src/main/store/sqlite-accounting-store';
import { temporaryFolder } from '../../helpers';

const call = (id: string, figures: Partial<ModelCallRecord>): ModelCallRecord => ({
  id,
  sessionId: 's1',
  turnId: 't1',
  providerId: 'claude',
  providerKind: 'anthropic',
  model: 'claude-sonnet-4-5',
  inputTokens: 0,
  outputTokens: 0,
  latencyMs: 10,
  costUsd: 0,
  status: 'completed',
  at: 1,
  ...figures,
});

const addSession = (db: Database): void => {
  db.prepare("INSERT INTO sessions (id, title, status, created_at, updated_at) VALUES ('s1', 't', 'idle', 0, 0)").run();
};

describe('the model calls of a session, with the prompt cache', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let db: Database;
  let store: SqliteAccountingStore;
  beforeEach(() => {
    folder = temporaryFolder();
    db = openDatabase(join(folder.path, 'accounting.sqlite')).db;
    addSession(db);
    store = new SqliteAccountingStore(db);
  });
  afterEach(() => {
    db.close();
    folder.remove();
  });

  it('sums the tokens read from and written to the cache, a call whose server did not say counting none', () => {
    store.recordModelCall(call('c1', { inputTokens: 2_000, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 2_000, costUsd: 0.01 }));
    store.recordModelCall(
      call('c2', { inputTokens: 2_600, outputTokens: 80, cacheReadTokens: 2_000, cacheWriteTokens: 590, costUsd: 0.005 }),
    );
    store.recordModelCall(call('c3', { inputTokens: 700, outputTokens: 20, providerKind: 'openai-compatible', costUsd: 0 }));
    expect(store.totals('s1')).toMatchObject({
      modelCalls: 3,
      inputTokens: 5_300,
      outputTokens: 150,
      cacheReadTokens: 2_000,
      cacheWriteTokens: 2_590,
      largestPromptTokens: 2_600,
      costUsd: 0.015,
    });
  });

  it('keeps a call’s cache figures apart from not knowing them', () => {
    store.recordModelCall(call('said', { inputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 }));
    store.recordModelCall(call('unsaid', { inputTokens: 100 }));
    const rows = db.prepare('SELECT id, cache_read_tokens, cache_write_tokens FROM model_calls ORDER BY id').all();
    expect(rows).toEqual([
      { id: 'said', cache_read_tokens: 0, cache_write_tokens: 0 },
      { id: 'unsaid', cache_read_tokens: null, cache_write_tokens: null },
    ]);
  });
});

describe('what an Anthropic call costs with the prompt cache', () => {
  const cloud = 'https://api.anthropic.com';

  it('bills the uncached prompt at the input price, cache writes at 1.25 times it and cache reads at 0.1', () => {
    // Sonnet: $3 input, $15 output per million tokens. 10,000 read, 2,000 written, 500 neither, 1,000 out.
    const cost = costOf('anthropic', cloud, 'claude-sonnet-4-5', {
      inputTokens: 12_500,
      outputTokens: 1_000,
      cacheReadTokens: 10_000,
      cacheWriteTokens: 2_000,
    });
    expect(cost).toBeCloseTo((500 * 3 + 2_000 * 3.75 + 10_000 * 0.3 + 1_000 * 15) / 1_000_000, 12);
  });

  it('bills a prompt with no cache figures all at the input price, as before', () => {
    expect(costOf('anthropic', cloud, 'claude-haiku-4-5', { inputTokens: 1_000_000, outputTokens: 0 })).toBeCloseTo(1, 12);
  });

  it('still costs nothing on this machine, and is unknown for a cloud server it has no price for', () => {
    const tokens = { inputTokens: 5_000, outputTokens: 10, cacheReadTokens: 4_000, cacheWriteTokens: 900 };
    expect(costOf('anthropic', 'http://127.0.0.1:8080', 'claude-sonnet-4-5', tokens)).toBe(0);
    expect(costOf('openai-compatible', 'https://example.com/v1', 'some-model', tokens)).toBeNull();
  });
});

describe('a database written by schema 13', () => {
  it('migrates its model calls, which count no cache, and records the cache of calls after', () => {
    const folder = temporaryFolder();
    const path = join(folder.path, 'workbench.sqlite');
    const old = new BetterSqlite3(path);
    for (const step of migrations.filter((migration) => migration.version <= 13)) {
      step.up(old);
      old.pragma(`user_version = ${step.version}`);
    }
    addSession(old);
    old
      .prepare(
        "INSERT INTO model_calls (id, session_id, turn_id, provider_id, provider_kind, model, input_tokens, output_tokens, latency_ms, cost_usd, status, at) VALUES ('before', 's1', 't1', 'claude', 'anthropic', 'claude-sonnet-4-5', 1200, 30, 5, 0.004, 'completed', 1)",
      )
      .run();
    old.close();

    const { db, schemaVersion, backupPath } = openDatabase(path);
    expect(schemaVersion).toBeGreaterThanOrEqual(14);
    expect(backupPath).toMatch(/backup-v13-/);
    const store = new SqliteAccountingStore(db);
    expect(store.totals('s1')).toMatchObject({ modelCalls: 1, inputTokens: 1200, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.004 });
    store.recordModelCall(
      call('after', { inputTokens: 1300, outputTokens: 20, cacheReadTokens: 1200, cacheWriteTokens: 95, costUsd: 0.001 }),
    );
    expect(store.totals('s1')).toMatchObject({ modelCalls: 2, inputTokens: 2500, cacheReadTokens: 1200, cacheWriteTokens: 95 });
    db.close();
    folder.remove();
  });
});
