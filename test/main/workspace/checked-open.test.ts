import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeAccessFs, openThenCheckAccess, type AccessFs, type FileFacts } from '../../../src/main/workspace/checked-open';
import { defaultFolderAccess, isLinkRefusal } from '../../../src/main/workspace/folder-access';
import { WorkspaceFiles } from '../../../src/main/workspace/workspace-files';
import { temporaryFolder, thrownCode } from '../../helpers';
import { needs, windows } from '../../platform';

/**
 * A file system that does what Windows does to the walk, in memory: names are found whatever their letter case, an open
 * follows symbolic links, junctions and mount points at every name, `lstat` reports a symbolic link or a junction at the
 * last name as a link but follows a mount point (libuv reads only the first two as links), and `realpath` answers the
 * final path with the names' own case.
 */
type Entry =
  | { readonly kind: 'file' | 'folder'; readonly dev: bigint; readonly ino: bigint }
  | { readonly kind: 'link' | 'mount'; readonly target: string; readonly dev: bigint; readonly ino: bigint };

class WindowsLikeFs implements AccessFs {
  readonly entries = new Map<string, Entry>();
  readonly descriptors = new Map<number, Entry>();
  /** Runs once right after the next open, as a process swapping names at that moment would. */
  afterOpen: (() => void) | null = null;
  private nextFd = 10;
  private nextIno = 100n;

  file(path: string, ino?: bigint): void {
    this.entries.set(path, { kind: 'file', dev: 1n, ino: ino ?? (this.nextIno += 1n) });
  }
  folder(path: string, dev = 1n): void {
    this.entries.set(path, { kind: 'folder', dev, ino: (this.nextIno += 1n) });
  }
  link(path: string, target: string, kind: 'link' | 'mount' = 'link'): void {
    this.entries.set(path, { kind, target, dev: 1n, ino: (this.nextIno += 1n) });
  }

  /** The stored name for a path whatever its case, as NTFS finds it. */
  private named(path: string): string | undefined {
    return [...this.entries.keys()].find((key) => key.toLowerCase() === path.toLowerCase());
  }

  /** Follows every link and mount point on the way, and the last one unless `keepLast` says which kinds to keep. */
  private resolve(path: string, keepLast: ReadonlyArray<Entry['kind']>): { path: string; entry: Entry } {
    let names = path.split('/').filter((name) => name !== '');
    for (let hops = 0; hops < 40; hops += 1) {
      let at = '';
      let restart: string[] | null = null;
      for (const [index, name] of names.entries()) {
        const found = this.named(`${at}/${name}`);
        const entry = found === undefined ? undefined : this.entries.get(found);
        if (found === undefined || entry === undefined) throw Object.assign(new Error(`no ${at}/${name}`), { code: 'ENOENT' });
        const last = index === names.length - 1;
        if ((entry.kind === 'link' || entry.kind === 'mount') && !(last && keepLast.includes(entry.kind))) {
          restart = [...entry.target.split('/').filter((part) => part !== ''), ...names.slice(index + 1)];
          break;
        }
        at = found;
        if (last) return { path: at, entry };
      }
      if (restart === null) throw new Error('an empty path');
      names = restart;
    }
    throw Object.assign(new Error('a loop'), { code: 'ELOOP' });
  }

  private facts(entry: Entry): FileFacts {
    return { dev: entry.dev, ino: entry.ino, isSymbolicLink: () => entry.kind === 'link', isDirectory: () => entry.kind === 'folder' };
  }

  /** Every path opened, in order. */
  readonly opened: string[] = [];

  open(path: string): number {
    this.opened.push(path);
    const fd = (this.nextFd += 1);
    this.descriptors.set(fd, this.resolve(path, []).entry);
    const swap = this.afterOpen;
    this.afterOpen = null;
    swap?.();
    return fd;
  }
  close(fd: number): void {
    if (!this.descriptors.delete(fd)) throw new Error(`closed ${fd} twice`);
  }
  fstat(fd: number): FileFacts {
    const entry = this.descriptors.get(fd);
    if (!entry) throw new Error(`no descriptor ${fd}`);
    return this.facts(entry);
  }
  lstat(path: string): FileFacts | undefined {
    try {
      return this.facts(this.resolve(path, ['link']).entry);
    } catch {
      return undefined;
    }
  }
  stat(path: string): FileFacts {
    return this.facts(this.resolve(path, []).entry);
  }
  realpath(path: string): string {
    return this.resolve(path, []).path;
  }
}

describe('opening names on Windows: open first, then check what was opened', () => {
  let fs: WindowsLikeFs;
  const access = () => openThenCheckAccess({ fs, caseIgnored: () => true });
  beforeEach(() => {
    fs = new WindowsLikeFs();
    fs.folder('/c');
    fs.folder('/c/ws');
    fs.folder('/c/ws/src');
    fs.file('/c/ws/src/index.ts');
    fs.folder('/c/outside');
    fs.file('/c/outside/secret.txt');
  });

  it('picks open-then-check for Windows', () => {
    expect(defaultFolderAccess('win32').kind).toBe('open-then-check');
  });

  it('opens a plain file inside and says where it is, leaving no folder open', () => {
    const walk = access();
    const src = walk.openFolder(walk.openRoot('/c/ws'), 'src');
    const fd = walk.openEntry(src, 'index.ts', 0);
    expect(walk.whereIsFile(fd, '/c/ws/src/index.ts')).toBe('/c/ws/src/index.ts');
    expect(walk.whereIsFolder(src)).toBe('/c/ws/src');
    expect([...fs.descriptors.keys()]).toEqual([fd]);
  });

  it('takes a name written in another case as the same file where case is ignored', () => {
    const walk = access();
    const src = walk.openFolder(walk.openRoot('/c/ws'), 'SRC');
    const fd = walk.openEntry(src, 'Index.TS', 0);
    expect(walk.whereIsFile(fd, '/c/ws/SRC/Index.TS')).toBe('/c/ws/src/index.ts');
    expect(walk.whereIsFolder(src)).toBe('/c/ws/src');
  });

  it('refuses, as a link the walk then reads, a symbolic link or a junction at the name, without opening it', () => {
    fs.link('/c/ws/src/leak.txt', '/c/outside/secret.txt');
    fs.link('/c/ws/junction', '/c/outside');
    const walk = access();
    const root = walk.openRoot('/c/ws');
    const src = walk.openFolder(root, 'src');
    expect(thrownCode(() => walk.openEntry(src, 'leak.txt', 0))).toBe('ELOOP');
    expect(thrownCode(() => walk.openFolder(root, 'junction'))).toBe('ELOOP');
    // Opening it would already reach where it leads (a share on another machine is asked for the person's credentials).
    expect(fs.opened.filter((path) => /leak|junction/.test(path))).toEqual([]);
    expect(isLinkRefusal(Object.assign(new Error(), { code: 'ELOOP' }))).toBe(true);
    expect(fs.descriptors.size).toBe(0);
  });

  it('refuses a mount point (a reparse point Node does not call a link) that leads out of its folder', () => {
    fs.folder('/d', 2n);
    fs.file('/d/other.txt');
    fs.link('/c/ws/mounted', '/d', 'mount');
    const walk = access();
    const root = walk.openRoot('/c/ws');
    expect(fs.lstat('/c/ws/mounted')?.isSymbolicLink()).toBe(false);
    expect(thrownCode(() => walk.openFolder(root, 'mounted'))).toBe('EREPARSE');
    expect(isLinkRefusal(Object.assign(new Error(), { code: 'EREPARSE' }))).toBe(false);
    expect(fs.descriptors.size).toBe(0);
  });

  it('refuses a folder on the way swapped for a junction out after the walk checked it', () => {
    const walk = access();
    const src = walk.openFolder(walk.openRoot('/c/ws'), 'src');
    fs.entries.delete('/c/ws/src');
    fs.link('/c/ws/src', '/c/outside');
    fs.file('/c/outside/index.ts');
    expect(thrownCode(() => walk.openEntry(src, 'index.ts', 0))).toBe('EREPARSE');
    expect(thrownCode(() => walk.whereIsFolder(src))).toBe('EMOVED');
    expect(fs.descriptors.size).toBe(0);
  });

  it('catches a junction swapped in for the open and swapped back before the check', () => {
    const walk = access();
    const src = walk.openFolder(walk.openRoot('/c/ws'), 'src');
    const real = fs.entries.get('/c/ws/src');
    fs.entries.set('/c/ws/src', { kind: 'link', target: '/c/outside', dev: 1n, ino: 1n });
    fs.file('/c/outside/index.ts');
    fs.afterOpen = () => {
      if (real) fs.entries.set('/c/ws/src', real);
    };
    expect(thrownCode(() => walk.openEntry(src, 'index.ts', 0))).toBe('EMOVED');
    expect(fs.descriptors.size).toBe(0);
  });

  it('tells two files apart whose 64-bit file indexes differ only past what a number holds', () => {
    const inside = 2n ** 60n;
    const outside = 2n ** 60n + 1n;
    // As numbers the two indexes are one: a check without bigints would take one file for the other.
    expect(Number(inside)).toBe(Number(outside));
    fs.file('/c/ws/src/index.ts', inside);
    const walk = access();
    const src = walk.openFolder(walk.openRoot('/c/ws'), 'src');
    fs.afterOpen = () => {
      fs.file('/c/ws/src/index.ts', inside);
    };
    fs.file('/c/ws/src/index.ts', outside);
    expect(thrownCode(() => walk.openEntry(src, 'index.ts', 0))).toBe('EMOVED');
  });

  it('refuses a folder replaced by another one since it was opened', () => {
    const walk = access();
    const src = walk.openFolder(walk.openRoot('/c/ws'), 'src');
    fs.folder('/c/ws/src');
    expect(thrownCode(() => walk.whereIsFolder(src))).toBe('EMOVED');
  });

  it('refuses a file whose final path is not the path walked, on a file system that keeps case', () => {
    const walk = openThenCheckAccess({ fs, caseIgnored: () => false });
    const src = walk.openFolder(walk.openRoot('/c/ws'), 'src');
    expect(thrownCode(() => walk.openEntry(src, 'INDEX.ts', 0))).toBe('EREPARSE');
  });

  it('refuses a file where a folder is expected', () => {
    const walk = access();
    const src = walk.openFolder(walk.openRoot('/c/ws'), 'src');
    expect(thrownCode(() => walk.openFolder(src, 'index.ts'))).toBe('ENOTDIR');
  });
});

describe('open-then-check on real Windows', needs(windows), () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let ws: string;
  let outside: string;
  beforeEach(() => {
    folder = temporaryFolder('workbench-junction-');
    ws = join(folder.path, 'ws');
    outside = join(folder.path, 'outside');
    mkdirSync(join(ws, 'src'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(ws, 'src', 'index.ts'), 'inside\n');
    writeFileSync(join(outside, 'secret.txt'), 'secret\n');
  });
  afterEach(() => folder.remove());

  it('refuses a junction that leads out of the workspace, for reads and writes', async () => {
    symlinkSync(outside, join(ws, 'out'), 'junction');
    const files = new WorkspaceFiles(ws, { access: defaultFolderAccess('win32') });
    await expect(files.withFile('out/secret.txt', async () => 'read')).rejects.toMatchObject({ code: 'path_refused' });
    expect(() => files.replace('out/secret.txt', () => 'changed\n')).toThrow(expect.objectContaining({ code: 'path_refused' }));
  });

  it('follows a junction that stays inside', async () => {
    symlinkSync(join(ws, 'src'), join(ws, 'alias'), 'junction');
    const files = new WorkspaceFiles(ws, { access: defaultFolderAccess('win32') });
    expect(await files.withFile('alias/index.ts', async (file) => file.relative)).toBe('src/index.ts');
  });

  it('catches a folder on the way swapped for a junction out between the walk and the open', () => {
    writeFileSync(join(outside, 'index.ts'), 'outside\n');
    // The swap is made right before the open (Windows keeps a folder holding an open file from being renamed).
    const swapping: AccessFs = {
      ...nodeAccessFs,
      open: (path, flags, mode) => {
        if (path.endsWith('index.ts')) {
          renameSync(join(ws, 'src'), join(ws, 'src-aside'));
          symlinkSync(outside, join(ws, 'src'), 'junction');
        }
        return nodeAccessFs.open(path, flags, mode);
      },
    };
    const walk = openThenCheckAccess({ fs: swapping });
    const src = walk.openFolder(walk.openRoot(nodeAccessFs.realpath(ws)), 'src');
    // The open went through the junction; the checks after it find the final path outside.
    expect(() => walk.openEntry(src, 'index.ts', 0)).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/^E(MOVED|REPARSE)$/) }),
    );
  });

  it('reads 64-bit file indexes whole, the same from a descriptor and from the path', () => {
    const path = join(ws, 'src', 'index.ts');
    const fd = nodeAccessFs.open(path, 0);
    try {
      expect(nodeAccessFs.fstat(fd).ino).toBe(nodeAccessFs.stat(path).ino);
      expect(typeof nodeAccessFs.fstat(fd).ino).toBe('bigint');
    } finally {
      nodeAccessFs.close(fd);
    }
  });
});
