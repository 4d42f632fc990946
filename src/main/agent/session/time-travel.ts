/*
 * Time travel over files: a checkpoint's files previewed, restored, and the restore undone.
 */
import type { GitHeads } from '../ports/git';
import { NotFoundError, WorkbenchError } from '../../../shared/errors';
import type { RuntimeEvent } from '../../../shared/events';
import type { FilePreview, FilesRestored, RestoreMode } from '../../../shared/file-history';
import type { Clock } from '../ports/clock';
import { FileRestorer } from './file-restorer';
import type { FileHistory } from '../ports/ports';
import type { SessionJournal } from '../history/session-journal';
import type { SessionStore } from '../ports/stores';
import type { TurnScheduler } from './turn-scheduler';
import type { Versions } from './versions';

export interface TimeTravelOptions {
  readonly store: SessionStore;
  readonly turns: TurnScheduler;
  readonly versions: Versions;
  readonly journal: SessionJournal;
  readonly files?: FileHistory;
  readonly clock: Clock;
  readonly newId: () => string;
  /** The commit a workspace has checked out now, to compare with the one each checkpoint recorded. */
  readonly git?: GitHeads;
}

/**
 * Time travel over a session: a checkpoint's conversation (as a new branch), its files, or both,
 * with a preview first and an undo after.
 */
export class TimeTravel {
  private readonly restorer: FileRestorer | null;

  constructor(private readonly options: TimeTravelOptions) {
    this.restorer = options.files ? new FileRestorer(options.files, options.clock, options.newId) : null;
  }

  /** What restoring a checkpoint's files would change, file by file, conflicts marked. */
  async preview(sessionId: string, checkpointId: string): Promise<FilePreview> {
    const { workspacePath, snapshotId, head } = this.filesAt(sessionId, checkpointId);
    const files = this.options.files;
    const now = workspacePath === null ? null : (this.options.git?.headOf(workspacePath) ?? null);
    const headMoved = head !== null && head !== now ? { headMoved: { then: head, now } } : {};
    if (!files || snapshotId === null || workspacePath === null) return { snapshotId: null, changes: [], ...headMoved };
    return {
      snapshotId,
      changes: await files.preview({ workspacePath, targetId: snapshotId, expectedId: files.latest(sessionId) }),
      ...headMoved,
    };
  }

  /**
   * Brings a checkpoint back: its conversation (as a new branch), its files, or both. Files the
   * person changed since the agent last saw them are kept unless `overwriteConflicts`. A safety
   * snapshot is taken first, so the restore itself can be undone.
   */
  async restore(
    sessionId: string,
    checkpointId: string,
    mode: RestoreMode,
    overwriteConflicts = false,
  ): Promise<{ branchId: string | null; recovered: boolean; files: FilesRestored | null }> {
    this.options.turns.assertIdle(sessionId);
    const target = this.filesAt(sessionId, checkpointId);
    if (mode !== 'conversation' && target.snapshotId === null) {
      throw new WorkbenchError('invalid_state', 'No files were saved at this checkpoint: the agent had not changed any yet.');
    }
    const restored =
      mode !== 'conversation' && target.snapshotId ? await this.restoreFiles(sessionId, target.snapshotId, overwriteConflicts) : null;
    const fromBranchId = this.options.store.activeBranch(sessionId);
    const branch = mode === 'files' ? null : this.options.versions.restoreConversation(sessionId, checkpointId);
    const opened = branch ? { branchId: branch.branchId, fromBranchId } : {};
    const files = restored ? this.journalRestore(sessionId, restored, { checkpointId, undoOf: null, of: 'restore', ...opened }) : null;
    return { branchId: branch?.branchId ?? null, recovered: branch?.recovered ?? false, files };
  }

  /**
   * Edits a message the person sent and puts the files back as they were when it was sent, as one step: the files first
   * (a safety snapshot taken, so it can be undone; what the person changed since is kept unless `overwriteConflicts`),
   * then the edited message runs as a new version whose first row is that restore. Undoing the restore from there puts
   * the files back as they were and shows the version before the edit again. Should the edit not start (no model
   * chosen, say), the restore is journalled on the shown version, where it can be undone, and the error is thrown.
   */
  async editWithFiles(
    sessionId: string,
    messageId: string,
    text: string,
    overwriteConflicts = false,
  ): Promise<{ turnId: string; branchId: string; files: FilesRestored }> {
    const { store, turns, versions } = this.options;
    turns.assertIdle(sessionId);
    const message = store.findById(sessionId, 'user_message', messageId);
    if (message?.event.type !== 'user_message') throw new NotFoundError('Message', messageId);
    // The checkpoint taken when the message arrived: the files as they were before anything it asked for ran.
    const input = store.nearest(sessionId, 'after', message.seq, ['checkpoint_saved']);
    if (input?.event.type !== 'checkpoint_saved' || input.event.turnId !== message.event.turnId || input.event.source !== 'input')
      throw new WorkbenchError('invalid_state', 'No checkpoint was saved when this message was sent, so its files cannot be put back.');
    const checkpointId = input.event.checkpointId;
    const target = this.filesAt(sessionId, checkpointId);
    if (target.snapshotId === null)
      throw new WorkbenchError('invalid_state', 'No files were saved at this checkpoint: the agent had not changed any yet.');
    const restored = await this.restoreFiles(sessionId, target.snapshotId, overwriteConflicts);
    const files: FilesRestored = { restoreId: this.options.newId(), ...restored };
    const fromBranchId = store.activeBranch(sessionId);
    try {
      const edited = versions.edit(sessionId, messageId, text, (branchId) => [
        { type: 'files_restored', checkpointId, undoOf: null, of: 'edit', branchId, fromBranchId, ...files },
      ]);
      return { ...edited, files };
    } catch (error) {
      this.options.journal.append(sessionId, [{ type: 'files_restored', checkpointId, undoOf: null, of: 'restore', ...files }]);
      throw error;
    }
  }

  /**
   * Undoes a restore: the files go back as they were just before it (what the person changed since is kept) and, when
   * it brought an earlier conversation back and that version is still shown, the version shown before it is shown
   * again (the restored one stays in the history).
   */
  async undo(sessionId: string, restoreId: string): Promise<FilesRestored> {
    const { turns, store, versions } = this.options;
    turns.assertIdle(sessionId);
    const event = store.findById(sessionId, 'files_restored', restoreId)?.event;
    if (event?.type !== 'files_restored') throw new NotFoundError('Restore', restoreId);
    const restored = await this.restoreFiles(sessionId, event.safetySnapshotId, false);
    if (event.fromBranchId && event.branchId && store.activeBranch(sessionId) === event.branchId)
      versions.switchTo(sessionId, event.fromBranchId);
    return this.journalRestore(sessionId, restored, { checkpointId: null, undoOf: restoreId, of: event.of ?? 'restore' });
  }

  private journalRestore(
    sessionId: string,
    restored: Omit<FilesRestored, 'restoreId'>,
    what: Pick<Extract<RuntimeEvent, { type: 'files_restored' }>, 'checkpointId' | 'undoOf' | 'of' | 'branchId' | 'fromBranchId'>,
  ): FilesRestored {
    const result: FilesRestored = { restoreId: this.options.newId(), ...restored };
    this.options.journal.append(sessionId, [{ type: 'files_restored', ...what, ...result }]);
    return result;
  }

  private async restoreFiles(sessionId: string, targetId: string, overwriteConflicts: boolean): Promise<Omit<FilesRestored, 'restoreId'>> {
    const session = this.options.store.get(sessionId);
    const restorer = this.restorer;
    if (!restorer || !session) throw new NotFoundError('Session', sessionId);
    return this.options.turns.whileRestoring(sessionId, () =>
      restorer.restore(sessionId, session.workspacePath, targetId, overwriteConflicts),
    );
  }

  /**
   * The file snapshot that holds a checkpoint's files on the shown line: the newest one taken
   * before the next checkpoint, or, when the agent changed nothing until later, the first one after
   * (the files were as it found them). Null when no files were ever saved on this line.
   */
  private filesAt(
    sessionId: string,
    checkpointId: string,
  ): { workspacePath: string | null; snapshotId: string | null; head: string | null } {
    const { store } = this.options;
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    const row = store.findById(sessionId, 'checkpoint_saved', checkpointId);
    if (!row) throw new NotFoundError('Checkpoint', checkpointId);
    const end = store.nearest(sessionId, 'after', row.seq, ['checkpoint_saved'])?.seq ?? Number.MAX_SAFE_INTEGER;
    const snapshot =
      store.nearest(sessionId, 'before', end, ['files_snapshotted']) ?? store.nearest(sessionId, 'after', end, ['files_snapshotted']);
    return {
      workspacePath: session.workspacePath,
      snapshotId: snapshot?.event.type === 'files_snapshotted' ? snapshot.event.snapshotId : null,
      head: row.event.type === 'checkpoint_saved' ? (row.event.head ?? null) : null,
    };
  }
}
