import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  chmodSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
  writeSync,
  lstatSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appTrash } from '../../../src/main/core/core-tools';
import { atRestSeal, sealFor, type AtRestSeal } from '../../../src/main/secrets/at-rest-seal';
import { Trash } from '../../../src/main/tools/trash';
import { WorkspaceFiles } from '../../../src/main/workspace/workspace-files';
import { temporaryFolder } from '../../helpers';
import { testDatabaseKeys } from '../../host/test-keychain';
import { needs, posixFiles, symlinks } from '../../platform';

const folders: Array<{ remove: () => void }> = [];
afterEach(() => {
  for (const folder of folders.splice(0)) folder.remove();
});

const secret = 'DATABASE_PASSWORD=hunter2-7f3a9c';

/** A workspace and a data folder with the database's key kept as the app keeps it, and the trash's seal from it. */
function fresh(): { ws: string; data: string; seal: AtRestSeal } {
  const base = temporaryFolder('workbench-trash-sealed-');
  folders.push(base);
  const ws = join(base.path, 'ws');
  const data = join(base.path, 'data');
  mkdirSync(ws);
  mkdirSync(data);
  const keys = testDatabaseKeys(data);
  keys.create();
  const seal = sealFor(keys, 'trash');
  if (!seal) throw new Error('No seal from the test keychain.');
  return { ws, data, seal };
}

/** Every file under `folder`, by path, with its bytes (a link's target as its bytes). */
function bytesUnder(folder: string): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  for (const name of readdirSync(folder, { recursive: true }) as string[]) {
    const path = join(folder, name);
    const info = lstatSync(path);
    if (info.isFile()) found.set(name, readFileSync(path));
    else if (info.isSymbolicLink()) found.set(name, Buffer.from(readlinkSync(path)));
  }
  return found;
}

/** What a grep of the trash folder finds of `texts`, in names and in bytes. */
function foundIn(folder: string, texts: readonly string[]): string[] {
  const hits: string[] = [];
  for (const [name, bytes] of bytesUnder(folder))
    for (const text of texts) if (name.includes(text) || bytes.includes(text)) hits.push(`${text} in ${name}`);
  return hits;
}

/** A folder of secrets with a read-only file, a program, a link, an empty folder with its own mode, and set times. */
function secretsFolder(ws: string): void {
  mkdirSync(join(ws, 'secrets', 'bin'), { recursive: true });
  mkdirSync(join(ws, 'secrets', 'empty-vault'));
  writeFileSync(join(ws, 'secrets', 'prod-credentials.txt'), `${secret}\n`);
  writeFileSync(join(ws, 'secrets', 'bin', 'deploy.sh'), '#!/bin/sh\necho deploying-with-token\n');
  chmodSync(join(ws, 'secrets', 'bin', 'deploy.sh'), 0o755);
  writeFileSync(join(ws, 'secrets', 'readonly-notes.md'), 'read only notes\n');
  chmodSync(join(ws, 'secrets', 'readonly-notes.md'), 0o444);
  symlinkSync('prod-credentials.txt', join(ws, 'secrets', 'current-link'));
  chmodSync(join(ws, 'secrets', 'empty-vault'), 0o750);
  utimesSync(join(ws, 'secrets', 'prod-credentials.txt'), 1_600_000_000, 1_600_000_000);
}

/** Modes, times (files) and bytes of everything under `folder`, to compare before and after. */
function shape(folder: string): Record<string, string> {
  const shapes: Record<string, string> = {};
  for (const name of (readdirSync(folder, { recursive: true }) as string[]).sort()) {
    const path = join(folder, name);
    const info = lstatSync(path);
    if (info.isSymbolicLink()) shapes[name] = `link ${readlinkSync(path)}`;
    else if (info.isDirectory()) shapes[name] = `folder ${(info.mode & 0o777).toString(8)}`;
    else shapes[name] = `file ${(info.mode & 0o777).toString(8)} ${Math.floor(info.mtimeMs)} ${readFileSync(path).toString('base64')}`;
  }
  return shapes;
}

describe('the trash sealed at rest (an encrypted database)', () => {
  it(
    'keeps no byte or name of a deleted folder readable, and restores its exact bytes, modes, times and links',
    needs(posixFiles, symlinks),
    async () => {
      const { ws, data, seal } = fresh();
      secretsFolder(ws);
      const before = shape(join(ws, 'secrets'));
      const trash = new Trash(join(data, 'trash'), [data], seal);
      await trash.put(new WorkspaceFiles(ws, { protectedRoots: [data] }), 'secrets', { id: 's1', workspacePath: ws, now: 5 });
      expect(
        foundIn(join(data, 'trash'), ['hunter2', 'deploying-with-token', 'read only notes', 'prod-credentials', 'empty-vault', ws]),
      ).toEqual([]);
      expect(readdirSync(join(data, 'trash', 's1')).sort()).toEqual(['blobs', 'contents', 'manifest.json']);
      expect(await trash.list()).toEqual([
        {
          version: 1,
          id: 's1',
          originalPath: join(ws, 'secrets'),
          workspacePath: ws,
          relativePath: 'secrets',
          deletedAt: 5,
          directory: true,
        },
      ]);
      await trash.restore('s1');
      expect(shape(join(ws, 'secrets'))).toEqual(before);
      expect(readdirSync(join(data, 'trash'))).toEqual([]);
    },
  );

  it('seals a single deleted file and puts it back as it was', async () => {
    const { ws, data, seal } = fresh();
    writeFileSync(join(ws, 'credentials.env.txt'), `${secret}\n`);
    const trash = new Trash(join(data, 'trash'), [data], seal);
    await trash.put(new WorkspaceFiles(ws, { protectedRoots: [data] }), 'credentials.env.txt', { id: 'f1', workspacePath: ws, now: 1 });
    expect(foundIn(join(data, 'trash'), ['hunter2', 'credentials'])).toEqual([]);
    expect((await trash.restore('f1')).relativePath).toBe('credentials.env.txt');
    expect(readFileSync(join(ws, 'credentials.env.txt'), 'utf8')).toBe(`${secret}\n`);
  });

  it('round-trips a 50 MB file sealed a chunk at a time', async () => {
    const { ws, data, seal } = fresh();
    const size = 50 << 20;
    const chunk = Buffer.alloc(1 << 20);
    const fd = openSync(join(ws, 'big.bin'), 'w');
    for (let at = 0; at < size; at += chunk.length) {
      for (let i = 0; i < chunk.length; i += 4) chunk.writeUInt32LE((at + i) >>> 2, i);
      writeSync(fd, chunk);
    }
    closeSync(fd);
    const trash = new Trash(join(data, 'trash'), [data], seal);
    await trash.put(new WorkspaceFiles(ws, { protectedRoots: [data] }), 'big.bin', { id: 'b1', workspacePath: ws, now: 1 });
    expect(statSync(join(data, 'trash', 'b1', 'blobs', '0')).size).toBe(size + 36);
    await trash.restore('b1');
    const restored = readFileSync(join(ws, 'big.bin'));
    expect(restored.length).toBe(size);
    for (let at = 0; at < size; at += 4099 * 4) expect(restored.readUInt32LE(at)).toBe(at >>> 2);
  });

  it('reports a changed file of an entry with a typed error at restore, and keeps the entry whole', async () => {
    const { ws, data, seal } = fresh();
    mkdirSync(join(ws, 'config'));
    writeFileSync(join(ws, 'config', 'keys.txt'), `${secret}\n`);
    const trash = new Trash(join(data, 'trash'), [data], seal);
    await trash.put(new WorkspaceFiles(ws, { protectedRoots: [data] }), 'config', { id: 'c1', workspacePath: ws, now: 1 });
    const blob = join(data, 'trash', 'c1', 'blobs', '0');
    const changed = readFileSync(blob);
    changed[changed.length - 3] = (changed[changed.length - 3] ?? 0) ^ 0x20;
    writeFileSync(blob, changed);
    const kept = bytesUnder(join(data, 'trash'));
    await expect(trash.restore('c1')).rejects.toMatchObject({
      code: 'invalid_state',
      message: expect.stringMatching(/config does not open from the trash \(entry c1\).*Nothing was restored or removed/),
    });
    expect(bytesUnder(join(data, 'trash'))).toEqual(kept);
    expect(readdirSync(ws)).toEqual([]);
  });

  it('lists an entry sealed with another key or changed with a typed error, and restores nothing of it', async () => {
    const { ws, data, seal } = fresh();
    writeFileSync(join(ws, 'a.txt'), 'first\n');
    writeFileSync(join(ws, 'b.txt'), 'second\n');
    const trash = new Trash(join(data, 'trash'), [data], seal);
    const files = new WorkspaceFiles(ws, { protectedRoots: [data] });
    await trash.put(files, 'a.txt', { id: 'a1', workspacePath: ws, now: 1 });
    await trash.put(files, 'b.txt', { id: 'b1', workspacePath: ws, now: 2 });
    const manifest = join(data, 'trash', 'b1', 'manifest.json');
    const changed = readFileSync(manifest);
    changed[changed.length - 1] = (changed[changed.length - 1] ?? 0) ^ 1;
    writeFileSync(manifest, changed);
    const kept = bytesUnder(join(data, 'trash'));
    expect(await trash.list()).toEqual([
      expect.objectContaining({ id: 'a1', relativePath: 'a.txt' }),
      {
        id: 'b1',
        error: expect.objectContaining({ code: 'invalid_state', message: expect.stringContaining('Trash entry b1 does not open') }),
      },
    ]);
    await expect(trash.restore('b1')).rejects.toMatchObject({ code: 'invalid_state' });
    const otherKey = new Trash(join(data, 'trash'), [data], atRestSeal(Buffer.alloc(32, 9), 'trash'));
    expect((await otherKey.list()).map((entry) => ('error' in entry ? entry.error.code : entry.id))).toEqual([
      'invalid_state',
      'invalid_state',
    ]);
    await expect(otherKey.restore('a1')).rejects.toMatchObject({ code: 'invalid_state' });
    const noKey = new Trash(join(data, 'trash'), [data]);
    expect(await noKey.list()).toEqual([
      {
        id: 'a1',
        error: expect.objectContaining({ code: 'invalid_state', message: expect.stringContaining("sealed with the database's key") }),
      },
      expect.objectContaining({ id: 'b1' }),
    ]);
    expect(bytesUnder(join(data, 'trash'))).toEqual(kept);
    expect(readdirSync(ws)).toEqual([]);
  });
});

describe('entries kept plain before the database was encrypted', () => {
  it('are sealed at the next start, names and bytes, and restore as they were', needs(posixFiles, symlinks), async () => {
    const { ws, data, seal } = fresh();
    secretsFolder(ws);
    const before = shape(join(ws, 'secrets'));
    await new Trash(join(data, 'trash'), [data]).put(new WorkspaceFiles(ws, { protectedRoots: [data] }), 'secrets', {
      id: 'p1',
      workspacePath: ws,
      now: 3,
    });
    expect(foundIn(join(data, 'trash'), ['hunter2'])).not.toEqual([]);
    const trash = new Trash(join(data, 'trash'), [data], seal);
    await trash.sealPending();
    expect(foundIn(join(data, 'trash'), ['hunter2', 'deploying-with-token', 'prod-credentials', ws])).toEqual([]);
    expect(await trash.list()).toEqual([expect.objectContaining({ id: 'p1', relativePath: 'secrets', deletedAt: 3 })]);
    await trash.restore('p1');
    expect(shape(join(ws, 'secrets'))).toEqual(before);
  });

  it('restore whole from what a sealing stopped part way left, before and after its index was written', async () => {
    const { ws, data, seal } = fresh();
    mkdirSync(join(ws, 'docs'));
    writeFileSync(join(ws, 'docs', 'one.md'), 'one\n');
    writeFileSync(join(ws, 'docs', 'two.md'), 'two\n');
    const files = new WorkspaceFiles(ws, { protectedRoots: [data] });
    await new Trash(join(data, 'trash'), [data]).put(files, 'docs', { id: 'h1', workspacePath: ws, now: 1 });
    // Stopped before the index: blobs half written beside the plain item, which is still whole.
    mkdirSync(join(data, 'trash', 'h1', 'blobs'));
    writeFileSync(join(data, 'trash', 'h1', 'blobs', '0'), 'AWSEAL01 torn');
    const trash = new Trash(join(data, 'trash'), [data], seal);
    await trash.restore('h1');
    expect(bytesUnder(join(ws, 'docs'))).toEqual(
      new Map([
        ['one.md', Buffer.from('one\n')],
        ['two.md', Buffer.from('two\n')],
      ]),
    );
    // Stopped after the index: the plain item was not all removed yet.
    await trash.put(files, 'docs', { id: 'h2', workspacePath: ws, now: 2 });
    expect(readdirSync(join(data, 'trash', 'h2')).sort()).toEqual(['blobs', 'contents', 'manifest.json']);
    mkdirSync(join(data, 'trash', 'h2', 'item'));
    writeFileSync(join(data, 'trash', 'h2', 'item', 'one.md'), 'one\n');
    await trash.sealPending();
    expect(readdirSync(join(data, 'trash', 'h2')).sort()).toEqual(['blobs', 'contents', 'manifest.json']);
    await trash.restore('h2');
    expect(bytesUnder(join(ws, 'docs'))).toEqual(
      new Map([
        ['one.md', Buffer.from('one\n')],
        ['two.md', Buffer.from('two\n')],
      ]),
    );
  });
});

describe('the trash beside a plain database', () => {
  it('keeps entries as they were, with no key: the file and a readable manifest', async () => {
    const { ws, data } = fresh();
    writeFileSync(join(ws, 'credentials.env.txt'), `${secret}\n`);
    const trash = appTrash(false, { dataDir: data, databaseKeys: testDatabaseKeys(data) });
    await trash.put(new WorkspaceFiles(ws, { protectedRoots: [data] }), 'credentials.env.txt', { id: 'n1', workspacePath: ws, now: 1 });
    await trash.sealPending();
    expect(readFileSync(join(data, 'trash', 'n1', 'item'), 'utf8')).toBe(`${secret}\n`);
    expect(JSON.parse(readFileSync(join(data, 'trash', 'n1', 'manifest.json'), 'utf8'))).toMatchObject({
      relativePath: 'credentials.env.txt',
    });
    await trash.restore('n1');
    expect(readFileSync(join(ws, 'credentials.env.txt'), 'utf8')).toBe(`${secret}\n`);
  });

  it('is sealed by the app where the database is encrypted', async () => {
    const { ws, data } = fresh();
    writeFileSync(join(ws, 'credentials.env.txt'), `${secret}\n`);
    const trash = appTrash(true, { dataDir: data, databaseKeys: testDatabaseKeys(data) });
    await trash.put(new WorkspaceFiles(ws, { protectedRoots: [data] }), 'credentials.env.txt', { id: 'e1', workspacePath: ws, now: 1 });
    expect(foundIn(join(data, 'trash'), ['hunter2', 'credentials'])).toEqual([]);
    await trash.restore('e1');
    expect(readFileSync(join(ws, 'credentials.env.txt'), 'utf8')).toBe(`${secret}\n`);
  });
});
