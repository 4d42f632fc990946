import { existsSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/main/agent/ports/tools';
import { Trash } from '../../../src/main/tools/trash';
import { workspaceTools } from '../../../src/main/tools/workspace-tools';
import { temporaryFolder } from '../../helpers';
import { needs, symlinks } from '../../platform';

let counter = 0;

function setup(ripgrep: string | null | undefined) {
  const folder = temporaryFolder('workbench-tools-');
  const ws = join(folder.path, 'ws');
  const dataDir = join(folder.path, 'data');
  mkdirSync(join(ws, 'src', 'lib'), { recursive: true });
  mkdirSync(join(ws, 'node_modules', 'pkg'), { recursive: true });
  mkdirSync(join(ws, '.git'), { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(ws, '.gitignore'), 'node_modules\n*.log\n');
  writeFileSync(join(ws, 'src', '.gitignore'), 'generated.ts\n');
  writeFileSync(join(ws, 'src', 'index.ts'), 'export function hello() {\n  return "Hello";\n}\n');
  writeFileSync(join(ws, 'src', 'generated.ts'), 'export const hello = 1;\n');
  writeFileSync(join(ws, 'src', 'lib', 'util.ts'), 'export const HELLO = "hello";\nexport const other = 2;\n');
  writeFileSync(join(ws, 'node_modules', 'pkg', 'index.js'), 'hello');
  writeFileSync(join(ws, 'debug.log'), 'hello log');
  writeFileSync(join(ws, 'image.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x68, 0x65, 0x6c, 0x6c, 0x6f]));
  writeFileSync(join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\nhello');
  const tools = new Map(
    workspaceTools({ dataDir, ripgrep, newId: () => `t${(counter += 1)}`, now: () => 1_700_000_000_000 }).map((tool) => [tool.name, tool]),
  );
  return { folder, ws, dataDir, tools };
}

async function run(
  tools: Map<string, Tool>,
  name: string,
  raw: unknown,
  workspacePath: string | null,
): Promise<{ output: string; isError?: boolean }> {
  const tool = tools.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  const parsed = tool.parse(raw);
  if (!parsed.ok) throw new Error(parsed.message);
  return tool.execute(parsed.input, {
    signal: new AbortController().signal,
    sessionId: 's',
    toolCallId: 'c',
    workspacePath,
    emitOutput: () => undefined,
  });
}

describe('workspace tools', () => {
  let env: ReturnType<typeof setup>;
  beforeEach(() => {
    env = setup(undefined);
  });
  afterEach(() => env.folder.remove());

  it('list_files honours every .gitignore and never shows .git', async () => {
    const { output } = await run(env.tools, 'list_files', {}, env.ws);
    expect(output.split('\n')).toEqual([
      '.gitignore',
      'image.bin',
      'src/',
      'src/.gitignore',
      'src/index.ts',
      'src/lib/',
      'src/lib/util.ts',
    ]);
    const all = await run(env.tools, 'list_files', { includeIgnored: true }, env.ws);
    expect(all.output).toContain('node_modules/pkg/index.js');
    expect(all.output).not.toContain('.git/');
  });

  it('list_files filters with a glob and refuses a path outside', async () => {
    expect((await run(env.tools, 'list_files', { glob: 'src/**/*.ts' }, env.ws)).output.split('\n')).toEqual([
      'src/index.ts',
      'src/lib/util.ts',
    ]);
    expect((await run(env.tools, 'list_files', { glob: '*.ts' }, env.ws)).output.split('\n')).toEqual(['src/index.ts', 'src/lib/util.ts']);
    await expect(run(env.tools, 'list_files', { path: '..' }, env.ws)).rejects.toMatchObject({ code: 'path_refused' });
  });

  it('read_file reads whole files and line ranges, and refuses binary files', async () => {
    expect((await run(env.tools, 'read_file', { path: 'src/index.ts' }, env.ws)).output).toBe(
      'export function hello() {\n  return "Hello";\n}\n',
    );
    expect((await run(env.tools, 'read_file', { path: 'src/index.ts', startLine: 2, endLine: 3 }, env.ws)).output).toBe(
      'src/index.ts lines 2-3 of 3\n  return "Hello";\n}',
    );
    expect(await run(env.tools, 'read_file', { path: 'image.bin' }, env.ws)).toMatchObject({
      isError: true,
      output: expect.stringContaining('binary file'),
    });
    await expect(run(env.tools, 'read_file', { path: 'missing.ts' }, env.ws)).rejects.toThrow(/does not exist/);
    await expect(run(env.tools, 'read_file', { path: 'src' }, env.ws)).rejects.toThrow(/is a folder/);
  });

  it('read_file asks for a line range on a very large file', async () => {
    writeFileSync(join(env.ws, 'big.txt'), `${'line of text\n'.repeat(300_000)}`);
    expect(await run(env.tools, 'read_file', { path: 'big.txt' }, env.ws)).toMatchObject({
      isError: true,
      output: expect.stringContaining('read it in parts'),
    });
    const part = await run(env.tools, 'read_file', { path: 'big.txt', startLine: 100_000, endLine: 100_002 }, env.ws);
    expect(part.output).toBe('big.txt lines 100000-100002\nline of text\nline of text\nline of text');
  });

  it('refuses to work without a workspace', async () => {
    await expect(run(env.tools, 'list_files', {}, null)).rejects.toMatchObject({ code: 'no_workspace' });
  });

  it('write_file creates folders as needed, previews a diff, and refuses protected paths', async () => {
    const tool = env.tools.get('write_file') as Tool;
    const preview = await tool.preview({ path: 'docs/notes.md', content: 'first line\n' }, { workspacePath: env.ws });
    expect(preview).toContain('+++ b/docs/notes.md');
    expect(preview).toContain('+first line');
    const result = await run(env.tools, 'write_file', { path: 'docs/notes.md', content: 'first line\n' }, env.ws);
    expect(result.output).toMatch(/^Created docs\/notes.md/);
    expect(readFileSync(join(env.ws, 'docs/notes.md'), 'utf8')).toBe('first line\n');
    await expect(run(env.tools, 'write_file', { path: '.env', content: 'KEY=1' }, env.ws)).rejects.toMatchObject({ code: 'path_refused' });
    await expect(run(env.tools, 'write_file', { path: '.git/config', content: '' }, env.ws)).rejects.toMatchObject({
      code: 'path_refused',
    });
    await expect(run(env.tools, 'write_file', { path: '../escape.txt', content: '' }, env.ws)).rejects.toMatchObject({
      code: 'path_refused',
    });
    expect(existsSync(join(env.folder.path, 'escape.txt'))).toBe(false);
  });

  it('edit_file replaces text that occurs exactly once, with a diff', async () => {
    const result = await run(
      env.tools,
      'edit_file',
      { path: 'src/index.ts', oldText: 'return "Hello";', newText: 'return "Hello, world";' },
      env.ws,
    );
    expect(result.output).toContain('-  return "Hello";');
    expect(result.output).toContain('+  return "Hello, world";');
    expect(readFileSync(join(env.ws, 'src/index.ts'), 'utf8')).toContain('Hello, world');
  });

  it('edit_file refuses text it cannot find or that is ambiguous, changing nothing', async () => {
    writeFileSync(join(env.ws, 'twice.txt'), 'a\na\n');
    await expect(run(env.tools, 'edit_file', { path: 'src/index.ts', oldText: 'not there', newText: 'x' }, env.ws)).rejects.toThrow(
      /was not found/,
    );
    await expect(run(env.tools, 'edit_file', { path: 'twice.txt', oldText: 'a', newText: 'b' }, env.ws)).rejects.toThrow(/occurs 2 times/);
    expect(readFileSync(join(env.ws, 'twice.txt'), 'utf8')).toBe('a\na\n');
    await run(env.tools, 'edit_file', { path: 'twice.txt', oldText: 'a', newText: 'b', replaceAll: true }, env.ws);
    expect(readFileSync(join(env.ws, 'twice.txt'), 'utf8')).toBe('b\nb\n');
    const preview = await (env.tools.get('edit_file') as Tool).preview(
      { path: 'src/index.ts', oldText: 'nope', newText: 'x', replaceAll: false },
      { workspacePath: env.ws },
    );
    expect(preview).toMatch(/^\(no preview: .*was not found/);
  });

  it('delete moves to the trash, and the trash puts it back', async () => {
    const result = await run(env.tools, 'delete', { path: 'src/lib' }, env.ws);
    expect(result.output).toMatch(/Moved src\/lib\/ to the trash/);
    expect(existsSync(join(env.ws, 'src/lib'))).toBe(false);
    const trash = new Trash(join(env.dataDir, 'trash'));
    const [entry] = await trash.list();
    expect(entry).toMatchObject({ relativePath: 'src/lib', directory: true });
    await trash.restore(entry?.id ?? '');
    expect(readFileSync(join(env.ws, 'src/lib/util.ts'), 'utf8')).toContain('HELLO');
    expect(await trash.list()).toEqual([]);
  });

  it('restoring refuses to overwrite what is there now', async () => {
    await run(env.tools, 'delete', { path: 'src/index.ts' }, env.ws);
    writeFileSync(join(env.ws, 'src/index.ts'), 'new content');
    const trash = new Trash(join(env.dataDir, 'trash'));
    const [entry] = await trash.list();
    await expect(trash.restore(entry?.id ?? '')).rejects.toThrow(/exists again/);
    expect(readFileSync(join(env.ws, 'src/index.ts'), 'utf8')).toBe('new content');
  });
});

describe('workspace tools and links', needs(symlinks), () => {
  let env: ReturnType<typeof setup>;
  let outside: string;
  beforeEach(() => {
    env = setup(null);
    outside = join(env.folder.path, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'shared.txt'), 'shared text\n');
    linkSync(join(outside, 'shared.txt'), join(env.ws, 'shared.txt'));
    symlinkSync('src', join(env.ws, 'source'));
  });
  afterEach(() => env.folder.remove());

  it('read_file shows a hard-linked file and says another name shares it', async () => {
    const { output } = await run(env.tools, 'read_file', { path: 'shared.txt' }, env.ws);
    expect(output).toMatch(/^shared text\n\n\[… shared.txt has 2 hard links: another name, perhaps outside the workspace/);
  });

  it('write_file and edit_file replace a hard-linked file, leaving its other name as it was, and say so', async () => {
    const edited = await run(env.tools, 'edit_file', { path: 'shared.txt', oldText: 'shared', newText: 'own' }, env.ws);
    expect(edited.output).toContain('had 2 hard links; it was replaced by a new file, so its other names keep the old content');
    expect(readFileSync(join(env.ws, 'shared.txt'), 'utf8')).toBe('own text\n');
    expect(readFileSync(join(outside, 'shared.txt'), 'utf8')).toBe('shared text\n');
    const written = await run(env.tools, 'write_file', { path: 'shared.txt', content: 'again\n' }, env.ws);
    expect(written.output).toMatch(/^Replaced shared.txt\./);
    expect(written.output).not.toContain('hard links');
  });

  it('a grant for a folder covers a path by where it leads: a link in another folder does not carry it there', () => {
    mkdirSync(join(env.ws, 'docs'));
    symlinkSync('../src', join(env.ws, 'docs', 'code'));
    const write = env.tools.get('write_file');
    const remove = env.tools.get('delete');
    if (!write || !remove) throw new Error('no write_file or delete');
    const context = { workspacePath: env.ws };
    const docs = { kind: 'path_prefix' as const, folder: 'docs/' };
    const src = { kind: 'path_prefix' as const, folder: 'src/' };
    const intoSrc = { path: 'docs/code/index.ts', content: 'x' };
    // docs/code/index.ts is src/index.ts: a grant for docs/ does not reach it, one for src/ does, and src/ is offered.
    expect(write.covers(docs, intoSrc, context)).toBe(false);
    expect(write.covers(src, intoSrc, context)).toBe(true);
    expect(write.grantFolders(intoSrc, context)).toEqual(['src/', '']);
    expect(write.covers(docs, { path: 'docs/notes.md', content: 'x' }, context)).toBe(true);
    // A file that does not exist yet, through the link, is placed the same way.
    expect(write.grantFolders({ path: 'docs/code/lib/new.ts', content: 'x' }, context)).toEqual(['src/lib/', 'src/', '']);
    // Removing the link itself acts on the link, which is in docs/.
    expect(remove.covers(docs, { path: 'docs/code' }, context)).toBe(true);
    expect(remove.covers(src, { path: 'docs/code/index.ts' }, context)).toBe(true);
    // A protected path, or one that leaves the workspace, is covered by no folder and offers none.
    expect(write.grantFolders({ path: '.git/config', content: 'x' }, context)).toEqual([]);
    expect(write.covers({ kind: 'path_prefix', folder: '' }, { path: '.git/config', content: 'x' }, context)).toBe(false);
  });

  it('links that stay inside keep working for every tool', async () => {
    expect((await run(env.tools, 'read_file', { path: 'source/index.ts' }, env.ws)).output).toContain('Hello');
    expect((await run(env.tools, 'list_files', { path: 'source' }, env.ws)).output.split('\n')).toContain('src/index.ts');
    expect((await run(env.tools, 'search', { pattern: 'HELLO', path: 'source', caseSensitive: true }, env.ws)).output).toBe(
      'src/lib/util.ts:1:export const HELLO = "hello";',
    );
    const written = await run(env.tools, 'write_file', { path: 'source/new.ts', content: 'x\n' }, env.ws);
    expect(written.output).toMatch(/^Created src\/new.ts\./);
  });

  it('delete moves a link to the trash, not the folder it leads to', async () => {
    const result = await run(env.tools, 'delete', { path: 'source' }, env.ws);
    expect(result.output).toMatch(/^Moved source to the trash/);
    expect(existsSync(join(env.ws, 'source'))).toBe(false);
    expect(existsSync(join(env.ws, 'src', 'index.ts'))).toBe(true);
  });
});

describe.each([
  ['ripgrep', undefined],
  ['the built-in search', null],
] as const)('search with %s', (_name, ripgrep) => {
  let env: ReturnType<typeof setup>;
  beforeEach(() => {
    env = setup(ripgrep);
  });
  afterEach(() => env.folder.remove());

  it('finds matches case-insensitively, skipping ignored, binary and .git files', async () => {
    const { output } = await run(env.tools, 'search', { pattern: 'hello' }, env.ws);
    expect(output.split('\n')).toEqual([
      'src/index.ts:1:export function hello() {',
      'src/index.ts:2:  return "Hello";',
      'src/lib/util.ts:1:export const HELLO = "hello";',
    ]);
  });

  it('honours case, a glob and a folder', async () => {
    expect((await run(env.tools, 'search', { pattern: 'HELLO', caseSensitive: true }, env.ws)).output).toBe(
      'src/lib/util.ts:1:export const HELLO = "hello";',
    );
    expect((await run(env.tools, 'search', { pattern: 'export', glob: 'util.ts' }, env.ws)).output.split('\n')).toHaveLength(2);
    expect((await run(env.tools, 'search', { pattern: 'export', path: 'src/lib' }, env.ws)).output.split('\n')).toHaveLength(2);
    expect((await run(env.tools, 'search', { pattern: 'zzz-not-here' }, env.ws)).output).toBe('No matches.');
  });
});
