import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkspaceFiles } from '../../../src/main/workspace/workspace-files';
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
});
