import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findRipgrep, searchWithRipgrep } from '../../../src/main/tools/search';
import { workspaceTools } from '../../../src/main/tools/workspace-tools';
import { temporaryFolder } from '../../helpers';
import { startLinkSwapper } from '../../link-swapper';
import { runTool } from './escape-fixture';
import { needs, posixFiles, raceFreeWalk, ripgrep as ripgrepInstalled, symlinks } from '../../platform';

const ripgrep = findRipgrep();
const folders: Array<{ remove: () => void }> = [];
let children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children = [];
  for (const folder of folders.splice(0)) folder.remove();
});

function fresh(): { base: string; ws: string; outside: string; data: string } {
  const base = temporaryFolder('workbench-rg-');
  const outside = temporaryFolder('workbench-rg-outside-');
  folders.push(base, outside);
  const ws = join(base.path, 'ws');
  const data = join(base.path, 'data');
  mkdirSync(ws);
  mkdirSync(data);
  return { base: base.path, ws, outside: outside.path, data };
}

/** A reader that answers the given contents, whatever is on disk (as if ripgrep had read another file than the walk finds). */
function readerOf(contents: Record<string, string>) {
  return {
    list: async () => [],
    readText: async () => null,
    readFile: async (relative: string) => (relative in contents ? Buffer.from(contents[relative] ?? '') : null),
    isPlainFile: () => true,
  };
}

describe('ripgrep search', needs(ripgrepInstalled), () => {
  it('keeps only the lines the workspace reader finds at that line of the file', async () => {
    const { ws } = fresh();
    writeFileSync(join(ws, 'same.txt'), 'one\nMARK same\n');
    writeFileSync(join(ws, 'other.txt'), 'MARK SECRET read elsewhere\n');
    writeFileSync(join(ws, 'moved.txt'), 'MARK moved\n');
    writeFileSync(join(ws, 'gone.txt'), 'MARK gone\n');
    const reader = readerOf({ 'same.txt': 'one\nMARK same\n', 'other.txt': 'MARK inside\n', 'moved.txt': 'first\nMARK moved\n' });
    const result = await searchWithRipgrep(ripgrep ?? 'rg', {
      root: ws,
      start: ws,
      pattern: 'MARK',
      caseSensitive: true,
      maxResults: 100,
      signal: new AbortController().signal,
      reader,
    });
    expect(result.matches).toEqual(['same.txt:2:MARK same']);
  });

  it('keeps the preview of a long line, a line after a byte order mark and a line ending in CR', async () => {
    const { ws, data } = fresh();
    const long = `${'é'.repeat(300)} MARK ${'x'.repeat(300)}`;
    writeFileSync(join(ws, 'long.txt'), `${long}\n`);
    writeFileSync(join(ws, 'bom.txt'), '\uFEFFMARK first\n');
    writeFileSync(join(ws, 'crlf.txt'), 'a\r\nMARK crlf\r\n');
    const tools = new Map(workspaceTools({ dataDir: data, ripgrep, newId: () => 'x', now: () => 0 }).map((t) => [t.name, t]));
    const lines = (await runTool(tools, 'search', { pattern: 'MARK' }, ws)).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('bom.txt:1:MARK first');
    expect(lines[1]).toBe('crlf.txt:2:MARK crlf\r');
    expect(lines[2]?.startsWith('long.txt:1:éé')).toBe(true);
  });

  it(
    'never returns outside text while a folder is swapped for a link to outside',
    { ...needs(raceFreeWalk, symlinks), timeout: 60_000 },
    async () => {
      const { base, ws, outside, data } = fresh();
      mkdirSync(join(ws, 'sub'));
      for (let i = 0; i < 20; i += 1) {
        writeFileSync(join(ws, 'sub', `f${i}.txt`), `MARK inside ${i}\n`);
        writeFileSync(join(outside, `f${i}.txt`), `MARK SECRET-rg ${i}\n`);
      }
      const tools = new Map(workspaceTools({ dataDir: data, ripgrep, newId: () => 'x', now: () => 0 }).map((t) => [t.name, t]));
      children.push(await startLinkSwapper(ws, join(base, 'held'), outside));
      const leaks: string[] = [];
      for (let round = 0; round < 300 && leaks.length === 0; round += 1) {
        let out: string;
        try {
          out = await runTool(tools, 'search', { pattern: 'MARK' }, ws);
        } catch (error) {
          out = (error as Error).message;
        }
        if (out.includes('SECRET-rg')) leaks.push(`round ${round}: ${out.split('\n').find((line) => line.includes('SECRET')) ?? ''}`);
      }
      expect(leaks).toEqual([]);
    },
  );

  it('reads a file name holding a newline as one name, never as a path that climbs out', needs(posixFiles), async () => {
    const { base, ws, data } = fresh();
    mkdirSync(join(ws, 'q\n..'));
    writeFileSync(join(ws, 'q\n..', 'probe.txt'), 'MARK inside\n');
    const tools = new Map(workspaceTools({ dataDir: data, ripgrep, newId: () => 'x', now: () => 0 }).map((t) => [t.name, t]));
    const without = await runTool(tools, 'search', { pattern: 'MARK' }, ws);
    // A plain file of the misread name next to the workspace must not change the answer.
    writeFileSync(join(base, 'probe.txt'), 'outside\n');
    const withOutside = await runTool(tools, 'search', { pattern: 'MARK' }, ws);
    expect({ without, withOutside }).toEqual({ without: 'q\n../probe.txt:1:MARK inside', withOutside: 'q\n../probe.txt:1:MARK inside' });
  });
});
