import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../src/shared/domain';
import type { JournalEntry, RuntimeEvent } from '../../../src/shared/events';
import type { FilePreview } from '../../../src/shared/file-history';
import type { GitCommit, GitView } from '../../../src/shared/git';
import { textTurn } from '../../scripted-model-server';
import { toolCall } from '../agent/harness';
import { answer, useScriptedCore, type ScriptedCore } from '../scripted-core';
import { git, initRepository, write } from './git-fixtures';

/** The workspace is a repository whose first commit holds a.txt and b.txt; the app's data folder is ignored. */
function prepare(folder: string): void {
  initRepository(folder, { '.gitignore': 'data/\n', 'a.txt': 'a\n', 'b.txt': 'b\n' });
}

describe('commits from Changes', () => {
  let scripted: ScriptedCore;
  useScriptedCore(
    { builtinTools: true, dataDir: (folder) => join(folder, 'data'), session: 'workspace', prepare },
    (started) => (scripted = started),
  );
  const events = async (): Promise<RuntimeEvent[]> =>
    (await answer<{ entries: JournalEntry[] }>(scripted.transport, 'session:open', { sessionId: scripted.sessionId })).entries.map(
      (entry) => entry.event,
    );

  it("shows the branch, drafts a message from the agent's diff, commits only the agent's files and records it", async () => {
    const folder = scripted.folder.path;
    const sessionId = scripted.sessionId;
    await answer<Session>(scripted.transport, 'session:setAutonomy', { sessionId, autonomy: 'L3' });
    const firstCommit = git(folder, 'rev-parse', 'HEAD').trim();
    scripted.server.enqueue(
      { steps: [toolCall('write_file', { path: 'a.txt', content: 'a by the agent\n' })] },
      { steps: [toolCall('write_file', { path: 'new.txt', content: 'made by the agent\n' })] },
      textTurn('Done.'),
    );
    await answer(scripted.transport, 'run:send', { sessionId, text: 'Change a and add new' });
    await scripted.core.runtime?.whenIdle(sessionId);
    const offered = (scripted.server.requests.at(0)?.body['tools'] as Array<{ function: { name: string } }>).map(
      (tool) => tool.function.name,
    );
    expect(offered).toEqual(
      expect.arrayContaining(['git_status', 'git_diff', 'git_log', 'git_show', 'git_commit', 'git_branch', 'git_switch']),
    );
    // The person's own work: an unstaged edit and a staged new file.
    write(folder, { 'b.txt': 'b by the person\n', 'mine.txt': 'staged by the person\n' });
    git(folder, 'add', 'mine.txt');

    expect(await answer<GitView>(scripted.transport, 'git:view', { sessionId })).toMatchObject({
      kind: 'repository',
      branch: 'main',
      commit: firstCommit,
      changed: 4,
      staged: 1,
      untracked: 1,
    });

    scripted.server.reset();
    scripted.server.enqueue(textTurn('```\nUpdate a.txt and add new.txt\n\nThe agent wrote both.\n```'));
    const draft = await answer<{ message: string; paths: string[]; changedSince: string[] }>(scripted.transport, 'git:draft', {
      sessionId,
    });
    expect(draft).toEqual({
      message: 'Update a.txt and add new.txt\n\nThe agent wrote both.',
      paths: ['a.txt', 'new.txt'],
      changedSince: [],
    });
    const asked = JSON.stringify(scripted.server.requests.at(-1)?.body['messages']);
    expect(asked).toContain('+a by the agent');
    expect(asked).toContain('new.txt (new file)');
    expect(asked).not.toContain('b by the person');

    const commit = await answer<GitCommit>(scripted.transport, 'git:commit', { sessionId, message: draft.message });
    expect(commit).toMatchObject({ branch: 'main', subject: 'Update a.txt and add new.txt', paths: ['a.txt', 'new.txt'] });
    expect(git(folder, 'show', '--name-only', '--format=%s', 'HEAD').trim().split('\n')).toEqual([
      'Update a.txt and add new.txt',
      '',
      'a.txt',
      'new.txt',
    ]);
    expect(git(folder, 'status', '--porcelain').trimEnd().split('\n')).toEqual([' M b.txt', 'A  mine.txt']);

    const journal = await events();
    expect(journal.filter((event) => event.type === 'git_committed')).toEqual([{ type: 'git_committed', turnId: null, commit }]);
    // Each checkpoint recorded the commit checked out when it was saved.
    const heads = journal.flatMap((event) => (event.type === 'checkpoint_saved' ? [event.head] : []));
    expect(heads.length).toBeGreaterThan(2);
    expect(new Set(heads)).toEqual(new Set([firstCommit]));

    // A restore to the first checkpoint says HEAD moved since, brings back the files, and leaves HEAD and .git alone.
    const first = journal.find((event) => event.type === 'checkpoint_saved');
    if (first?.type !== 'checkpoint_saved') throw new Error('no checkpoint');
    const later = journal.findLast((event) => event.type === 'checkpoint_saved');
    if (later?.type !== 'checkpoint_saved') throw new Error('no checkpoint');
    const preview = await answer<FilePreview>(scripted.transport, 'checkpoint:preview', { sessionId, checkpointId: later.checkpointId });
    expect(preview.headMoved).toEqual({ then: firstCommit, now: commit.commit });
    const headFile = readFileSync(join(folder, '.git', 'refs', 'heads', 'main'), 'utf8');
    await answer(scripted.transport, 'checkpoint:restore', { sessionId, checkpointId: first.checkpointId, mode: 'files' });
    expect(readFileSync(join(folder, '.git', 'refs', 'heads', 'main'), 'utf8')).toBe(headFile);
    expect(git(folder, 'rev-parse', 'HEAD').trim()).toBe(commit.commit);
    expect(git(folder, 'diff', '--cached', '--name-only').trim()).toBe('mine.txt');
  });

  it('refuses to commit when the agent changed nothing in a turn, and an empty message', async () => {
    const sessionId = scripted.sessionId;
    await expect(answer(scripted.transport, 'git:commit', { sessionId, message: '  ' })).rejects.toThrow(
      'The commit message is empty: write one.',
    );
    const head = git(scripted.folder.path, 'rev-parse', 'HEAD');
    await expect(answer(scripted.transport, 'git:commit', { sessionId, turnId: 'no-such-turn', message: 'x' })).rejects.toThrow(
      /changed no files|no changes/i,
    );
    expect(git(scripted.folder.path, 'rev-parse', 'HEAD')).toBe(head);
  });
});
