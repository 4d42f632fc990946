import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { searchBuiltin, type SearchOptions } from '../../../src/main/tools/search';
import { WorkspaceFiles } from '../../../src/main/workspace/workspace-files';
import type { WorkspaceReader } from '../../../src/main/workspace/workspace-reader';
import { temporaryFolder } from '../../helpers';

let folder: { path: string; remove: () => void };
let ws: string;
let reader: WorkspaceReader;
beforeEach(() => {
  folder = temporaryFolder('workbench-builtin-search-');
  ws = join(folder.path, 'ws');
  mkdirSync(join(ws, 'src'), { recursive: true });
  for (let file = 0; file < 5; file += 1)
    writeFileSync(join(ws, 'src', `f${file}.txt`), `match one ${file}\nother\nmatch two ${file}\nMATCH three ${file}\n`);
  writeFileSync(join(ws, 'line.txt'), `${'a'.repeat(25)}!\n`);
  reader = new WorkspaceFiles(ws).reader();
});
afterEach(() => {
  reader.close();
  folder.remove();
});

function options(pattern: string, extra: Partial<SearchOptions> = {}): SearchOptions {
  return {
    root: reader.root,
    start: reader.root,
    reader,
    pattern,
    caseSensitive: false,
    maxResults: 100,
    signal: new AbortController().signal,
    ...extra,
  };
}

describe('the built-in search', () => {
  it('finds the same lines as before, in order, and says when it stopped at the limit', async () => {
    const all = await searchBuiltin(options('match'));
    expect(all).toEqual({
      matches: [0, 1, 2, 3, 4].flatMap((file) => [
        `src/f${file}.txt:1:match one ${file}`,
        `src/f${file}.txt:3:match two ${file}`,
        `src/f${file}.txt:4:MATCH three ${file}`,
      ]),
      truncated: false,
      engine: 'builtin',
    });
    expect((await searchBuiltin(options('match', { caseSensitive: true }))).matches).toHaveLength(10);
    const cut = await searchBuiltin(options('match', { maxResults: 4 }));
    expect(cut.truncated).toBe(true);
    expect(cut.matches).toHaveLength(4);
    expect((await searchBuiltin(options('match', { maxResults: 15 }))).truncated).toBe(false);
    await expect(searchBuiltin(options('('))).rejects.toThrow(/not a valid regular expression/);
  });

  it('stops a pattern that backtracks without end at its deadline, and the main thread keeps running meanwhile', async () => {
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 20);
    const started = performance.now();
    try {
      await expect(
        searchBuiltin(options('(a+)+$', { start: join(reader.root, 'line.txt'), startIsFile: true, matchDeadlineMs: 300 })),
      ).rejects.toThrow(/took more than 0.3 s to match and was stopped/);
    } finally {
      clearInterval(ticker);
    }
    expect(performance.now() - started).toBeLessThan(3000);
    expect(ticks).toBeGreaterThan(5);
  });

  it('ends at once when stopped', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const result = await searchBuiltin(
      options('(a|a)+$', { start: join(reader.root, 'line.txt'), startIsFile: true, signal: controller.signal, matchDeadlineMs: 60_000 }),
    );
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result.matches).toEqual([]);
  });
});
