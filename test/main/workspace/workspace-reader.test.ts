import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultFolderAccess, type FolderAccess } from '../../../src/main/workspace/folder-access';
import { WorkspaceFiles } from '../../../src/main/workspace/workspace-files';
import { WorkspaceReader } from '../../../src/main/workspace/workspace-reader';
import { temporaryFolder } from '../../helpers';

const folders: Array<{ remove: () => void }> = [];
afterEach(() => {
  for (const folder of folders.splice(0)) folder.remove();
});

describe('the workspace reader', () => {
  it("refuses '..', '.' and empty names, so nothing above the workspace is opened", async () => {
    const base = temporaryFolder('workbench-reader-');
    folders.push(base);
    const ws = join(base.path, 'ws');
    mkdirSync(join(ws, 'sub'), { recursive: true });
    writeFileSync(join(ws, 'inside.txt'), 'inside\n');
    writeFileSync(join(base.path, 'outside.txt'), 'outside\n');
    const reader = new WorkspaceFiles(ws).reader();
    try {
      expect((await reader.readFile('inside.txt'))?.toString()).toBe('inside\n');
      expect(await reader.readFile('sub/../inside.txt')).toBeNull();
      expect(await reader.readFile('../outside.txt')).toBeNull();
      expect(await reader.readFile('sub/../../outside.txt')).toBeNull();
      expect(await reader.readFile('./inside.txt')).toBeNull();
      expect(await reader.readFile('sub//../inside.txt')).toBeNull();
      expect(await reader.readText('../outside.txt')).toBeNull();
      await expect(reader.list('..')).rejects.toThrow(/not a folder that can be listed/);
      await expect(reader.list('sub/..')).rejects.toThrow(/not a folder that can be listed/);
      expect((await reader.list('sub')).map((entry) => entry.name)).toEqual([]);
    } finally {
      reader.close();
    }
  });

  it('keeps at most 64 folders open, closing the one used longest ago, and the rest when closed', async () => {
    const base = temporaryFolder('workbench-reader-');
    folders.push(base);
    const names = Array.from({ length: 70 }, (_, index) => `folder-${index}`);
    for (const name of ['kept', ...names]) mkdirSync(join(base.path, name));
    const real = defaultFolderAccess();
    const open = new Set<string>();
    const closed: string[] = [];
    const access: FolderAccess = {
      ...real,
      openRoot: (root) => {
        const folder = real.openRoot(root);
        open.add(folder.absolute);
        return folder;
      },
      openFolder: (parent, name) => {
        const folder = real.openFolder(parent, name);
        open.add(folder.absolute);
        return folder;
      },
      close: (folder) => {
        open.delete(folder.absolute);
        closed.push(folder.absolute);
        real.close(folder);
      },
    };
    const root = realpathSync(base.path);
    const reader = new WorkspaceReader(root, access);
    await reader.list('kept');
    for (const name of names) {
      await reader.list(name);
      // Used again after every other folder: it is never the one used longest ago.
      await reader.list('kept');
      expect(open.size).toBeLessThanOrEqual(64);
    }
    // The 64 open are the root (the parent of each), 'kept' and the last 62: the first 8 were closed, oldest first.
    expect(closed).toEqual(names.slice(0, 70 - 62).map((name) => join(root, name)));
    reader.close();
    expect(open.size).toBe(0);
  });
});
