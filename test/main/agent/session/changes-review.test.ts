import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChangeSet, FileDiff } from '../../../../src/shared/changes';
import type { FilesRestored } from '../../../../src/shared/file-history';
import { textTurn } from '../../../scripted-model-server';
import { toolCall } from '../harness';
import { bash, gnuSed, needs } from '../../../platform';
import { useFilesCore } from './files-core';

/** Twenty numbered lines, so changes at the top and the bottom make two hunks. */
const original = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`).join('\n') + '\n';
const withTop = original.replace('line 2\n', 'line 2 by the agent\n');
const withBoth = withTop.replace('line 19\n', 'line 19 by the agent\n');

describe('the changes the agent made', () => {
  const files = useFilesCore();
  const call = <T>(channel: string, input: unknown): Promise<T> => files.call<T>(channel, input);

  async function setUp(name: string) {
    const workspace = join(files.root, 'work', name);
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'lines.txt'), original);
    writeFileSync(join(workspace, 'old.txt'), 'to be deleted\n');
    writeFileSync(join(workspace, 'untouched.txt'), 'never touched\n');
    const session = await call<{ id: string }>('session:create', { workspacePath: workspace });
    await call('session:setAutonomy', { sessionId: session.id, autonomy: 'L3' });
    const file = (path: string): string | null => (existsSync(join(workspace, path)) ? readFileSync(join(workspace, path), 'utf8') : null);
    return { sessionId: session.id, workspace, file };
  }

  async function turn(sessionId: string, text: string, ...steps: Array<ReturnType<typeof toolCall>>): Promise<void> {
    files.server.enqueue(...steps.map((step) => ({ steps: [step] })), textTurn('Done.'));
    await call('run:send', { sessionId, text });
    await files.core.runtime?.whenIdle(sessionId);
  }

  /** Turn one edits the top of lines.txt, makes a file and a folder, deletes old.txt; turn two edits the bottom. */
  async function twoTurns(sessionId: string): Promise<void> {
    await turn(
      sessionId,
      'First',
      toolCall('edit_file', { path: 'lines.txt', oldText: 'line 2\n', newText: 'line 2 by the agent\n' }, 'e1'),
      toolCall('run_command', { command: 'mkdir -p out && printf "a\\nb\\n" > out/made.txt && rm old.txt' }, 'r1'),
    );
    await turn(
      sessionId,
      'Second',
      toolCall('edit_file', { path: 'lines.txt', oldText: 'line 19\n', newText: 'line 19 by the agent\n' }, 'e2'),
    );
  }

  it('lists what a sub-agent that may write changed with the turn that handed it the work, and restores it', async () => {
    const { sessionId, file } = await setUp('sub-agent');
    files.server.enqueue(
      { steps: [toolCall('delegate', { goal: 'Edit the top', tools: 'read_write' }, 'd1')] },
      { steps: [toolCall('edit_file', { path: 'lines.txt', oldText: 'line 2\n', newText: 'line 2 by the agent\n' }, 'e1')] },
      textTurn('Edited the top.'),
      textTurn('The sub-agent edited the top.'),
    );
    await call('run:send', { sessionId, text: 'Have it edited' });
    await files.core.runtime?.whenIdle(sessionId);
    expect(file('lines.txt')).toBe(withTop);
    const changes = await call<ChangeSet>('changes:list', { sessionId });
    expect(changes.files.map(({ path, change, changedSince }) => ({ path, change, changedSince }))).toEqual([
      { path: 'lines.txt', change: 'modify', changedSince: false },
    ]);
    // Named for the sub-agent that made it, in the session's changes and its turn's.
    const [child] = await call<Array<{ id: string; title: string }>>('session:subAgents', { sessionId });
    expect(changes.files[0]?.by).toEqual([{ sessionId: child?.id, title: 'Sub-agent: Edit the top' }]);
    const turnId = changes.turns[0]?.turnId ?? '';
    expect((await call<ChangeSet>('changes:list', { sessionId, turnId })).files[0]?.by).toEqual(changes.files[0]?.by);
    // Reverted from the session that handed the work on, like any change of its own.
    await call<FilesRestored>('changes:revert', { sessionId, path: 'lines.txt' });
    expect(file('lines.txt')).toBe(original);
  });

  it('names the sub-agent that did the work, not the one that handed it on, and none for the session’s own change', async () => {
    const { sessionId } = await setUp('sub-sub-agent');
    files.server.enqueue(
      { steps: [toolCall('write_file', { path: 'own.txt', content: 'the session’s own\n' }, 'w0')] },
      { steps: [toolCall('delegate', { goal: 'Have the top edited', tools: 'read_write' }, 'd1')] },
      { steps: [toolCall('delegate', { goal: 'Edit the top', tools: 'read_write' }, 'd2')] },
      { steps: [toolCall('edit_file', { path: 'lines.txt', oldText: 'line 2\n', newText: 'line 2 by the agent\n' }, 'e1')] },
      textTurn('Edited the top.'),
      { steps: [toolCall('write_file', { path: 'notes/by-the-middle.txt', content: 'mine\n' }, 'w1')] },
      textTurn('Had the top edited.'),
      textTurn('Both ends edited.'),
    );
    await call('run:send', { sessionId, text: 'Edit both ends' });
    await files.core.runtime?.whenIdle(sessionId);
    const [middle] = await call<Array<{ id: string }>>('session:subAgents', { sessionId });
    const [deepest] = await call<Array<{ id: string }>>('session:subAgents', { sessionId: middle?.id });
    const changes = await call<ChangeSet>('changes:list', { sessionId });
    expect(
      Object.fromEntries(changes.files.filter((f) => f.kind === 'file').map((f) => [f.path, f.by?.map((by) => by.sessionId) ?? []])),
    ).toEqual({
      'lines.txt': [deepest?.id],
      'notes/by-the-middle.txt': [middle?.id],
      'own.txt': [],
    });
  });

  it('lists every path the agent created, changed or deleted in the session, with lines added and removed', needs(bash), async () => {
    const { sessionId } = await setUp('list');
    await twoTurns(sessionId);
    const changes = await call<ChangeSet>('changes:list', { sessionId });
    expect(changes.saved).toBe(true);
    expect(
      changes.files.map(({ path, kind, change, added, removed, changedSince }) => ({ path, kind, change, added, removed, changedSince })),
    ).toEqual([
      { path: 'lines.txt', kind: 'file', change: 'modify', added: 2, removed: 2, changedSince: false },
      { path: 'old.txt', kind: 'file', change: 'delete', added: 0, removed: 1, changedSince: false },
      { path: 'out', kind: 'folder', change: 'create', added: null, removed: null, changedSince: false },
      { path: 'out/made.txt', kind: 'file', change: 'create', added: 2, removed: 0, changedSince: false },
    ]);
    expect(changes.turns.map((item) => item.files)).toEqual([4, 1]);
  });

  it('shows one turn’s changes only, from the files as that turn found them', needs(bash), async () => {
    const { sessionId } = await setUp('turn');
    await twoTurns(sessionId);
    const second = (await call<ChangeSet>('changes:list', { sessionId })).turns[1]?.turnId ?? '';
    const changes = await call<ChangeSet>('changes:list', { sessionId, turnId: second });
    expect(changes.files.map((file) => [file.path, file.added, file.removed])).toEqual([['lines.txt', 1, 1]]);
    const diff = await call<FileDiff>('changes:diff', { sessionId, turnId: second, path: 'lines.txt' });
    expect(diff.hunks).toHaveLength(1);
    expect(diff.hunks[0]?.lines.filter((line) => line.startsWith('+') || line.startsWith('-'))).toEqual([
      '-line 19',
      '+line 19 by the agent',
    ]);
  });

  it('reverts one hunk and keeps the other, and the revert can be undone', needs(bash), async () => {
    const { sessionId, file } = await setUp('hunk');
    await twoTurns(sessionId);
    const diff = await call<FileDiff>('changes:diff', { sessionId, path: 'lines.txt' });
    expect(diff.hunks.map((hunk) => hunk.header)).toEqual(['@@ -1,5 +1,5 @@', '@@ -16,5 +16,5 @@']);
    const reverted = await call<FilesRestored>('changes:revert', { sessionId, path: 'lines.txt', hunks: [1] });
    expect(reverted.written).toEqual(['lines.txt']);
    expect(file('lines.txt')).toBe(withTop);
    // The view now shows only the change that is left.
    const after = await call<ChangeSet>('changes:list', { sessionId });
    expect(after.files.find((item) => item.path === 'lines.txt')).toMatchObject({ added: 1, removed: 1 });

    await call<FilesRestored>('checkpoint:undoRestore', { sessionId, restoreId: reverted.restoreId });
    expect(file('lines.txt')).toBe(withBoth);
  });

  it('after a revert, a turn’s changes say what was taken back instead of calling it an edit of the person’s', needs(bash), async () => {
    const { sessionId, workspace, file } = await setUp('truth');
    await turn(
      sessionId,
      'Both ends',
      toolCall('edit_file', { path: 'lines.txt', oldText: 'line 2\n', newText: 'line 2 by the agent\n' }, 'e1'),
      toolCall('edit_file', { path: 'lines.txt', oldText: 'line 19\n', newText: 'line 19 by the agent\n' }, 'e2'),
      toolCall('run_command', { command: 'printf "a\\n" > made.txt' }, 'r1'),
    );
    const turnId = (await call<ChangeSet>('changes:list', { sessionId })).turns[0]?.turnId ?? '';
    const lines = async () =>
      (await call<ChangeSet>('changes:list', { sessionId, turnId })).files.find((item) => item.path === 'lines.txt');
    expect(await lines()).toMatchObject({ changedSince: false, reverted: 'no' });

    // One part taken back: the turn still shows what it did, the part marked as taken back, not as an edit since.
    await call<FilesRestored>('changes:revert', { sessionId, turnId, path: 'lines.txt', hunks: [1] });
    expect(await lines()).toMatchObject({ changedSince: false, reverted: 'part', added: 2, removed: 2 });
    const diff = await call<FileDiff>('changes:diff', { sessionId, turnId, path: 'lines.txt' });
    expect(diff.reverted).toEqual([1]);
    expect(diff.file).toMatchObject({ changedSince: false, reverted: 'part' });

    // Reverting the file then takes back what is left, not refusing for the part already gone.
    await call<FilesRestored>('changes:revert', { sessionId, turnId, path: 'lines.txt' });
    expect(file('lines.txt')).toBe(original);
    expect(await lines()).toMatchObject({ changedSince: false, reverted: 'whole' });
    expect((await call<FileDiff>('changes:diff', { sessionId, turnId, path: 'lines.txt' })).reverted).toEqual([0, 1]);

    // A made file deleted again is taken back whole.
    await call<FilesRestored>('changes:revert', { sessionId, turnId, path: 'made.txt' });
    const made = (await call<ChangeSet>('changes:list', { sessionId, turnId })).files.find((item) => item.path === 'made.txt');
    expect(made).toMatchObject({ changedSince: false, reverted: 'whole' });

    // An edit of the person's on top is theirs: changed since, with nothing claimed as taken back.
    writeFileSync(join(workspace, 'lines.txt'), withBoth.replace('line 10\n', 'line 10 by me\n'));
    expect(await lines()).toMatchObject({ changedSince: true, reverted: 'no' });
  });

  it(
    'reverts a whole file: a made file is deleted, a deleted one comes back, an empty folder the agent made goes',
    needs(bash),
    async () => {
      const { sessionId, file, workspace } = await setUp('whole');
      await twoTurns(sessionId);
      expect((await call<FilesRestored>('changes:revert', { sessionId, path: 'out/made.txt' })).deleted).toEqual(['out/made.txt']);
      expect((await call<FilesRestored>('changes:revert', { sessionId, path: 'out' })).deleted).toEqual(['out/']);
      expect(existsSync(join(workspace, 'out'))).toBe(false);
      expect((await call<FilesRestored>('changes:revert', { sessionId, path: 'old.txt' })).written).toEqual(['old.txt']);
      expect(file('old.txt')).toBe('to be deleted\n');
      expect((await call<ChangeSet>('changes:list', { sessionId })).files.map((item) => item.path)).toEqual(['lines.txt']);
    },
  );

  it('takes one turn’s change out of a file a later turn changed too, leaving the later change', needs(bash), async () => {
    const { sessionId, file } = await setUp('later');
    await twoTurns(sessionId);
    const first = (await call<ChangeSet>('changes:list', { sessionId })).turns[0]?.turnId ?? '';
    await call<FilesRestored>('changes:revert', { sessionId, turnId: first, path: 'lines.txt' });
    expect(file('lines.txt')).toBe(original.replace('line 19\n', 'line 19 by the agent\n'));
  });

  it(
    'marks a file the person changed since, reverts around their edit, and refuses a hunk whose lines they changed, changing nothing',
    needs(bash),
    async () => {
      const { sessionId, workspace, file } = await setUp('since');
      await twoTurns(sessionId);
      const edited = withBoth.replace('line 10\n', 'line 10 by me\n');
      writeFileSync(join(workspace, 'lines.txt'), edited);
      const listed = await call<ChangeSet>('changes:list', { sessionId });
      expect(listed.files.find((item) => item.path === 'lines.txt')?.changedSince).toBe(true);

      await call('changes:revert', { sessionId, path: 'lines.txt', hunks: [0] });
      expect(file('lines.txt')).toBe(edited.replace('line 2 by the agent\n', 'line 2\n'));

      const mine = file('lines.txt')?.replace('line 19 by the agent\n', 'line 19 by me\n') ?? '';
      writeFileSync(join(workspace, 'lines.txt'), mine);
      await expect(call('changes:revert', { sessionId, path: 'lines.txt', hunks: [1] })).rejects.toMatchObject({ code: 'invalid_state' });
      expect(file('lines.txt')).toBe(mine);
      await expect(call('changes:revert', { sessionId, path: 'lines.txt', hunks: [7] })).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(call('changes:revert', { sessionId, path: 'untouched.txt' })).rejects.toMatchObject({ code: 'not_found' });
      expect(file('untouched.txt')).toBe('never touched\n');
    },
  );

  it(
    'refuses a part revert of a file grown past what is compared since, and of one that is not UTF-8, writing nothing',
    needs(bash, gnuSed),
    async () => {
      const { sessionId, workspace, file } = await setUp('unsafe');
      const big = `${'x'.repeat(99)}\n`.repeat(9000);
      writeFileSync(join(workspace, 'big.txt'), `top\n${big}bottom\n`);
      writeFileSync(join(workspace, 'latin1.txt'), Buffer.from('caf\xe9\nfirst\nsecond\n', 'latin1'));
      await turn(
        sessionId,
        'Edit both',
        toolCall(
          'run_command',
          { command: "sed -i 's/^top$/TOP/; s/^bottom$/BOTTOM/' big.txt && sed -i 's/first/FIRST/' latin1.txt" },
          'r1',
        ),
      );
      // The person appends half a megabyte: a part revert would have to write back a text it cannot read whole.
      writeFileSync(join(workspace, 'big.txt'), `${file('big.txt') ?? ''}${'y'.repeat(500_000)}\n`);
      const grown = file('big.txt');
      await expect(call('changes:revert', { sessionId, path: 'big.txt', hunks: [0] })).rejects.toMatchObject({ code: 'invalid_state' });
      expect(file('big.txt')).toBe(grown);

      const latin1 = await call<FileDiff>('changes:diff', { sessionId, path: 'latin1.txt' });
      expect(latin1.note).toMatch(/Not UTF-8/);
      await expect(call('changes:revert', { sessionId, path: 'latin1.txt', hunks: [0] })).rejects.toMatchObject({ code: 'invalid_state' });
      // As a whole it comes back byte for byte.
      await call('changes:revert', { sessionId, path: 'latin1.txt' });
      expect(readFileSync(join(workspace, 'latin1.txt'))).toEqual(Buffer.from('caf\xe9\nfirst\nsecond\n', 'latin1'));
    },
  );

  it('reverts a part only where the agent left it, never an identical block elsewhere', needs(bash, gnuSed), async () => {
    const { sessionId, workspace, file } = await setUp('twins');
    const block = (value: number) => `\n\n\nfunction f() {\n  a();\n  x = ${value};\n  b();\n}\n\n\n`;
    // Two blocks alike down to the three lines around each: only where a part was left tells them apart.
    writeFileSync(join(workspace, 'twins.js'), `${block(1)}${block(1)}`);
    await turn(sessionId, 'Set both to 2', toolCall('run_command', { command: "sed -i 's/x = 1/x = 2/' twins.js" }, 'r1'));
    expect((await call<FileDiff>('changes:diff', { sessionId, path: 'twins.js' })).hunks).toHaveLength(2);
    // The person sets the second block back by hand; the second part is then no longer there to take out.
    const edited = `${block(2)}${block(1)}`;
    writeFileSync(join(workspace, 'twins.js'), edited);
    await expect(call('changes:revert', { sessionId, path: 'twins.js', hunks: [1] })).rejects.toMatchObject({ code: 'invalid_state' });
    expect(file('twins.js')).toBe(edited);
    await call('changes:revert', { sessionId, path: 'twins.js', hunks: [0] });
    expect(file('twins.js')).toBe(`${block(1)}${block(1)}`);
  });

  it('leaves out a file the person changed between turns: it is theirs, not the agent’s, and cannot be reverted here', async () => {
    const { sessionId, workspace, file } = await setUp('between');
    writeFileSync(join(workspace, 'mine.txt'), 'v1\n');
    await turn(
      sessionId,
      'First',
      toolCall('edit_file', { path: 'lines.txt', oldText: 'line 2\n', newText: 'line 2 by the agent\n' }, 'e1'),
    );
    writeFileSync(join(workspace, 'mine.txt'), 'v2 by me\n');
    await turn(
      sessionId,
      'Second',
      toolCall('edit_file', { path: 'lines.txt', oldText: 'line 19\n', newText: 'line 19 by the agent\n' }, 'e2'),
    );
    const changes = await call<ChangeSet>('changes:list', { sessionId });
    expect(changes.files.map((item) => item.path)).toEqual(['lines.txt']);
    expect(changes.turns.map((item) => item.files)).toEqual([1, 1]);
    await expect(call('changes:revert', { sessionId, path: 'mine.txt' })).rejects.toMatchObject({ code: 'not_found' });
    expect(file('mine.txt')).toBe('v2 by me\n');
  });

  it('says no files were saved in a session where the agent changed none', async () => {
    const { sessionId } = await setUp('none');
    files.server.enqueue(textTurn('Just talking.'));
    await call('run:send', { sessionId, text: 'Hello' });
    await files.core.runtime?.whenIdle(sessionId);
    expect(await call<ChangeSet>('changes:list', { sessionId })).toEqual({ turnId: null, saved: false, files: [], turns: [] });
  });
});
