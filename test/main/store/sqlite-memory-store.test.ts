import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from 'better-sqlite3';
import { searchTerms } from '../../../src/main/agent/ports/memory';
import { openDatabase } from '../../../src/main/store/database';
import { SqliteMemoryStore } from '../../../src/main/store/sqlite-memory-store';
import { maxMemoryChars } from '../../../src/shared/prompt';
import { temporaryFolder } from '../../helpers';

describe('memories in SQLite', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let db: Database;
  let now: number;
  let memory: SqliteMemoryStore;
  const project = '/work/project';
  const other = '/work/other';

  beforeEach(() => {
    folder = temporaryFolder();
    db = openDatabase(join(folder.path, 'memories.sqlite')).db;
    now = 1_000;
    memory = new SqliteMemoryStore(db, { now: () => now });
  });
  afterEach(() => {
    db.close();
    folder.remove();
  });

  const add = (text: string, scope: 'workspace' | 'global' = 'workspace', workspacePath: string | null = project) => {
    now += 1;
    return memory.add({ scope, workspacePath, text, source: 'person', sessionId: null });
  };

  it('retrieves a planted fact for a related request, and nothing for an unrelated one', () => {
    add('The project builds with pnpm, never npm: the lockfile is pnpm-lock.yaml.');
    add('Deployments go out on Thursdays after the staging check.');
    add('The person prefers British spelling in documentation.', 'global', null);
    const related = memory.relevant(project, 'How do I install the dependencies with pnpm?', 10);
    expect(related.map((item) => item.text)).toEqual(['The project builds with pnpm, never npm: the lockfile is pnpm-lock.yaml.']);
    expect(memory.relevant(project, 'Draw me an ASCII cat', 10)).toEqual([]);
    expect(memory.relevant(project, 'What is the weather like?', 10)).toEqual([]);
  });

  it('ranks by relevance, matches word forms, and keeps each workspace to its own memories and the global ones', () => {
    add('Tests live under test/ and mirror src/.');
    add('Run the unit tests with vitest; the tests for the UI run in Chromium.');
    add('Tests of the other project use jest.', 'workspace', other);
    add('Always answer tersely when asked about tests.', 'global', null);
    const found = memory.relevant(project, 'running the test suite', 10).map((item) => item.text);
    expect(found).toContain('Run the unit tests with vitest; the tests for the UI run in Chromium.');
    expect(found).toContain('Always answer tersely when asked about tests.');
    expect(found).not.toContain('Tests of the other project use jest.');
    expect(memory.relevant(other, 'test', 10).map((item) => item.text)).toContain('Tests of the other project use jest.');
    expect(memory.relevant(null, 'test', 10).map((item) => item.text)).toEqual(['Always answer tersely when asked about tests.']);
  });

  it('adds, lists newest first, searches, edits and deletes, keeping the index in step', () => {
    const first = add('Use tabs in the Makefile.');
    const second = add('The API key lives in the keychain, never in .env files.');
    expect(memory.list(project).map((item) => item.id)).toEqual([second.id, first.id]);
    expect(memory.list(project, 'makefile').map((item) => item.id)).toEqual([first.id]);
    now += 10;
    const edited = memory.update(first.id, 'Use tabs in every Makefile and in go files.');
    expect(edited).toMatchObject({ text: 'Use tabs in every Makefile and in go files.', updatedAt: now, createdAt: first.createdAt });
    expect(memory.relevant(project, 'go files', 5).map((item) => item.id)).toEqual([first.id]);
    memory.remove(first.id);
    expect(memory.get(first.id)).toBeNull();
    expect(memory.relevant(project, 'makefile tabs', 5)).toEqual([]);
    expect(() => memory.remove(first.id)).toThrow(/does not exist/);
    expect(() => memory.update(first.id, 'x')).toThrow(/does not exist/);
  });

  it('keeps the same fact once, marked as saved again', () => {
    const first = add('The main branch is called trunk.');
    now += 100;
    const again = add('  The main branch is called trunk.  ');
    expect(again.id).toBe(first.id);
    expect(again.updatedAt).toBe(now);
    expect(memory.list(project)).toHaveLength(1);
    expect(add('The main branch is called trunk.', 'global', null).id).not.toBe(first.id);
  });

  it('refuses an empty or enormous memory, or one for no workspace, and writes nothing', () => {
    add('One fact.');
    expect(() => add('   ')).toThrow('A memory cannot be empty.');
    expect(() => add('x'.repeat(maxMemoryChars + 1))).toThrow(/at most 2000 characters/);
    expect(() => add('A fact without a folder.', 'workspace', null)).toThrow(/needs a workspace/);
    const one = memory.list(project)[0];
    expect(() => memory.update(one?.id ?? '', '')).toThrow('A memory cannot be empty.');
    expect(memory.list(project).map((item) => item.text)).toEqual(['One fact.']);
  });

  it('takes a request full of quotes and operators as plain words', () => {
    add('Column names are in snake_case.');
    expect(memory.relevant(project, 'snake_case" OR NEAR(* AND -x', 5).map((item) => item.text)).toEqual([
      'Column names are in snake_case.',
    ]);
    expect(memory.list(project, '"*(')).toEqual([]);
  });

  it('searches for the words of a request that say what it is about', () => {
    expect(searchTerms('How do I run the tests with pnpm?')).toEqual(['tests', 'pnpm']);
    expect(searchTerms('the the THE a')).toEqual([]);
    expect(searchTerms('Größe ändern für 日本語')).toEqual(['größe', 'ändern', 'für', '日本語']);
  });
});
