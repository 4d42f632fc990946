import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

/**
 * Simulates a data folder on another file system (rename answers EXDEV, as it does across
 * mounts) and a removal that fails part way (EACCES, as a read-only subfolder gives a non-root
 * user). Only the workspace's own /proc/self/fd paths are affected.
 */
const state = vi.hoisted(() => ({ exdev: false, unlinks: 0, failAt: -1 }));
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
      if (state.unlinks === state.failAt) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    }
    return actual.unlinkSync(path);
  };
  return { ...actual, default: { ...actual, renameSync, unlinkSync }, renameSync, unlinkSync };
});

const { Trash } = await import('../../src/main/tools/trash');
const { WorkspaceFiles } = await import('../../src/main/workspace/workspace-files');

describe('review: trash across file systems', () => {
  it('F10 a removal that fails part way after the copy loses the files already removed (the trash copy is deleted)', async () => {
    const base = mkdtempSync(join(tmpdir(), 'review-exdev-'));
    const ws = join(base, 'ws');
    const data = join(base, 'data');
    mkdirSync(join(ws, 'project'), { recursive: true });
    mkdirSync(data);
    const names = ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt', 'f.txt'];
    for (const name of names) writeFileSync(join(ws, 'project', name), `${name} content\n`);
    const trash = new Trash(join(data, 'trash'));
    state.exdev = true;
    state.failAt = 4;
    let error: unknown = null;
    try {
      await trash.put(new WorkspaceFiles(ws, { protectedRoots: [data] }), 'project', { id: 'e1', workspacePath: ws, now: 1 });
    } catch (caught) {
      error = caught;
    }
    state.exdev = false;
    const left = readdirSync(join(ws, 'project'));
    const inTrash = existsSync(join(data, 'trash', 'e1')) ? readdirSync(join(data, 'trash', 'e1', 'item')) : [];
    const lost = names.filter((name) => !left.includes(name) && !inTrash.includes(name));
    expect({ error: (error as Error | null)?.message ?? null, left, inTrash, lost }).toEqual({
      error: expect.any(String),
      left: expect.any(Array),
      inTrash: expect.any(Array),
      lost: [],
    });
  });
});
