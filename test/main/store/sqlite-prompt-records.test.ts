import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from 'better-sqlite3';
import { openDatabase } from '../../../src/main/store/database';
import { SqlitePromptRecords } from '../../../src/main/store/sqlite-prompt-records';
import type { AssembledPrompt } from '../../../src/shared/prompt';
import { temporaryFolder } from '../../helpers';

const prompt = (text: string): AssembledPrompt => ({
  format: 1,
  text,
  parts: [{ kind: 'profile', title: 'Default', source: 'the profile Default', text, tokens: 3, budget: 100, cut: false }],
  tools: ['read_file'],
  notes: [],
  window: 8_192,
});

describe('the system prompts sent, kept once each', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let db: Database;
  let now: number;
  let records: SqlitePromptRecords;

  beforeEach(() => {
    folder = temporaryFolder();
    db = openDatabase(join(folder.path, 'prompts.sqlite')).db;
    now = 1_000_000_000;
    records = new SqlitePromptRecords(db, { now: () => now });
  });
  afterEach(() => {
    db.close();
    folder.remove();
  });

  const rows = (): number => (db.prepare('SELECT COUNT(*) AS count FROM prompts').get() as { count: number }).count;
  const journalNames = (promptId: string): void => {
    db.prepare("INSERT OR IGNORE INTO sessions (id, title, status, created_at, updated_at) VALUES ('s1', 't', 'idle', 0, 0)").run();
    const seq = (db.prepare("SELECT COUNT(*) AS count FROM journal WHERE session_id = 's1'").get() as { count: number }).count;
    db.prepare("INSERT INTO journal (session_id, seq, at, format, type, payload) VALUES ('s1', ?, 0, 1, 'context_measured', ?)").run(
      seq,
      JSON.stringify({ turnId: 't1', tokens: 1, promptId }),
    );
  };

  it('keeps the same prompt once under one id, and gives it back as it was', () => {
    const first = records.save(prompt('You are careful.'));
    const again = new SqlitePromptRecords(db, { now: () => now }).save(prompt('You are careful.'));
    expect(again).toBe(first);
    expect(records.save(prompt('You are brief.'))).not.toBe(first);
    expect(rows()).toBe(2);
    expect(records.get(first)).toEqual(prompt('You are careful.'));
    expect(records.get('unknown')).toBeNull();
  });

  it('collects the prompts no journal entry names once they are an hour old, and keeps the rest', () => {
    const named = records.save(prompt('Named by a call.'));
    const orphan = records.save(prompt('Its session was purged.'));
    journalNames(named);
    expect(records.collect()).toBe(0);
    now += 60 * 60_000 + 1;
    const fresh = records.save(prompt('Saved just now, its call not yet journaled.'));
    expect(records.collect()).toBe(1);
    expect(records.get(orphan)).toBeNull();
    expect(records.get(named)).not.toBeNull();
    expect(records.get(fresh)).not.toBeNull();
    // Sent again after it was collected: kept again, not taken for known.
    expect(records.save(prompt('Its session was purged.'))).toBe(orphan);
    expect(records.get(orphan)).not.toBeNull();
  });
});
