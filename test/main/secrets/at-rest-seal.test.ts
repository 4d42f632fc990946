import { closeSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { atRestSeal, type AtRestSeal } from '../../../src/main/secrets/at-rest-seal';
import { temporaryFolder } from '../../helpers';

/* Files kept outside the database, sealed with a key derived from the database's: unreadable without it, changes found. */
describe('a file sealed at rest', () => {
  const key = Buffer.alloc(32, 7);

  it('opens with the same key and purpose, differs on every write, and holds nothing of its text', () => {
    const seal = atRestSeal(key, 'code map');
    const plain = Buffer.from('export function secretPlan() {}');
    const once = seal.seal(plain);
    const twice = seal.seal(plain);
    expect(once.equals(twice)).toBe(false);
    expect(once.includes('secretPlan')).toBe(false);
    expect(seal.open(once).toString()).toBe('export function secretPlan() {}');
    expect(atRestSeal(key, 'code map').open(twice).equals(plain)).toBe(true);
  });

  it('refuses a changed file, another key, another purpose, a plain file and a short key, with a typed error', () => {
    const sealed = atRestSeal(key, 'code map').seal(Buffer.from('the index'));
    const changed = Buffer.from(sealed);
    changed[changed.length - 1] = (changed[changed.length - 1] ?? 0) ^ 1;
    for (const [seal, bytes] of [
      [atRestSeal(key, 'code map'), changed],
      [atRestSeal(Buffer.alloc(32, 8), 'code map'), sealed],
      [atRestSeal(key, 'trash'), sealed],
    ] as const) {
      expect(() => seal.open(bytes)).toThrow(
        expect.objectContaining({ code: 'invalid_state', message: expect.stringContaining('does not open') }),
      );
    }
    expect(() => atRestSeal(key, 'code map').open(Buffer.from('{"version":1}'))).toThrow(
      expect.objectContaining({ code: 'invalid_state' }),
    );
    expect(atRestSeal(key, 'code map').isSealed(Buffer.from('{"version":1}'))).toBe(false);
    expect(() => atRestSeal(Buffer.alloc(16), 'code map')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });

  it('names a file about a path by the key: the same name each time, another under another key or purpose, and not the path', () => {
    const seal = atRestSeal(key, 'code map');
    const name = seal.nameOf('/home/someone/secret-project');
    expect(name).toMatch(/^[0-9a-f]{24}$/);
    expect(seal.nameOf('/home/someone/secret-project')).toBe(name);
    expect(atRestSeal(Buffer.alloc(32, 8), 'code map').nameOf('/home/someone/secret-project')).not.toBe(name);
    expect(atRestSeal(key, 'trash').nameOf('/home/someone/secret-project')).not.toBe(name);
    expect(seal.nameOf('/home/someone/other-project')).not.toBe(name);
  });
});

/* Large files sealed a chunk at a time, in the same format, never read whole. */
describe('a file sealed at rest a chunk at a time', () => {
  const key = Buffer.alloc(32, 7);
  const folders: Array<{ remove: () => void }> = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) folder.remove();
  });

  /** Seals the bytes `plain` through files, as the trash does: answers the sealed bytes and the tag. */
  async function sealThroughFiles(seal: AtRestSeal, plain: Buffer): Promise<{ sealed: Buffer; tag: string; folder: string }> {
    const folder = temporaryFolder('workbench-seal-');
    folders.push(folder);
    writeFileSync(join(folder.path, 'plain'), plain);
    const from = await open(join(folder.path, 'plain'), 'r');
    const to = await open(join(folder.path, 'sealed'), 'wx');
    const tag = await seal.sealFile(from, to).finally(async () => {
      await from.close();
      await to.close();
    });
    return { sealed: readFileSync(join(folder.path, 'sealed')), tag, folder: folder.path };
  }

  async function openThroughFiles(seal: AtRestSeal, folder: string, sealed: Buffer): Promise<{ plain: Buffer; tag: string }> {
    writeFileSync(join(folder, 'to-open'), sealed);
    const from = await open(join(folder, 'to-open'), 'r');
    const to = await open(join(folder, 'opened'), 'w');
    const tag = await seal.openFile(from, to).finally(async () => {
      await from.close();
      await to.close();
    });
    return { plain: readFileSync(join(folder, 'opened')), tag };
  }

  it('writes what the in-memory seal opens, and opens what it wrote, across chunk edges and for an empty file', async () => {
    const seal = atRestSeal(key, 'trash');
    for (const size of [0, 5, (1 << 20) - 1, (5 << 19) + 3]) {
      const plain = Buffer.alloc(size);
      for (let at = 0; at < size; at += 1) plain[at] = (at * 31 + 7) & 0xff;
      plain.write('DATABASE_PASSWORD=hunter2'.slice(0, size), 0);
      const { sealed, tag, folder } = await sealThroughFiles(seal, plain);
      expect(sealed.includes('hunter2')).toBe(false);
      expect(seal.isSealed(sealed)).toBe(true);
      expect(seal.open(sealed).equals(plain)).toBe(true);
      const opened = await openThroughFiles(seal, folder, sealed);
      expect(opened.plain.equals(plain)).toBe(true);
      expect(opened.tag).toBe(tag);
      expect((await openThroughFiles(seal, folder, seal.seal(plain))).plain.equals(plain)).toBe(true);
    }
  });

  it('refuses a changed byte, another key or purpose, and a plain file with a typed error', async () => {
    const plain = Buffer.from('API_TOKEN=abc123\n'.repeat(100_000));
    const { sealed, folder } = await sealThroughFiles(atRestSeal(key, 'trash'), plain);
    const changed = Buffer.from(sealed);
    changed[sealed.length >> 1] = (changed[sealed.length >> 1] ?? 0) ^ 1;
    for (const [seal, bytes, message] of [
      [atRestSeal(key, 'trash'), changed, 'does not open'],
      [atRestSeal(Buffer.alloc(32, 8), 'trash'), sealed, 'does not open'],
      [atRestSeal(key, 'code map'), sealed, 'does not open'],
      [atRestSeal(key, 'trash'), plain, 'not sealed'],
    ] as const) {
      await expect(openThroughFiles(seal, folder, bytes)).rejects.toMatchObject({
        code: 'invalid_state',
        message: expect.stringContaining(message),
      });
    }
  });

  it('seals and opens a 50 MB file by reads and writes of at most a chunk, never the whole file', async () => {
    const seal = atRestSeal(key, 'trash');
    const folder = temporaryFolder('workbench-seal-large-');
    folders.push(folder);
    const size = 50 << 20;
    const part = Buffer.alloc(1 << 20, 'x');
    const fd = openSync(join(folder.path, 'plain'), 'w');
    for (let at = 0; at < size; at += part.length) writeSync(fd, part);
    closeSync(fd);
    const largest = { read: 0, write: 0, reads: 0 };
    /** The file handle, with the size of every read and write it is asked for recorded. */
    const watched = (handle: FileHandle): FileHandle =>
      new Proxy(handle, {
        get(target, property, receiver) {
          if (property === 'read')
            return (buffer: Buffer, offset: number, length: number, position: number) => {
              largest.read = Math.max(largest.read, length);
              largest.reads += 1;
              return target.read(buffer, offset, length, position);
            };
          if (property === 'write')
            return (buffer: Buffer, offset: number, length: number, position: number) => {
              largest.write = Math.max(largest.write, length);
              return target.write(buffer, offset, length, position);
            };
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const run = async (fromName: string, toName: string, how: 'sealFile' | 'openFile'): Promise<void> => {
      const from = await open(join(folder.path, fromName), 'r');
      const to = await open(join(folder.path, toName), 'w');
      try {
        await seal[how](watched(from), watched(to));
      } finally {
        await from.close();
        await to.close();
      }
    };
    await run('plain', 'sealed', 'sealFile');
    await run('sealed', 'opened', 'openFile');
    expect(largest.read).toBeLessThanOrEqual(1 << 20);
    expect(largest.write).toBeLessThanOrEqual((1 << 20) + 16);
    expect(largest.reads).toBeGreaterThanOrEqual(100);
    expect(statSync(join(folder.path, 'opened')).size).toBe(size);
    expect(readFileSync(join(folder.path, 'opened')).equals(readFileSync(join(folder.path, 'plain')))).toBe(true);
  });
});
