import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { temporaryFolder } from '../../helpers';
import { needs, posixFiles, procFs } from '../../platform';

/**
 * Simulates a data folder on another file system (a rename through the workspace's open folders
 * answers EXDEV, as it does across mounts) and a removal that fails part way (EACCES, as a
 * read-only subfolder gives a user who is not root). Only /proc/self/fd paths are affected.
 */
const state = vi.hoisted(() => ({ exdev: false, unlinks: 0, failAt: -1, onFirstUnlink: null as (() => void) | null }));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const renameSync: typeof actual.renameSync = (from, to) => {
    if (state.exdev && String(from).startsWith('/proc/self/fd/'))
      throw Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' });
    return actual.renameSync(from, to);
  };
  const unlinkSync: typeof actual.unlinkSync = (path) => {
    if (state.exdev && String(path).startsWith('/proc/self/fd/')) {
      state.unlinks += 1;
      if (state.unlinks === 1) state.onFirstUnlink?.();
      if (state.unlinks === state.failAt) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    }
    return actual.unlinkSync(path);
  };
  return { ...actual, default: { ...actual, renameSync, unlinkSync }, renameSync, unlinkSync };
});

const { Trash } = await import('../../../src/main/tools/trash');
const { WorkspaceFiles } = await import('../../../src/main/workspace/workspace-files');

const folders: Array<{ remove: () => void }> = [];
afterEach(() => {
  Object.assign(state, { exdev: false, unlinks: 0, failAt: -1, onFirstUnlink: null });
  for (const folder of folders.splice(0)) folder.remove();
});

const names = ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt', 'f.txt'];

function fresh(): { ws: string; data: string } {
  const base = temporaryFolder('workbench-trash-exdev-');
  folders.push(base);
  const ws = join(base.path, 'ws');
  const data = join(base.path, 'data');
  mkdirSync(join(ws, 'project'), { recursive: true });
  mkdirSync(data);
  for (const name of names) writeFileSync(join(ws, 'project', name), `${name} content\n`);
  return { ws, data };
}

async function deleteProject(ws: string, data: string): Promise<{ error: string | null; left: string[]; inTrash: string[] }> {
  const trash = new Trash(join(data, 'trash'), [data]);
  let error: string | null = null;
  try {
    await trash.put(new WorkspaceFiles(ws, { protectedRoots: [data] }), 'project', { id: 'e1', workspacePath: ws, now: 1 });
  } catch (caught) {
    error = (caught as Error).message;
  }
  state.exdev = false;
  const left = existsSync(join(ws, 'project')) ? readdirSync(join(ws, 'project')).sort() : [];
  const item = join(data, 'trash', 'e1', 'item');
  const inTrash = existsSync(item) ? readdirSync(item).sort() : [];
  return { error, left, inTrash };
}

// The other file system is simulated on the paths of the folder walk through /proc/self/fd.
describe('deleting to a trash on another file system', needs(procFs), () => {
  it('moves a folder whole by copying it and removing the original', async () => {
    const { ws, data } = fresh();
    state.exdev = true;
    const { error, left, inTrash } = await deleteProject(ws, data);
    expect({ error, left, inTrash, gone: existsSync(join(ws, 'project')) }).toEqual({ error: null, left: [], inTrash: names, gone: false });
  });

  it('copies without setuid, setgid or sticky bits', needs(posixFiles), async () => {
    const { ws, data } = fresh();
    chmodSync(join(ws, 'project', 'a.txt'), 0o6755);
    chmodSync(join(ws, 'project'), 0o3775);
    state.exdev = true;
    const { error } = await deleteProject(ws, data);
    expect(error).toBeNull();
    const item = join(data, 'trash', 'e1', 'item');
    expect((statSync(join(item, 'a.txt')).mode & 0o7000).toString(8)).toBe('0');
    expect((statSync(item).mode & 0o7000).toString(8)).toBe('0');
  });

  it('keeps the trash entry and says the delete was partial when the removal stops part way', async () => {
    const { ws, data } = fresh();
    state.exdev = true;
    state.failAt = 4;
    const { error, left, inTrash } = await deleteProject(ws, data);
    expect(error).toMatch(/project was only partly deleted: it was copied whole to the trash \(entry e1\).*EACCES/);
    expect(inTrash).toEqual(names);
    expect(left.length).toBeGreaterThan(0);
    for (const name of names) expect(readFileSync(join(data, 'trash', 'e1', 'item', name), 'utf8')).toBe(`${name} content\n`);
    const trash = new Trash(join(data, 'trash'), [data]);
    expect((await trash.list()).map((entry) => ('error' in entry ? entry.error.message : entry.relativePath))).toEqual(['project']);
  });

  it('removes only what was copied: a file made in the folder meanwhile stays', async () => {
    const { ws, data } = fresh();
    state.exdev = true;
    state.onFirstUnlink = () => writeFileSync(join(ws, 'project', 'new.txt'), 'made after the copy\n');
    const { error, left, inTrash } = await deleteProject(ws, data);
    expect(error).toMatch(/only partly deleted.*new\.txt changed or appeared meanwhile/);
    expect(left).toEqual(['new.txt']);
    expect(inTrash).toEqual(names);
    expect(readFileSync(join(ws, 'project', 'new.txt'), 'utf8')).toBe('made after the copy\n');
  });
});
