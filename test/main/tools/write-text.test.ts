import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/main/agent/ports/tools';
import { workspaceTools } from '../../../src/main/tools/workspace-tools';
import { temporaryFolder } from '../../helpers';
import { runTool } from './escape-fixture';
import { needs, posixFiles } from '../../platform';

let env: { folder: { path: string; remove: () => void }; ws: string; tools: Map<string, Tool> };
beforeEach(() => {
  const folder = temporaryFolder('workbench-write-text-');
  const ws = join(folder.path, 'ws');
  const dataDir = join(folder.path, 'data');
  mkdirSync(ws);
  mkdirSync(dataDir);
  const tools = new Map(workspaceTools({ dataDir, ripgrep: null, newId: () => 'x', now: () => 0 }).map((tool) => [tool.name, tool]));
  env = { folder, ws, tools };
});
afterEach(() => env.folder.remove());

function preview(name: string, input: unknown): Promise<string | null> {
  return (env.tools.get(name) as Tool).preview(input, { workspacePath: env.ws });
}

/** "café\nAB\n" in Latin-1: the é is one byte that is not UTF-8. */
const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x41, 0x42, 0x0a]);

describe('writing files that are not UTF-8 text', () => {
  it('edit_file refuses a file that is not UTF-8 and leaves every byte as it was', async () => {
    writeFileSync(join(env.ws, 'latin1.txt'), latin1);
    await expect(runTool(env.tools, 'edit_file', { path: 'latin1.txt', oldText: 'AB', newText: 'AC' }, env.ws)).rejects.toThrow(
      /latin1\.txt is not UTF-8 text/,
    );
    expect(readFileSync(join(env.ws, 'latin1.txt')).equals(latin1)).toBe(true);
  });

  it('the edit_file preview says the file is not UTF-8 instead of showing changed bytes', async () => {
    writeFileSync(join(env.ws, 'latin1.txt'), latin1);
    const shown = await preview('edit_file', { path: 'latin1.txt', oldText: 'AB', newText: 'AC', replaceAll: false });
    expect(shown).toMatch(/latin1\.txt is not UTF-8 text/);
    expect(shown).not.toContain('\uFFFD');
  });

  it('write_file replaces such a file whole and its preview and result do not show the old bytes as text', async () => {
    writeFileSync(join(env.ws, 'latin1.txt'), latin1);
    const shown = await preview('write_file', { path: 'latin1.txt', content: 'new\n' });
    expect(shown).toMatch(/the old latin1\.txt was not UTF-8 text/);
    expect(shown).not.toContain('\uFFFD');
    const output = await runTool(env.tools, 'write_file', { path: 'latin1.txt', content: 'new\n' }, env.ws);
    expect(output).toMatch(/^Replaced latin1\.txt\.\n\[… the old latin1\.txt was not UTF-8 text/);
    expect(readFileSync(join(env.ws, 'latin1.txt'), 'utf8')).toBe('new\n');
  });

  it('edit_file keeps a byte order mark and other UTF-8 text exactly', async () => {
    writeFileSync(join(env.ws, 'bom.txt'), '\uFEFFcafé\nAB\n');
    await runTool(env.tools, 'edit_file', { path: 'bom.txt', oldText: 'AB', newText: 'AC' }, env.ws);
    expect(readFileSync(join(env.ws, 'bom.txt')).equals(Buffer.from('\uFEFFcafé\nAC\n'))).toBe(true);
  });
});

describe('the mode of a rewritten file', needs(posixFiles), () => {
  it('keeps the permission bits but drops setuid and setgid', async () => {
    writeFileSync(join(env.ws, 'tool.sh'), '#!/bin/sh\ntrue\n');
    chmodSync(join(env.ws, 'tool.sh'), 0o6755);
    await runTool(env.tools, 'write_file', { path: 'tool.sh', content: '#!/bin/sh\necho new\n' }, env.ws);
    expect((statSync(join(env.ws, 'tool.sh')).mode & 0o7777).toString(8)).toBe('755');
    chmodSync(join(env.ws, 'tool.sh'), 0o2750);
    await runTool(env.tools, 'edit_file', { path: 'tool.sh', oldText: 'new', newText: 'newer' }, env.ws);
    expect((statSync(join(env.ws, 'tool.sh')).mode & 0o7777).toString(8)).toBe('750');
  });
});

const numbered = (count: number, prefix: string): string => Array.from({ length: count }, (_, index) => `${prefix}${index}\n`).join('');

describe('previews of large rewrites', () => {
  it('sums up a rewrite too large to diff line by line, quickly, in the preview and the result', async () => {
    for (const count of [4000, 40_000]) {
      writeFileSync(join(env.ws, 'big.txt'), numbered(count, 'old line '));
      const content = numbered(count, 'new line ');
      let started = performance.now();
      const shown = await preview('write_file', { path: 'big.txt', content });
      expect(performance.now() - started).toBeLessThan(2000);
      expect(shown).toBe(`[… big.txt: ${count} lines replaced by ${count} lines; too large to show line by line …]`);
      started = performance.now();
      const output = await runTool(env.tools, 'write_file', { path: 'big.txt', content }, env.ws);
      expect(performance.now() - started).toBeLessThan(2000);
      expect(output).toBe(`Replaced big.txt.\n[… big.txt: ${count} lines replaced by ${count} lines; too large to show line by line …]`);
    }
  }, 30_000);

  it('still shows a small change in a long file line by line', async () => {
    const old = numbered(40_000, 'same line ');
    writeFileSync(join(env.ws, 'long.txt'), old);
    const shown = await preview('edit_file', {
      path: 'long.txt',
      oldText: 'same line 7\n',
      newText: 'changed line 7\n',
      replaceAll: false,
    });
    expect(shown).toContain('-same line 7\n+changed line 7');
  });

  it('does not read an old file past the preview limit', async () => {
    writeFileSync(join(env.ws, 'huge.txt'), 'x'.repeat(3 * 1024 * 1024));
    expect(await preview('write_file', { path: 'huge.txt', content: 'small\n' })).toBe(
      '[… the old huge.txt has 3145728 bytes, too many to show; the new text (1 line) replaces it whole …]',
    );
    expect(await preview('edit_file', { path: 'huge.txt', oldText: 'x', newText: 'y', replaceAll: true })).toBe(
      '[… huge.txt has 3145728 bytes, too many to preview the edit …]',
    );
  });
});
