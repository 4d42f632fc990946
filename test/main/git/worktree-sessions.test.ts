import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../src/shared/domain';
import type { ChangeSet } from '../../../src/shared/changes';
import type { BringBackPlan, BringBackResult, Worktree } from '../../../src/shared/git';
import { textTurn } from '../../scripted-model-server';
import { toolCall } from '../agent/harness';
import { answer, useScriptedCore, type ScriptedCore } from '../scripted-core';
import { git, initRepository } from './git-fixtures';

function prepare(folder: string): void {
  initRepository(folder, { '.gitignore': 'data/\ndata-worktrees/\n', 'shared.txt': 'one\ntwo\nthree\n' });
}

describe('sessions in worktrees of their own', () => {
  let scripted: ScriptedCore;
  useScriptedCore({ builtinTools: true, dataDir: (folder) => join(folder, 'data'), prepare }, (started) => (scripted = started));

  const worktreeSession = async (title: string): Promise<Session> => {
    const session = await answer<Session>(scripted.transport, 'git:worktreeSession', { workspacePath: scripted.folder.path, title });
    await answer<Session>(scripted.transport, 'session:setAutonomy', { sessionId: session.id, autonomy: 'L3' });
    return session;
  };
  const work = async (sessionId: string, content: string): Promise<void> => {
    scripted.server.enqueue({ steps: [toolCall('write_file', { path: 'shared.txt', content })] }, textTurn('Done.'));
    await answer(scripted.transport, 'run:send', { sessionId, text: 'Change shared.txt' });
    await scripted.core.runtime?.whenIdle(sessionId);
  };

  it('keeps two sessions on one repository apart, and brings each back: the second with its conflict shown and nothing lost', async () => {
    const main = scripted.folder.path;
    const first = await worktreeSession('First task');
    const second = await worktreeSession('Second task');
    expect(first.workspacePath).not.toBe(main);
    expect(first.workspacePath).not.toBe(second.workspacePath);
    await work(first.id, 'one\nTWO by the first\nthree\n');
    await work(second.id, 'one\ntwo by the second\nthree\n');
    // Each wrote in its own checkout: the person's folder is as it was, and Changes lists each session's own file.
    expect(readFileSync(join(main, 'shared.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    const changes = await answer<ChangeSet>(scripted.transport, 'changes:list', { sessionId: first.id });
    expect(changes.files.map((file) => file.path)).toEqual(['shared.txt']);
    const state = await answer<{ worktree: Worktree; unmerged: boolean }>(scripted.transport, 'git:worktree', { sessionId: first.id });
    expect(state).toMatchObject({ worktree: { branch: expect.stringMatching(/^workbench\/first-task-[0-9a-f]{4}$/) }, unmerged: true });
    expect(git(state.worktree.root, 'branch', '--show-current').trim()).toBe(state.worktree.branch);

    const firstBack = await answer<BringBackResult>(scripted.transport, 'git:bringBack', { sessionId: first.id, withMarkers: false });
    expect(firstBack.written).toEqual(['shared.txt']);
    expect(readFileSync(join(main, 'shared.txt'), 'utf8')).toBe('one\nTWO by the first\nthree\n');
    expect(await answer(scripted.transport, 'git:worktree', { sessionId: first.id })).toMatchObject({ unmerged: false });

    const plan = await answer<BringBackPlan>(scripted.transport, 'git:bringBackPlan', { sessionId: second.id });
    expect(plan.files).toEqual([{ path: 'shared.txt', change: 'modify', outcome: 'conflict', reason: '1 place both changed' }]);
    const left = await answer<BringBackResult>(scripted.transport, 'git:bringBack', { sessionId: second.id, withMarkers: false });
    expect(left.skipped).toEqual(['shared.txt']);
    expect(readFileSync(join(main, 'shared.txt'), 'utf8')).toBe('one\nTWO by the first\nthree\n');
    const marked = await answer<BringBackResult>(scripted.transport, 'git:bringBack', { sessionId: second.id, withMarkers: true });
    expect(marked.withMarkers).toEqual(['shared.txt']);
    const text = readFileSync(join(main, 'shared.txt'), 'utf8');
    expect(text).toContain('TWO by the first');
    expect(text).toContain('two by the second');

    // A new session with no folder named opens in the person's folder, not in the last session's worktree.
    const plain = await answer<Session>(scripted.transport, 'session:create', {});
    expect(plain.workspacePath).toBe(realpathSync(main));

    // Deleting the first with its worktree removes the folder and the branch, and the journal says so.
    await answer(scripted.transport, 'git:removeWorktree', { sessionId: first.id, deleteBranch: true });
    expect(existsSync(state.worktree.root)).toBe(false);
    expect(git(main, 'branch', '--list', state.worktree.branch).trim()).toBe('');
    expect(await answer(scripted.transport, 'git:worktree', { sessionId: first.id })).toMatchObject({ removed: true, unmerged: false });
    await expect(answer(scripted.transport, 'git:bringBack', { sessionId: first.id, withMarkers: false })).rejects.toThrow(/was removed/);
  });

  it('refuses a worktree of a folder that is no repository, changing nothing', async () => {
    const plain = mkdtempSync(join(tmpdir(), 'workbench-plain-'));
    try {
      const before = await answer<Session[]>(scripted.transport, 'session:list', {});
      await expect(answer(scripted.transport, 'git:worktreeSession', { workspacePath: plain })).rejects.toThrow(/not in a git repository/);
      expect(await answer<Session[]>(scripted.transport, 'session:list', {})).toHaveLength(before.length);
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });
});
