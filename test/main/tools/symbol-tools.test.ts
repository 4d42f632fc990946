import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/main/agent/ports/tools';
import { workspaceTools } from '../../../src/main/tools/workspace-tools';
import { temporaryFolder } from '../../helpers';

const opened: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const folder of opened.splice(0)) folder.remove();
});

function setup() {
  const folder = temporaryFolder('workbench-symbols-');
  opened.push(folder);
  const ws = join(folder.path, 'ws');
  const dataDir = join(folder.path, 'data');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(
    join(ws, 'src', 'shapes.ts'),
    'export class Square {\n  area(): number {\n    return scale(4);\n  }\n}\nexport function scale(value: number): number {\n  return value;\n}\n',
  );
  // Sixty callers of scale, one per line: more than a page of uses.
  writeFileSync(join(ws, 'src', 'calls.ts'), Array.from({ length: 60 }, (_, n) => `export const v${n} = scale(${n});`).join('\n') + '\n');
  writeFileSync(join(ws, 'notes.md'), '# scale\n');
  const tools = new Map(workspaceTools({ dataDir, ripgrep: null, newId: () => 'id', now: () => 0 }).map((tool) => [tool.name, tool]));
  const output: string[] = [];
  const run = async (name: string, raw: unknown): Promise<{ output: string; isError?: boolean }> => {
    const tool = tools.get(name) as Tool;
    const parsed = tool.parse(raw);
    if (!parsed.ok) return { output: parsed.message, isError: true };
    return tool.execute(parsed.input, {
      signal: new AbortController().signal,
      sessionId: 's',
      toolCallId: 'c',
      workspacePath: ws,
      emitOutput: (text) => output.push(text),
    });
  };
  return { ws, dataDir, tools, run };
}

describe('symbol tools', () => {
  it('are read-only tools offered with the file tools', () => {
    const { tools } = setup();
    for (const name of ['outline', 'find_symbol', 'find_references']) expect(tools.get(name)?.baseRisk).toBe('read_only');
  });

  it('outline lists a file’s definitions with their lines, and refuses what is not a source file in the workspace', async () => {
    const { run } = setup();
    const outline = await run('outline', { path: 'src/shapes.ts' });
    expect(outline.output).toBe(
      [
        'src/shapes.ts: 3 definitions (lines, kind, first line)',
        '        1-5  class  export class Square {',
        '        2-4  method  area(): number {',
        '        6-8  function  export function scale(value: number): number {',
      ].join('\n'),
    );
    await expect(run('outline', { path: 'src' })).rejects.toThrow('is a folder');
    await expect(run('outline', { path: 'notes.md' })).rejects.toThrow('not a source file');
    await expect(run('outline', { path: 'src/missing.ts' })).rejects.toThrow('does not exist');
    await expect(run('outline', { path: '../outside.ts' })).rejects.toMatchObject({ code: 'path_refused' });
  });

  it('find_symbol says where a name is defined, by kind when asked, and names similar ones when it finds none', async () => {
    const { run, dataDir } = setup();
    expect((await run('find_symbol', { name: 'scale' })).output).toBe(
      '1 definition of scale:\nsrc/shapes.ts:6  function  export function scale(value: number): number {',
    );
    expect((await run('find_symbol', { name: 'Square', kind: 'function' })).output).toContain(
      'No definition of Square as a function in the 2 source files indexed. It is defined as a class: ask without kind.',
    );
    expect((await run('find_symbol', { name: 'SCALE' })).output.split('\n')[0]).toBe(
      '1 definition of scale (no exact match for SCALE; these differ in letter case):',
    );
    expect((await run('find_symbol', { name: 'squ' })).output).toContain('Names like it: Square.');
    expect((await run('find_symbol', { name: '  ' })).output).toContain('the name is empty');
    // The index is kept in the data folder, for the next start.
    expect(existsSync(join(dataDir, 'code-map')) && readdirSync(join(dataDir, 'code-map')).length).toBe(1);
  });

  it('find_references lists uses in pages, and finds a use written after the last call', async () => {
    const { run, ws } = setup();
    const first = await run('find_references', { name: 'scale' });
    expect(first.output.split('\n')[0]).toBe('61 uses of scale in 2 files:');
    expect(first.output).toContain('src/calls.ts:1  export const v0 = scale(0);');
    expect(first.output).toContain('[page 1 of 2; ask for page 2 for more]');
    const second = await run('find_references', { name: 'scale', page: 2 });
    expect(second.output).toContain('[page 2 of 2]');
    expect(second.output).toContain('src/shapes.ts:3  return scale(4);');
    expect((await run('find_references', { name: 'scale', page: 3 })).output).toContain('There is no page 3: there are 2 pages.');
    writeFileSync(join(ws, 'src', 'late.ts'), 'scale(99);\n');
    expect((await run('find_references', { name: 'scale' })).output.split('\n')[0]).toBe('62 uses of scale in 3 files:');
    // A line that uses the name twice is one place: listed and counted once.
    writeFileSync(join(ws, 'src', 'twice.ts'), 'export const both = scale(scale(2));\n');
    const twice = await run('find_references', { name: 'scale', page: 2 });
    expect(twice.output.split('\n')[0]).toBe('63 uses of scale in 4 files:');
    expect(twice.output.match(/src\/twice\.ts:1 /g)).toHaveLength(1);
  });
});
