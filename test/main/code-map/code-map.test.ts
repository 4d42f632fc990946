import { mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CodeIndex } from '../../../src/main/code-map/code-index';
import { atRestSeal, type AtRestSeal } from '../../../src/main/secrets/at-rest-seal';
import { CancelledError } from '../../../src/shared/errors';
import { GrammarError, Tagger } from '../../../src/main/code-map/tagger';
import { WorkspaceFiles } from '../../../src/main/workspace/workspace-files';
import { temporaryFolder } from '../../helpers';
import { needs, symlinks } from '../../platform';
import { fixtureRepos } from './fixture-repos';

const opened: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const folder of opened.splice(0)) folder.remove();
});

/** A workspace holding `files`, and an index over it cached in its own data folder. */
function workspaceWith(files: Readonly<Record<string, string | Buffer>>, tagger = new Tagger()) {
  const folder = temporaryFolder('workbench-code-map-');
  opened.push(folder);
  const root = join(folder.path, 'ws');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  mkdirSync(root, { recursive: true });
  const cacheFile = join(folder.path, 'data', 'code-map', 'index.json');
  const reader = () => new WorkspaceFiles(root).reader();
  const realRoot = (() => {
    const made = reader();
    made.close();
    return made.root;
  })();
  const index = (seal?: AtRestSeal): CodeIndex => new CodeIndex({ root: realRoot, reader, tagger, cacheFile, ...(seal ? { seal } : {}) });
  return { root, cacheFile, index };
}

describe('tags of each language', () => {
  it.each(fixtureRepos.map((repo) => [repo.language, repo] as const))(
    '%s: its definitions and the uses of its names',
    async (_language, repo) => {
      const { index } = workspaceWith(repo.files);
      const built = index();
      const refreshed = await built.refresh();
      expect(refreshed.notes).toEqual([]);
      expect(refreshed.read).toBe(Object.keys(repo.files).length);
      const definitions = built
        .entries()
        .flatMap(([path, file]) => file.tags.filter((tag) => tag.defines).map((tag) => `${tag.defines} ${tag.name} ${path}:${tag.line}`));
      const references = built
        .entries()
        .flatMap(([path, file]) => file.tags.filter((tag) => !tag.defines).map((tag) => `${tag.name} ${path}:${tag.line}`));
      expect(definitions).toEqual(expect.arrayContaining([...repo.definitions]));
      expect(references).toEqual(expect.arrayContaining([...repo.references]));
      for (const [, file] of built.entries()) expect(file.parseErrors).toBe(false);
    },
  );

  it('a definition’s text is its first line, and a file tree-sitter cannot fully parse still gives what it could read', async () => {
    const tagger = new Tagger();
    const broken = await tagger.tag(
      'src/broken.ts',
      'export function good(a: number) {\n  return a;\n}\nfunction (((( {\nclass Later {}\n',
    );
    expect(broken?.parseErrors).toBe(true);
    expect(broken?.tags.find((tag) => tag.name === 'good')).toMatchObject({
      defines: 'function',
      line: 1,
      endLine: 3,
      text: 'export function good(a: number) {',
    });
    expect(await tagger.tag('notes.txt', 'plain words')).toBeNull();
  });

  it('puts a definition where its name is, after its annotations, and each call of a chain on its own line', async () => {
    const tagger = new Tagger();
    const java = await tagger.tag(
      'A.java',
      'class A {\n  @Override\n  @Deprecated\n  public String toString() {\n    return sb\n      .append(1)\n      .append(2)\n      .toString();\n  }\n}\n',
    );
    expect(java?.tags.find((tag) => tag.defines === 'method')).toMatchObject({
      name: 'toString',
      line: 4,
      endLine: 9,
      text: 'public String toString() {',
    });
    expect(java?.tags.filter((tag) => !tag.defines).map((tag) => `${tag.name}:${tag.line}`)).toEqual([
      'append:6',
      'append:7',
      'toString:8',
    ]);
    const js = await tagger.tag('a.js', 'promise\n  .then(first)\n  .then(second);\n');
    expect(js?.tags.map((tag) => `${tag.name}:${tag.line}`)).toEqual(['then:2', 'then:3']);
  });
});

describe('the code index of a workspace', () => {
  const files = {
    'src/a.ts': 'export function alpha() { return beta(); }\n',
    'src/b.ts': 'export function beta() { return 1; }\n',
    'src/generated.ts': 'export function generated() {}\n',
    '.gitignore': 'src/generated.ts\nbuild/\n',
    'build/out.js': 'function built() {}\n',
    'blob.js': Buffer.from([0x66, 0x00, 0x6e, 0x28, 0x29]),
    'README.md': '# words\n',
  };

  it('leaves out ignored, binary and other files, and reads again only the files that changed', async () => {
    const { root, index } = workspaceWith(files);
    const built = index();
    expect(await built.refresh()).toMatchObject({ read: 2, kept: 0, removed: 0, files: 2 });
    expect(built.entries().map(([path]) => path)).toEqual(['src/a.ts', 'src/b.ts']);
    // Nothing changed: nothing is read.
    expect(await built.refresh()).toMatchObject({ read: 0, kept: 2 });
    // One file changed: it alone is read again, and what it defines now is found.
    writeFileSync(join(root, 'src/b.ts'), 'export function beta() { return 1; }\nexport function gamma() {}\n');
    expect(await built.refresh()).toMatchObject({ read: 1, kept: 1 });
    expect(built.definitions('gamma').map((tag) => `${tag.path}:${tag.line}`)).toEqual(['src/b.ts:2']);
    // A file gone is gone from the index.
    writeFileSync(join(root, '.gitignore'), 'src/generated.ts\nbuild/\nsrc/b.ts\n');
    expect(await built.refresh()).toMatchObject({ removed: 1, files: 1 });
    expect(built.definitions('beta')).toEqual([]);
  });

  it('is kept on disk: the next start reads no file that did not change, and a changed one again', async () => {
    const { root, cacheFile, index } = workspaceWith(files);
    // A whole second as the modification time, so it can be put back exactly below.
    utimesSync(join(root, 'src/a.ts'), 1_700_000_000, 1_700_000_000);
    await index().refresh();
    expect(JSON.parse(readFileSync(cacheFile, 'utf8'))).toMatchObject({ version: 1 });
    const next = index();
    expect(await next.refresh()).toMatchObject({ read: 0, kept: 2 });
    expect(next.references('beta').map((tag) => `${tag.path}:${tag.line}`)).toEqual(['src/a.ts:1']);
    // The same size and its old modification time put back: the inode's change time still tells, and it is read again.
    const before = statSync(join(root, 'src/a.ts'));
    writeFileSync(join(root, 'src/a.ts'), 'export function alpha() { return gama(); }\n');
    utimesSync(join(root, 'src/a.ts'), 1_700_000_000, 1_700_000_000);
    expect(statSync(join(root, 'src/a.ts')).size).toBe(before.size);
    expect(statSync(join(root, 'src/a.ts')).mtimeMs).toBe(before.mtimeMs);
    const third = index();
    expect(await third.refresh()).toMatchObject({ read: 1, kept: 1 });
    expect(third.references('gama').map((tag) => tag.path)).toEqual(['src/a.ts']);
  });

  it('is kept sealed where the database is encrypted: it names nothing without the key, and a plain one or another key reads every file again', async () => {
    const { cacheFile, index } = workspaceWith(files);
    const key = Buffer.alloc(32, 3);
    const seal = atRestSeal(key, 'code map');
    // A cache kept plain (before the database was encrypted, or put there by someone else) is not read with a seal.
    await index().refresh();
    expect(await index(seal).refresh()).toMatchObject({ read: 2 });
    const sealed = readFileSync(cacheFile);
    expect(seal.isSealed(sealed)).toBe(true);
    expect(sealed.includes('alpha')).toBe(false);
    expect(sealed.includes('src/a.ts')).toBe(false);
    const next = index(seal);
    expect(await next.refresh()).toMatchObject({ read: 0, kept: 2 });
    expect(next.references('beta').map((tag) => tag.path)).toEqual(['src/a.ts']);
    // The same key for another purpose does not open it.
    expect(() => atRestSeal(key, 'trash').open(readFileSync(cacheFile))).toThrow(/does not open with this key/);
    // Another key (a new database), or no seal at all: the cache cannot be read, and every file is read again.
    expect(await index(atRestSeal(Buffer.alloc(32, 4), 'code map')).refresh()).toMatchObject({ read: 2 });
    expect(await index().refresh()).toMatchObject({ read: 2 });
  });

  it('a caller that stops waiting stops only its own wait: the one walk goes on for the others', async () => {
    const { index } = workspaceWith(files);
    const built = index();
    const stop = new AbortController();
    const first = built.refresh(stop.signal);
    const second = built.refresh();
    stop.abort();
    await expect(first).rejects.toBeInstanceOf(CancelledError);
    expect(await second).toMatchObject({ read: 2, files: 2 });
  });

  it('a damaged cache is read as none: every file is read again, and the cache is written whole', async () => {
    const { cacheFile, index } = workspaceWith(files);
    mkdirSync(dirname(cacheFile), { recursive: true });
    writeFileSync(cacheFile, '{"version": 1, "root": 7');
    expect(await index().refresh()).toMatchObject({ read: 2 });
    expect(JSON.parse(readFileSync(cacheFile, 'utf8')).files['src/a.ts'].tags[0].name).toBe('alpha');
  });

  it('a grammar that fails to load leaves its files out with a note, and the other languages are indexed', async () => {
    class FailingPython extends Tagger {
      override async tag(path: string, source: string) {
        if (path.endsWith('.py')) throw new GrammarError('python', 'the grammar file is damaged');
        return super.tag(path, source);
      }
    }
    const { index } = workspaceWith({ 'a.py': 'def f():\n    pass\n', 'b.ts': 'function g() {}\n' }, new FailingPython());
    const built = index();
    const refreshed = await built.refresh();
    expect(refreshed.notes).toEqual(['The python grammar could not be used: the grammar file is damaged']);
    expect(built.entries().map(([path]) => path)).toEqual(['b.ts']);
  });

  it('follows no link: a linked file or folder, inside or out, is not read', needs(symlinks), async () => {
    const outside = temporaryFolder('workbench-code-map-outside-');
    opened.push(outside);
    writeFileSync(join(outside.path, 'secret.ts'), 'export function secret() {}\n');
    const { root, index } = workspaceWith({ 'src/a.ts': 'export function alpha() {}\n' });
    symlinkSync(join(outside.path, 'secret.ts'), join(root, 'src/linked.ts'));
    symlinkSync(outside.path, join(root, 'linked-folder'));
    const built = index();
    await built.refresh();
    expect(built.entries().map(([path]) => path)).toEqual(['src/a.ts']);
    expect(built.definitions('secret')).toEqual([]);
  });

  it('update reads a named file at once, and finds names in any letter case when none match exactly', async () => {
    const { root, index } = workspaceWith({ 'src/a.ts': 'export function alpha() {}\n' });
    const built = index();
    await built.refresh();
    writeFileSync(join(root, 'src/a.ts'), 'export function Alpha() {}\nexport class AlphaBox {}\n');
    await built.update(['src/a.ts']);
    expect(built.definitions('alpha').map((tag) => tag.name)).toEqual(['Alpha']);
    expect(built.similarNames('alp', 10)).toEqual(['Alpha', 'AlphaBox']);
    expect(built.outline('src/a.ts')?.map((tag) => `${tag.line} ${tag.defines} ${tag.name}`)).toEqual([
      '1 function Alpha',
      '2 class AlphaBox',
    ]);
  });
});
