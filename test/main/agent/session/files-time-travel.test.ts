import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../../../src/shared/events';
import type { FilePreview, FilesRestored } from '../../../../src/shared/file-history';
import type { SessionView } from '../../../../src/shared/session-view';
import { emptySessionView, reduceSessionView } from '../../../../src/shared/session-view';
import { textTurn } from '../../../scripted-model-server';
import { toolCall } from '../harness';
import { bash, needs } from '../../../platform';
import { useFilesCore } from './files-core';

describe('time travel over files', () => {
  const files = useFilesCore();
  const call = <T>(channel: string, input: unknown): Promise<T> => files.call<T>(channel, input);

  async function view(sessionId: string): Promise<SessionView> {
    const opened = await call<{ entries: JournalEntry[] }>('session:open', { sessionId });
    return reduceSessionView(emptySessionView, opened.entries);
  }

  /** A workspace with the person's own repository, an ignored file, and a session at L3 in it. */
  async function setUp(name: string): Promise<{ sessionId: string; workspace: string; file: (path: string) => string | null }> {
    const workspace = join(files.root, 'work', name);
    mkdirSync(join(workspace, '.git'), { recursive: true });
    writeFileSync(join(workspace, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(workspace, '.gitignore'), 'build.log\n');
    writeFileSync(join(workspace, 'build.log'), 'ignored output\n');
    writeFileSync(join(workspace, 'app.ts'), 'v1\n');
    writeFileSync(join(workspace, 'notes.md'), 'my notes\n');
    const session = await call<{ id: string }>('session:create', { workspacePath: workspace });
    await call('session:setAutonomy', { sessionId: session.id, autonomy: 'L3' });
    const file = (path: string): string | null => (existsSync(join(workspace, path)) ? readFileSync(join(workspace, path), 'utf8') : null);
    return { sessionId: session.id, workspace, file };
  }

  /** One turn: the agent rewrites app.ts with the edit tool and makes a file with a shell command. */
  async function agentChangesFiles(sessionId: string): Promise<SessionView> {
    files.server.enqueue(
      { steps: [toolCall('write_file', { path: 'app.ts', content: 'v2\n' }, 'w1')] },
      { steps: [toolCall('run_command', { command: 'printf "from the shell\\n" > made.txt' }, 'r1')] },
      textTurn('Done.'),
    );
    await call('run:send', { sessionId, text: 'Change things' });
    await files.core.runtime?.whenIdle(sessionId);
    return view(sessionId);
  }

  it(
    'brings back the files of a checkpoint, edits and shell changes alike, keeping what the person changed since, and undoes it',
    needs(bash),
    async () => {
      const { sessionId, workspace, file } = await setUp('one');
      const after = await agentChangesFiles(sessionId);
      expect(file('app.ts')).toBe('v2\n');
      expect(file('made.txt')).toBe('from the shell\n');
      // The timeline says which steps changed which files.
      expect(after.checkpoints.flatMap((checkpoint) => checkpoint.filesChanged ?? [])).toEqual(['app.ts', 'made.txt']);

      // The person edits their notes after the agent is done.
      writeFileSync(join(workspace, 'notes.md'), 'my notes, edited by me\n');
      const start = after.checkpoints[0]?.id ?? '';
      const preview = await call<FilePreview>('checkpoint:preview', { sessionId, checkpointId: start });
      expect(preview.changes).toEqual([
        { path: 'app.ts', kind: 'file', change: 'modify', conflict: false, available: true },
        { path: 'made.txt', kind: 'file', change: 'delete', conflict: false, available: true },
        { path: 'notes.md', kind: 'file', change: 'modify', conflict: true, available: true },
      ]);
      // A preview changes nothing.
      expect(file('app.ts')).toBe('v2\n');

      const restored = await call<{ branchId: string | null; files: FilesRestored }>('checkpoint:restore', {
        sessionId,
        checkpointId: start,
        mode: 'files',
      });
      expect(restored.branchId).toBeNull();
      expect(restored.files).toMatchObject({ written: ['app.ts'], deleted: ['made.txt'], kept: ['notes.md'] });
      expect(file('app.ts')).toBe('v1\n');
      expect(file('made.txt')).toBeNull();
      expect(file('notes.md')).toBe('my notes, edited by me\n');
      // Never the person's repository, never an ignored file.
      expect(file('.git/HEAD')).toBe('ref: refs/heads/main\n');
      expect(file('build.log')).toBe('ignored output\n');
      expect((await view(sessionId)).lastRestore?.restoreId).toBe(restored.files.restoreId);

      const undone = await call<FilesRestored>('checkpoint:undoRestore', { sessionId, restoreId: restored.files.restoreId });
      expect(undone).toMatchObject({ written: ['app.ts', 'made.txt'], deleted: [] });
      expect(file('app.ts')).toBe('v2\n');
      expect(file('made.txt')).toBe('from the shell\n');
      expect(file('notes.md')).toBe('my notes, edited by me\n');

      // Asked to, the restore takes the person's change back too.
      await call('checkpoint:restore', { sessionId, checkpointId: start, mode: 'files', overwriteConflicts: true });
      expect(file('notes.md')).toBe('my notes\n');
      expect(file('app.ts')).toBe('v1\n');
    },
  );

  it('restores conversation and files together, as a new branch', needs(bash), async () => {
    const { sessionId, file } = await setUp('two');
    const after = await agentChangesFiles(sessionId);
    const writeStep = after.checkpoints.find((checkpoint) => checkpoint.filesChanged?.includes('app.ts'));
    const result = await call<{ branchId: string | null; files: FilesRestored }>('checkpoint:restore', {
      sessionId,
      checkpointId: writeStep?.id ?? '',
      mode: 'both',
    });
    expect(result.branchId).not.toBeNull();
    expect(file('app.ts')).toBe('v2\n');
    expect(file('made.txt')).toBeNull();
    const shown = await view(sessionId);
    expect(shown.status).toBe('idle');
    expect(shown.messages.at(-1)?.toolCalls.map((item) => item.tool)).toEqual(['write_file']);
    // The restore is on the shown branch, ready to be undone.
    expect(shown.lastRestore?.restoreId).toBe(result.files.restoreId);
  });

  it('deletes nothing when a write fails, and puts back what it had written', needs(bash), async () => {
    const { sessionId, workspace, file } = await setUp('three');
    mkdirSync(join(workspace, 'docs'));
    writeFileSync(join(workspace, 'docs', 'guide.md'), 'guide\n');
    const after = await agentChangesFiles(sessionId);
    // The person replaces the docs folder with a file of the same name: docs/guide.md cannot be written back.
    rmSync(join(workspace, 'docs'), { recursive: true });
    writeFileSync(join(workspace, 'docs'), 'not a folder any more\n');
    const start = after.checkpoints[0]?.id ?? '';
    await expect(call('checkpoint:restore', { sessionId, checkpointId: start, mode: 'files', overwriteConflicts: true })).rejects.toThrow(
      /docs\/guide\.md/,
    );
    expect(file('app.ts')).toBe('v2\n');
    expect(file('made.txt')).toBe('from the shell\n');
    expect(file('docs')).toBe('not a folder any more\n');
  });

  it(
    'lists and removes the folders the agent made, keeps one that holds the person’s file, and an undo makes them again',
    needs(bash),
    async () => {
      const { sessionId, workspace, file } = await setUp('folders');
      files.server.enqueue(
        { steps: [toolCall('run_command', { command: 'mkdir -p out/empty logs && printf "x\\n" > out/made.txt' }, 'm1')] },
        textTurn('Made folders.'),
      );
      await call('run:send', { sessionId, text: 'Make folders' });
      await files.core.runtime?.whenIdle(sessionId);
      const start = (await view(sessionId)).checkpoints[0]?.id ?? '';
      // The person puts a file of their own in a folder the agent made.
      writeFileSync(join(workspace, 'logs', 'mine.txt'), 'mine\n');

      const preview = await call<FilePreview>('checkpoint:preview', { sessionId, checkpointId: start });
      expect(preview.changes).toEqual([
        { path: 'logs', kind: 'folder', change: 'delete', conflict: false, available: true },
        { path: 'logs/mine.txt', kind: 'file', change: 'delete', conflict: true, available: true },
        { path: 'out', kind: 'folder', change: 'delete', conflict: false, available: true },
        { path: 'out/empty', kind: 'folder', change: 'delete', conflict: false, available: true },
        { path: 'out/made.txt', kind: 'file', change: 'delete', conflict: false, available: true },
      ]);

      const restored = await call<{ files: FilesRestored }>('checkpoint:restore', { sessionId, checkpointId: start, mode: 'files' });
      expect(restored.files.deleted).toEqual(['out/made.txt', 'out/empty/', 'out/']);
      expect(restored.files.kept).toEqual(['logs/mine.txt', 'logs/']);
      expect(existsSync(join(workspace, 'out'))).toBe(false);
      expect(file('logs/mine.txt')).toBe('mine\n');

      const undone = await call<FilesRestored>('checkpoint:undoRestore', { sessionId, restoreId: restored.files.restoreId });
      expect(undone.written).toEqual(['out/empty/', 'out/made.txt']);
      expect(existsSync(join(workspace, 'out', 'empty'))).toBe(true);
      expect(file('out/made.txt')).toBe('x\n');
    },
  );

  it('edits a message with its files put back as one step, which one undo takes back, conversation and files', needs(bash), async () => {
    const { sessionId, file } = await setUp('edit');
    await agentChangesFiles(sessionId);
    const opened = await call<{ entries: JournalEntry[] }>('session:open', { sessionId });
    const question = opened.entries.find((entry) => entry.event.type === 'user_message')?.event;
    if (question?.type !== 'user_message') throw new Error('no message');
    const before = await call<{ activeBranchId: string }>('branch:list', { sessionId });

    files.server.enqueue(textTurn('Left the files alone.'));
    const edited = await call<{ branchId: string; files: FilesRestored | null }>('message:edit', {
      sessionId,
      messageId: question.messageId,
      text: 'Change nothing',
      filesBack: true,
    });
    await files.core.runtime?.whenIdle(sessionId);
    expect(edited.files).toMatchObject({ written: ['app.ts'], deleted: ['made.txt'] });
    expect(file('app.ts')).toBe('v1\n');
    expect(file('made.txt')).toBeNull();
    // The restore opens the new version, so it is that version's to undo.
    const shown = await view(sessionId);
    expect(shown.messages.map((message) => message.text)).toEqual(['Change nothing', 'Left the files alone.']);
    expect(shown.lastRestore).toMatchObject({ restoreId: edited.files?.restoreId, of: 'edit' });

    await call('checkpoint:undoRestore', { sessionId, restoreId: edited.files?.restoreId });
    expect(file('app.ts')).toBe('v2\n');
    expect(file('made.txt')).toBe('from the shell\n');
    const back = await call<{ activeBranchId: string; branches: { id: string }[] }>('branch:list', { sessionId });
    expect(back.activeBranchId).toBe(before.activeBranchId);
    expect(back.branches.map((branch) => branch.id)).toContain(edited.branchId);
    expect((await view(sessionId)).messages.map((message) => message.text)[0]).toBe('Change things');
  });

  it('an edit that cannot start after its files were put back leaves that restore undoable on the shown version', needs(bash), async () => {
    const { sessionId, file } = await setUp('edit-fails');
    await agentChangesFiles(sessionId);
    const opened = await call<{ entries: JournalEntry[] }>('session:open', { sessionId });
    const question = opened.entries.find((entry) => entry.event.type === 'user_message')?.event;
    const started = opened.entries.find((entry) => entry.event.type === 'run_started')?.event;
    if (question?.type !== 'user_message' || started?.type !== 'run_started') throw new Error('no turn');
    // Only the endpoint is chosen: no turn can start.
    await call('session:setModel', { sessionId, model: { providerId: started.model.providerId, model: '' } });
    await expect(
      call('message:edit', { sessionId, messageId: question.messageId, text: 'Change nothing', filesBack: true }),
    ).rejects.toMatchObject({ code: 'no_model' });
    expect(file('app.ts')).toBe('v1\n');
    const shown = await view(sessionId);
    expect(shown.messages[0]?.text).toBe('Change things');
    const restore = shown.lastRestore;
    expect(restore).toMatchObject({ of: 'restore', written: ['app.ts'] });
    await call('checkpoint:undoRestore', { sessionId, restoreId: restore?.restoreId });
    expect(file('app.ts')).toBe('v2\n');
  });

  it('refuses to put files back with an edit where none were saved, and changes nothing', async () => {
    const { sessionId } = await setUp('edit-none');
    files.server.enqueue(textTurn('Just talking.'));
    await call('run:send', { sessionId, text: 'Hello' });
    await files.core.runtime?.whenIdle(sessionId);
    const opened = await call<{ entries: JournalEntry[] }>('session:open', { sessionId });
    const question = opened.entries.find((entry) => entry.event.type === 'user_message')?.event;
    if (question?.type !== 'user_message') throw new Error('no message');
    await expect(call('message:edit', { sessionId, messageId: question.messageId, text: 'Hi', filesBack: true })).rejects.toMatchObject({
      code: 'invalid_state',
    });
    const after = await call<{ entries: JournalEntry[] }>('session:open', { sessionId });
    expect(after.entries.length).toBe(opened.entries.length);
  });

  it('refuses a files restore where the agent never changed a file', async () => {
    const { sessionId } = await setUp('four');
    files.server.enqueue(textTurn('Just talking.'));
    await call('run:send', { sessionId, text: 'Hello' });
    await files.core.runtime?.whenIdle(sessionId);
    const checkpoint = (await view(sessionId)).checkpoints[0]?.id ?? '';
    expect(await call<FilePreview>('checkpoint:preview', { sessionId, checkpointId: checkpoint })).toEqual({
      snapshotId: null,
      changes: [],
    });
    await expect(call('checkpoint:restore', { sessionId, checkpointId: checkpoint, mode: 'files' })).rejects.toMatchObject({
      code: 'invalid_state',
    });
  });
});
