import { existsSync, mkdirSync, readFileSync, rmdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Trash } from '../../../src/main/tools/trash';
import { WorkspaceFiles } from '../../../src/main/workspace/workspace-files';
import { temporaryFolder } from '../../helpers';
import { needs, symlinks } from '../../platform';

const folders: Array<{ remove: () => void }> = [];
afterEach(() => {
  for (const folder of folders.splice(0)) folder.remove();
});

function fresh(): { ws: string; data: string } {
  const base = temporaryFolder('workbench-trash-');
  folders.push(base);
  const ws = join(base.path, 'ws');
  const data = join(base.path, 'data');
  mkdirSync(ws);
  mkdirSync(data);
  return { ws, data };
}

describe('trash restore', () => {
  it('refuses to restore into .git through a folder that became a link to it', needs(symlinks), async () => {
    const { ws, data } = fresh();
    mkdirSync(join(ws, 'hooks'));
    mkdirSync(join(ws, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(ws, 'hooks', 'pre-commit'), '#!/bin/sh\necho planted\n');
    const files = new WorkspaceFiles(ws, { protectedRoots: [data] });
    const trash = new Trash(join(data, 'trash'), [data]);
    await trash.put(files, 'hooks/pre-commit', { id: 't1', workspacePath: ws, now: 1 });
    rmdirSync(join(ws, 'hooks'));
    symlinkSync('.git/hooks', join(ws, 'hooks'));
    await expect(trash.restore('t1')).rejects.toThrow(/\.git folder/);
    expect(existsSync(join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect((await trash.list()).map((entry) => entry.id)).toEqual(['t1']);
  });

  it("refuses to restore into the app's data folder inside the workspace, reached through a link", needs(symlinks), async () => {
    const { ws } = fresh();
    const data = join(ws, 'appdata');
    mkdirSync(data);
    mkdirSync(join(ws, 'notes'));
    writeFileSync(join(ws, 'notes', 'settings.json'), '{"planted":true}\n');
    const trash = new Trash(join(data, 'trash'), [data]);
    await trash.put(new WorkspaceFiles(ws, { protectedRoots: [data] }), 'notes/settings.json', { id: 't2', workspacePath: ws, now: 1 });
    rmdirSync(join(ws, 'notes'));
    symlinkSync('appdata', join(ws, 'notes'));
    await expect(trash.restore('t2')).rejects.toThrow(/app's own data folder/);
    expect(existsSync(join(data, 'settings.json'))).toBe(false);
  });

  it('still restores to a plain place', async () => {
    const { ws, data } = fresh();
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src', 'a.txt'), 'a\n');
    const trash = new Trash(join(data, 'trash'), [data]);
    await trash.put(new WorkspaceFiles(ws, { protectedRoots: [data] }), 'src/a.txt', { id: 't3', workspacePath: ws, now: 1 });
    await trash.restore('t3');
    expect(readFileSync(join(ws, 'src', 'a.txt'), 'utf8')).toBe('a\n');
    expect(await trash.list()).toEqual([]);
  });
});
