import {
  chmodSync,
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLinesFromFd } from '../../../src/main/workspace/fd-read';
import { defaultFolderAccess, procFdAccess, type FolderAccess } from '../../../src/main/workspace/folder-access';
import { WorkspaceFiles } from '../../../src/main/workspace/workspace-files';
import { temporaryFolder } from '../../helpers';
import { needs, posixFiles, procFs, symlinks } from '../../platform';

const openDescriptors = (): number => readdirSync('/proc/self/fd').length;

// Told the platform, the choice is the same on every machine.
it('picks the platform mechanism: /proc walk on Linux, O_NOFOLLOW_ANY on macOS, open-then-check on Windows', () => {
  expect(defaultFolderAccess('linux').kind).toBe('proc-fd');
  expect(defaultFolderAccess('darwin').kind).toBe('nofollow-any');
  expect(defaultFolderAccess('win32').kind).toBe('open-then-check');
});

describe('workspace files', needs(procFs, symlinks, posixFiles), () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let ws: string;
  let outside: string;
  beforeEach(() => {
    folder = temporaryFolder('workbench-files-');
    ws = join(folder.path, 'ws');
    outside = join(folder.path, 'outside');
    mkdirSync(join(ws, 'src'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(ws, 'src', 'index.ts'), 'export {};\n');
  });
  afterEach(() => folder.remove());

  it('replaces a hard link with a new file: the other name keeps its content', () => {
    writeFileSync(join(outside, 'shared.txt'), 'outside content\n');
    linkSync(join(outside, 'shared.txt'), join(ws, 'shared.txt'));
    const done = new WorkspaceFiles(ws).replace('shared.txt', () => 'new content\n');
    expect(done).toMatchObject({ created: false, before: 'outside content\n', links: 2 });
    expect(readFileSync(join(ws, 'shared.txt'), 'utf8')).toBe('new content\n');
    expect(readFileSync(join(outside, 'shared.txt'), 'utf8')).toBe('outside content\n');
  });

  it("keeps the replaced file's mode", () => {
    writeFileSync(join(ws, 'run.sh'), 'echo hi\n');
    chmodSync(join(ws, 'run.sh'), 0o750);
    new WorkspaceFiles(ws).replace('run.sh', () => 'echo bye\n');
    expect(statSync(join(ws, 'run.sh')).mode & 0o7777).toBe(0o750);
  });

  it('follows a link that stays inside and replaces the file it leads to, leaving the link', () => {
    symlinkSync('src/index.ts', join(ws, 'entry'));
    const done = new WorkspaceFiles(ws).replace('entry', () => 'export const x = 1;\n');
    expect(done.relative).toBe('src/index.ts');
    expect(readFileSync(join(ws, 'src', 'index.ts'), 'utf8')).toBe('export const x = 1;\n');
    expect(readFileSync(join(ws, 'entry'), 'utf8')).toBe('export const x = 1;\n');
  });

  it('refuses to write through a link to a folder that does not exist, creating nothing', () => {
    symlinkSync('not/there', join(ws, 'gone'));
    expect(() => new WorkspaceFiles(ws).replace('gone/file.txt', () => 'x')).toThrow(/link to nothing/);
    expect(existsSync(join(ws, 'not'))).toBe(false);
  });

  it('makes nothing when the new content cannot be made', () => {
    expect(() =>
      new WorkspaceFiles(ws).replace('new/deeper/file.txt', () => {
        throw new Error('no content');
      }),
    ).toThrow(/no content/);
    expect(existsSync(join(ws, 'new'))).toBe(false);
  });

  it('refuses and leaves nothing behind when the folder turns out to be outside just before the rename', () => {
    // The look right before the rename finds the folder elsewhere, as if it had been moved out meanwhile.
    const movedAway: FolderAccess = { ...procFdAccess, whereIsFolder: () => '/somewhere/else' };
    expect(() => new WorkspaceFiles(ws, { access: movedAway }).replace('src/new.ts', () => 'x')).toThrow(/moved outside the workspace/);
    expect(readdirSync(join(ws, 'src'))).toEqual(['index.ts']);
  });

  it('refuses a file that was opened inside but is found outside afterwards, reading nothing', async () => {
    const elsewhere: FolderAccess = { ...procFdAccess, whereIsFile: () => join(outside, 'index.ts') };
    await expect(new WorkspaceFiles(ws, { access: elsewhere }).withFile('src/index.ts', async () => 'read')).rejects.toMatchObject({
      code: 'path_refused',
    });
  });

  it('reads through the opened descriptor and tells how many names the file has', async () => {
    linkSync(join(ws, 'src', 'index.ts'), join(outside, 'other-name.ts'));
    const read = await new WorkspaceFiles(ws).withFile('src/index.ts', async (file) => ({ links: file.links, size: file.size }));
    expect(read).toEqual({ links: 2, size: 'export {};\n'.length });
  });

  it('moves a link itself out, not what it leads to', async () => {
    symlinkSync('src', join(ws, 'source-link'));
    const target = join(folder.path, 'trash-item');
    const moved = await new WorkspaceFiles(ws).moveOut('source-link', async () => target);
    expect(moved).toEqual({ relative: 'source-link', directory: false });
    expect(existsSync(join(ws, 'src', 'index.ts'))).toBe(true);
    expect(existsSync(join(ws, 'source-link'))).toBe(false);
  });

  it('puts bytes back with their mode, replacing a link at the name and never writing through it', () => {
    writeFileSync(join(outside, 'target.txt'), 'outside\n');
    symlinkSync(join(outside, 'target.txt'), join(ws, 'src', 'saved.txt'));
    const files = new WorkspaceFiles(ws);
    expect(files.put('src/saved.txt', Buffer.from([0xff, 0x00, 0x0a]), 0o640)).toEqual({ relative: 'src/saved.txt' });
    expect(readFileSync(join(ws, 'src', 'saved.txt'))).toEqual(Buffer.from([0xff, 0x00, 0x0a]));
    expect(statSync(join(ws, 'src', 'saved.txt')).mode & 0o777).toBe(0o640);
    expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('outside\n');
  });

  it('puts back and removes nothing through a folder that is a link to outside, .git or protected data', () => {
    const outsideMarker = mkdtempSync(join(tmpdir(), 'workbench-outside-'));
    try {
      writeFileSync(join(outsideMarker, 'keep.txt'), 'keep\n');
      symlinkSync(outsideMarker, join(ws, 'out'));
      mkdirSync(join(ws, '.git'));
      symlinkSync('.git', join(ws, 'repo'));
      mkdirSync(join(ws, 'data'));
      const files = new WorkspaceFiles(ws, { protectedRoots: [join(ws, 'data')] });
      expect(() => files.put('out/new.txt', Buffer.from('x'), 0o644)).toThrow(/outside the workspace/);
      expect(() => files.put('out/sub/new.txt', Buffer.from('x'), 0o644)).toThrow(/outside the workspace/);
      expect(() => files.removeFile('out/keep.txt')).toThrow(/outside the workspace/);
      expect(() => files.put('repo/HEAD', Buffer.from('x'), 0o644)).toThrow(/\.git folder/);
      expect(() => files.put('data/state.json', Buffer.from('x'), 0o644)).toThrow(/data folder/);
      expect(readdirSync(outsideMarker)).toEqual(['keep.txt']);
      expect(readdirSync(join(ws, '.git'))).toEqual([]);
      expect(readdirSync(join(ws, 'data'))).toEqual([]);
    } finally {
      rmSync(outsideMarker, { recursive: true, force: true });
    }
  });

  it('removes a plain file through its folder, leaves a link at the name alone, and answers false for nothing', () => {
    writeFileSync(join(ws, 'src', 'gone.ts'), 'x\n');
    symlinkSync('index.ts', join(ws, 'src', 'link.ts'));
    const files = new WorkspaceFiles(ws);
    expect(files.removeFile('src/gone.ts')).toBe(true);
    expect(existsSync(join(ws, 'src', 'gone.ts'))).toBe(false);
    expect(() => files.removeFile('src/link.ts')).toThrow(/no longer a plain file/);
    expect(readlinkSync(join(ws, 'src', 'link.ts'))).toBe('index.ts');
    expect(files.removeFile('src/missing.ts')).toBe(false);
  });

  it('moves a folder out and back in across file systems, copying links as links', async () => {
    const other = mkdtempSync('/dev/shm/workbench-files-');
    try {
      if (statSync(other).dev === statSync(ws).dev) return; // one file system here: nothing to cross
      mkdirSync(join(ws, 'src', 'deep'));
      writeFileSync(join(ws, 'src', 'deep', 'run.sh'), 'echo hi\n', { mode: 0o750 });
      symlinkSync('../index.ts', join(ws, 'src', 'deep', 'entry'));
      const files = new WorkspaceFiles(ws);
      await files.moveOut('src', async () => join(other, 'item'));
      expect(existsSync(join(ws, 'src'))).toBe(false);
      expect(readFileSync(join(other, 'item', 'deep', 'run.sh'), 'utf8')).toBe('echo hi\n');
      expect(files.moveIn('src', join(other, 'item'))).toBe(true);
      expect(readdirSync(other)).toEqual([]);
      expect(readFileSync(join(ws, 'src', 'deep', 'entry'), 'utf8')).toBe('export {};\n');
      expect(readlinkSync(join(ws, 'src', 'deep', 'entry'))).toBe('../index.ts');
      expect(statSync(join(ws, 'src', 'deep', 'run.sh')).mode & 0o777).toBe(0o750);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('leaves no descriptor open, whether calls succeed or fail', async () => {
    symlinkSync('../outside', join(ws, 'out'));
    const files = new WorkspaceFiles(ws);
    const before = openDescriptors();
    for (let round = 0; round < 20; round += 1) {
      files.replace(`src/deep/n${round}/file.txt`, () => 'x');
      await files.withFile('src/index.ts', async () => undefined);
      files.inspect('src');
      expect(() => files.replace('out/x.txt', () => 'x')).toThrow();
      expect(() =>
        files.replace('src/index.ts', () => {
          throw new Error('no');
        }),
      ).toThrow();
      await expect(files.withFile('src', async () => undefined)).rejects.toThrow(/is a folder/);
      const reader = files.reader();
      await reader.list('src');
      await reader.readFile('src/index.ts');
      reader.close();
    }
    expect(openDescriptors()).toBe(before);
  });
});

describe('reading lines through a descriptor', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  beforeEach(() => {
    folder = temporaryFolder('workbench-lines-');
  });
  afterEach(() => folder.remove());

  const linesOf = async (content: string, start: number, end: number) => {
    writeFileSync(join(folder.path, 'f.txt'), content);
    const fd = openSync(join(folder.path, 'f.txt'), 'r');
    try {
      return await readLinesFromFd(fd, start, end);
    } finally {
      closeSync(fd);
    }
  };

  it('splits on \\n, \\r\\n and a lone \\r, as readline does, and counts a last line without a newline', async () => {
    expect(await linesOf('a\r\nb\rc\nd', 1, 10)).toEqual({ lines: ['a', 'b', 'c', 'd'], total: 4 });
    expect(await linesOf('a\nb\n', 1, 10)).toEqual({ lines: ['a', 'b'], total: 2 });
    expect(await linesOf('a\nb\nc\n', 2, 2)).toEqual({ lines: ['b'], total: null });
  });

  it('keeps a \\r\\n and a multi-byte character whole across reads', async () => {
    // 65,535 bytes then \r\n puts the break exactly across the first 64 KB read; é straddles the next one.
    const first = 'x'.repeat(65_535);
    const second = `${'y'.repeat(65_534)}é`;
    const { lines, total } = await linesOf(`${first}\r\n${second}\nlast`, 1, 5);
    expect(lines.map((line) => line.length)).toEqual([65_535, 65_535, 4]);
    expect(lines[1]?.endsWith('é')).toBe(true);
    expect(total).toBe(3);
  });
});
