import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitProgram } from '../../../src/main/git/git-program';
import { Worktrees } from '../../../src/main/git/worktrees';
import { git, makeRepository, write } from './git-fixtures';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function setUp(files: Record<string, string>) {
  const made = makeRepository(files);
  const folder = mkdtempSync(join(tmpdir(), 'workbench-worktrees-'));
  cleanups.push(made.remove, () => rmSync(folder, { recursive: true, force: true }));
  return { main: made.folder, worktrees: new Worktrees(new GitProgram(), folder), folder };
}

describe('session worktrees', () => {
  it('gives a session a branch in a folder of its own, at the commit checked out, without the uncommitted changes', async () => {
    const { main, worktrees, folder } = setUp({ 'src/a.txt': 'a\n' });
    write(main, { 'src/a.txt': 'uncommitted\n' });
    const { worktree, workspacePath } = await worktrees.create(join(main, 'src'), 'session/one');
    expect(worktree).toMatchObject({ mainPath: join(main, 'src'), branch: 'session/one', base: git(main, 'rev-parse', 'HEAD').trim() });
    expect(worktree.root.startsWith(folder)).toBe(true);
    expect(workspacePath).toBe(join(worktree.root, 'src'));
    expect(readFileSync(join(workspacePath, 'a.txt'), 'utf8')).toBe('a\n');
    expect(git(worktree.root, 'branch', '--show-current').trim()).toBe('session/one');
    await expect(worktrees.create(main, 'session/one')).rejects.toThrow(/exists already/);
    await expect(worktrees.create(main, '--force')).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it("runs the repository's checkout hook for a new worktree only where the person trusts the folder", async () => {
    const { main, folder } = setUp({ 'a.txt': 'a\n' });
    const marker = join(folder, 'hook-ran');
    const hook = join(main, '.git', 'hooks', 'post-checkout');
    writeFileSync(hook, `#!/bin/sh\necho "$PWD" >> '${marker}'\n`);
    chmodSync(hook, 0o755);
    let trusted = false;
    const worktrees = new Worktrees(new GitProgram(), folder, [], (path) => path === main && !trusted);
    await worktrees.create(main, 'session/untrusted');
    expect(existsSync(marker)).toBe(false);
    trusted = true;
    await worktrees.create(main, 'session/trusted');
    expect(readFileSync(marker, 'utf8')).toContain('session-trusted');
  });

  it('brings two sessions back that changed the same file: the first applies, the second shows the conflict and loses nothing', async () => {
    const { main, worktrees } = setUp({ 'shared.txt': 'one\ntwo\nthree\n', 'other.txt': 'x\n' });
    const first = (await worktrees.create(main, 'session/first')).worktree;
    const second = (await worktrees.create(main, 'session/second')).worktree;
    write(first.root, { 'shared.txt': 'one\nTWO by the first\nthree\n', 'new.txt': 'made by the first\n' });
    git(first.root, 'commit', '--quiet', '--all', '--message', 'first session work');
    write(second.root, { 'shared.txt': 'one\ntwo by the second\nthree\n', 'other.txt': 'y\n' });
    rmSync(join(second.root, 'other.txt'));
    write(second.root, { 'other.txt': 'y\n' });

    const plan = await worktrees.plan(first);
    expect(plan.files).toEqual([
      { path: 'shared.txt', change: 'modify', outcome: 'apply' },
      { path: 'new.txt', change: 'create', outcome: 'apply' },
    ]);
    const broughtFirst = await worktrees.bringBack(first, false);
    expect(broughtFirst).toMatchObject({ written: ['shared.txt', 'new.txt'], skipped: [], withMarkers: [] });
    expect(readFileSync(join(main, 'shared.txt'), 'utf8')).toBe('one\nTWO by the first\nthree\n');
    expect(await worktrees.unmerged(first, broughtFirst.fingerprint)).toBe(false);

    const secondPlan = await worktrees.plan(second);
    expect(secondPlan.files).toEqual([
      { path: 'other.txt', change: 'modify', outcome: 'apply' },
      { path: 'shared.txt', change: 'modify', outcome: 'conflict', reason: '1 place both changed' },
    ]);
    const skipped = await worktrees.bringBack(second, false);
    expect(skipped).toMatchObject({ written: ['other.txt'], skipped: ['shared.txt'] });
    expect(readFileSync(join(main, 'shared.txt'), 'utf8')).toBe('one\nTWO by the first\nthree\n');
    expect(await worktrees.unmerged(second, null)).toBe(true);

    const marked = await worktrees.bringBack(second, true);
    expect(marked.withMarkers).toEqual(['shared.txt']);
    const text = readFileSync(join(main, 'shared.txt'), 'utf8');
    expect(text).toContain('<<<<<<< your folder\nTWO by the first\n=======\ntwo by the second\n>>>>>>> session/second\n');
    // .git of the main folder is never written by bringing back: HEAD is where it was.
    expect(git(main, 'log', '--format=%s').trim()).toBe('first');
  });

  it('merges changes to different parts of one file, and says a deletion against a change is a conflict', async () => {
    const { main, worktrees } = setUp({ 'list.txt': 'a\nb\nc\nd\ne\nf\n', 'gone.txt': 'keep\n' });
    const { worktree } = await worktrees.create(main, 'session/merge');
    write(worktree.root, { 'list.txt': 'A\nb\nc\nd\ne\nf\n' });
    rmSync(join(worktree.root, 'gone.txt'));
    write(main, { 'list.txt': 'a\nb\nc\nd\ne\nF\n', 'gone.txt': 'changed here\n' });
    const plan = await worktrees.plan(worktree);
    expect(plan.files).toEqual([
      { path: 'gone.txt', change: 'delete', outcome: 'conflict', reason: 'changed in your folder, deleted by the session' },
      { path: 'list.txt', change: 'modify', outcome: 'merge' },
    ]);
    const result = await worktrees.bringBack(worktree, true);
    expect(result).toMatchObject({ merged: ['list.txt'], skipped: ['gone.txt'] });
    expect(readFileSync(join(main, 'list.txt'), 'utf8')).toBe('A\nb\nc\nd\ne\nF\n');
    expect(readFileSync(join(main, 'gone.txt'), 'utf8')).toBe('changed here\n');
  });

  it('leaves binary files, links and files the agent may not write as conflicts, goes on past them, and counts them as not brought back', async () => {
    const { main, worktrees } = setUp({ 'image.bin': 'a\u0000b', 'link-me.txt': 'text\n', 'plain.txt': 'p\n' });
    const { worktree } = await worktrees.create(main, 'session/odd');
    write(worktree.root, { 'image.bin': 'a\u0000session', '.env': 'SECRET=1\n', 'plain.txt': 'p by the session\n' });
    rmSync(join(worktree.root, 'link-me.txt'));
    symlinkSync('/etc/passwd', join(worktree.root, 'link-me.txt'));
    write(main, { 'image.bin': 'a\u0000person' });
    const plan = await worktrees.plan(worktree);
    expect(plan.files.map((file) => [file.path, file.outcome])).toEqual([
      ['image.bin', 'conflict'],
      ['link-me.txt', 'conflict'],
      ['plain.txt', 'apply'],
      ['.env', 'conflict'],
    ]);
    const result = await worktrees.bringBack(worktree, true);
    expect(result).toMatchObject({ written: ['plain.txt'], skipped: ['image.bin', 'link-me.txt', '.env'], withMarkers: [] });
    expect(readFileSync(join(main, 'image.bin'), 'utf8')).toBe('a\u0000person');
    expect(readFileSync(join(main, 'link-me.txt'), 'utf8')).toBe('text\n');
    expect(existsSync(join(main, '.env'))).toBe(false);
    // What was left there is still work not brought back: deleting the worktree would lose it.
    expect(await worktrees.unmerged(worktree, result.fingerprint)).toBe(true);
  });

  it('removes a worktree and its branch when asked', async () => {
    const { main, worktrees } = setUp({ 'a.txt': 'a\n' });
    const { worktree } = await worktrees.create(main, 'session/gone');
    await worktrees.remove(worktree, true);
    expect(existsSync(worktree.root)).toBe(false);
    expect(git(main, 'branch', '--list', 'session/gone').trim()).toBe('');
    expect(git(main, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  });
});
