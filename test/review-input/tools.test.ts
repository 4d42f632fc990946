import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { afterAll, describe, it } from 'vitest';
import { workspaceTools } from '../../src/main/tools/workspace-tools';

// Review scratch test: the tools only see a throwaway folder under /var/tmp.
const data = mkdtempSync('/var/tmp/review-tools-data-');
const workspace = mkdtempSync('/var/tmp/review-tools-ws-');
afterAll(() => {
  rmSync(data, { recursive: true, force: true });
  rmSync(workspace, { recursive: true, force: true });
});

const lines = (count: number, prefix: string): string => Array.from({ length: count }, (_, index) => `${prefix}${index}`).join('\n');

describe('review: tool inputs', () => {
  it('diff cost of a preview for a rewritten file', () => {
    for (const count of [1000, 2000, 4000]) {
      const started = performance.now();
      createTwoFilesPatch('a/f', 'b/f', lines(count, 'old '), lines(count, 'new '), undefined, undefined, { context: 3 });
      console.log(JSON.stringify({ label: `diff ${count} lines, all different`, ms: Math.round(performance.now() - started) }));
    }
  }, 300_000);

  it('write_file preview of a whole different file, through the tool', async () => {
    const tools = workspaceTools({ dataDir: data, ripgrep: null, newId: () => 'id1', now: () => 0 });
    const write = tools.find((tool) => tool.name === 'write_file');
    if (!write) throw new Error('no write_file');
    writeFileSync(join(workspace, 'big.txt'), lines(4000, 'old '));
    const parsed = write.parse({ path: 'big.txt', content: lines(4000, 'new ') });
    if (!parsed.ok) throw new Error(parsed.message);
    const started = performance.now();
    const preview = await write.preview(parsed.input, { workspacePath: workspace });
    console.log(JSON.stringify({ label: 'write_file preview 4000 lines (~40 KB)', ms: Math.round(performance.now() - started), size: preview?.length }));
  }, 300_000);

  it('built-in search with a catastrophic pattern', async () => {
    const tools = workspaceTools({ dataDir: data, ripgrep: null, newId: () => 'id2', now: () => 0 });
    const search = tools.find((tool) => tool.name === 'search');
    if (!search) throw new Error('no search');
    writeFileSync(join(workspace, 'line.txt'), `${'a'.repeat(26)}!\n`);
    for (const pattern of ['(a+)+$', '[', '(?<=a', '\\']) {
      const parsed = search.parse({ pattern, path: 'line.txt' });
      if (!parsed.ok) throw new Error(parsed.message);
      const started = performance.now();
      let result: string;
      try {
        result = (await search.execute(parsed.input, {
          signal: new AbortController().signal,
          sessionId: 's',
          toolCallId: 't',
          workspacePath: workspace,
          emitOutput: () => undefined,
        })).output.slice(0, 100);
      } catch (error) {
        result = `THREW ${(error as Error).constructor.name}: ${(error as Error).message}`;
      }
      console.log(JSON.stringify({ label: `search ${pattern}`, ms: Math.round(performance.now() - started), result }));
    }
  }, 300_000);

  it('tool argument shapes', () => {
    const tools = workspaceTools({ dataDir: data, ripgrep: null, newId: () => 'id3', now: () => 0 });
    const byName = (name: string) => tools.find((tool) => tool.name === name);
    const cases: Array<[string, unknown]> = [
      ['read_file', { path: 'a', startLine: -1 }],
      ['read_file', { path: 'a', startLine: 1e300 }],
      ['read_file', { path: 'a', startLine: 2, endLine: 1 }],
      ['read_file', { path: 'a', extra: 1 }],
      ['read_file', { path: ['a'] }],
      ['read_file', { path: 'a\u0000b' }],
      ['read_file', null],
      ['read_file', 'a'],
      ['read_file', []],
      ['search', { pattern: 'a', maxResults: 0 }],
      ['search', { pattern: 'a', maxResults: 1.5 }],
      ['list_files', { glob: 'x'.repeat(501) }],
      ['write_file', { path: 'a', content: 5 }],
      ['edit_file', { path: 'a', oldText: '', newText: 'b' }],
      ['delete', { path: '' }],
    ];
    for (const [name, input] of cases) {
      const parsed = byName(name)?.parse(input);
      console.log(JSON.stringify({ name, input: JSON.stringify(input)?.slice(0, 60), parsed }));
    }
  });
});
