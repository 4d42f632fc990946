/*
 * One restore of a workspace's files, put back whole when it fails.
 */
import { WorkbenchError } from '../../../shared/errors';
import type { FilesRestored } from '../../../shared/file-history';
import type { Clock } from '../ports/clock';
import type { FileHistory } from '../ports/ports';

/**
 * One restore of a workspace's files: a safety snapshot first, then the restore, put back whole if
 * it fails half way, then a snapshot of the result, so what the person changes afterwards is
 * theirs.
 */
export class FileRestorer {
  constructor(
    private readonly files: FileHistory,
    private readonly clock: Clock,
    private readonly newId: () => string,
  ) {}

  async restore(
    sessionId: string,
    workspacePath: string | null,
    targetId: string,
    overwriteConflicts: boolean,
  ): Promise<Omit<FilesRestored, 'restoreId'>> {
    const { files, clock } = this;
    if (workspacePath === null || files.workspaceOf(targetId) !== workspacePath)
      throw new WorkbenchError('invalid_state', 'These files were saved from another folder than the session works in now.');
    const expectedId = files.latest(sessionId);
    const safety = await files.capture({ sessionId, workspacePath, id: this.newId(), at: clock.now(), kind: 'safety' });
    let outcome;
    try {
      outcome = await files.restore({ workspacePath, targetId, expectedId, overwriteConflicts });
    } catch (error) {
      // Half a restore is worse than none: put back what was written.
      await files
        .restore({ workspacePath, targetId: safety.snapshotId, expectedId: null, overwriteConflicts: true })
        .catch(() => undefined);
      throw error;
    }
    await files.capture({ sessionId, workspacePath, id: this.newId(), at: clock.now(), kind: 'step' });
    return { snapshotId: targetId, safetySnapshotId: safety.snapshotId, ...outcome };
  }
}
