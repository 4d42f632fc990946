import type { ChangeSet, FileDiff } from '../../shared/changes';
import { NotFoundError, WorkbenchError } from '../../shared/errors';
import type { FilesRestored } from '../../shared/file-history';
import type { Clock } from './clock';
import type { ChangeRange, FileChanges, FileHistory } from './ports';
import type { SessionJournal } from './session-journal';
import type { SessionStore } from './stores';
import type { TurnScheduler } from './turn-scheduler';

export interface ChangeReviewOptions {
  readonly store: SessionStore;
  readonly turns: TurnScheduler;
  readonly journal: SessionJournal;
  readonly files: FileHistory;
  readonly changes: FileChanges;
  readonly clock: Clock;
  readonly newId: () => string;
}

/** A snapshot the journal of the shown line names, with the turn that took it. */
interface Mark {
  readonly turnId: string;
  readonly snapshotId: string;
  readonly changed: readonly string[];
}

/**
 * What the agent changed in the workspace over a session or one turn, compared from the files as
 * they were when it began to the files as the agent left them, and reverting a file or some of its
 * hunks. A revert is saved like a restore (the state before it first), so it can be undone.
 */
export class ChangeReview {
  constructor(private readonly options: ChangeReviewOptions) {}

  async list(sessionId: string, turnId: string | null): Promise<ChangeSet> {
    const { marks, range } = this.scope(sessionId, turnId);
    const turns = new Map<string, Set<string>>();
    for (const mark of marks) {
      const paths = turns.get(mark.turnId) ?? new Set<string>();
      for (const path of mark.changed) paths.add(path);
      turns.set(mark.turnId, paths);
    }
    return {
      turnId,
      saved: range !== null,
      files: range ? await this.options.changes.compare(range) : [],
      turns: [...turns].filter(([, paths]) => paths.size > 0).map(([id, paths]) => ({ turnId: id, files: paths.size })),
    };
  }

  async diff(sessionId: string, turnId: string | null, path: string): Promise<FileDiff> {
    return this.options.changes.diff(this.rangeOf(sessionId, turnId), path);
  }

  async revert(sessionId: string, turnId: string | null, path: string, hunks: readonly number[] | null): Promise<FilesRestored> {
    const { turns, files, changes, clock, newId, journal } = this.options;
    turns.assertIdle(sessionId);
    const range = this.rangeOf(sessionId, turnId);
    const { workspacePath } = range;
    const done = await turns.whileRestoring(sessionId, async () => {
      const safety = await files.capture({ sessionId, workspacePath, id: newId(), at: clock.now(), kind: 'safety' });
      const outcome = await changes.revert(range, path, hunks);
      await files.capture({ sessionId, workspacePath, id: newId(), at: clock.now(), kind: 'step' });
      return { snapshotId: range.baseId, safetySnapshotId: safety.snapshotId, ...outcome };
    });
    const result: FilesRestored = { restoreId: newId(), ...done };
    journal.append(sessionId, [{ type: 'files_restored', checkpointId: null, undoOf: null, ...result }]);
    return result;
  }

  private rangeOf(sessionId: string, turnId: string | null): ChangeRange {
    const { range } = this.scope(sessionId, turnId);
    if (!range)
      throw new WorkbenchError(
        'invalid_state',
        turnId ? 'This turn changed no files.' : 'The agent has not changed any files in this session yet.',
      );
    return range;
  }

  /**
   * The snapshots of the shown line taken of the session's folder now, and the two to compare: for
   * the session, its first and the newest (a restore or revert since counts); for a turn, its first
   * (taken before its first change) and its last.
   */
  private scope(sessionId: string, turnId: string | null): { marks: Mark[]; range: ChangeRange | null } {
    const { store, files } = this.options;
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    const workspacePath = session.workspacePath;
    if (workspacePath === null) return { marks: [], range: null };
    const inFolder = new Map<string, boolean>();
    const marks: Mark[] = [];
    for (const { event } of store.journal(sessionId)) {
      if (event.type !== 'files_snapshotted') continue;
      const same = inFolder.get(event.snapshotId) ?? files.workspaceOf(event.snapshotId) === workspacePath;
      inFolder.set(event.snapshotId, same);
      if (same) marks.push({ turnId: event.turnId, snapshotId: event.snapshotId, changed: event.changed });
    }
    const shown = turnId === null ? marks : marks.filter((mark) => mark.turnId === turnId);
    const first = shown[0];
    if (!first) return { marks, range: null };
    const newest = files.latest(sessionId);
    const end =
      turnId === null && newest && files.workspaceOf(newest) === workspacePath ? newest : (shown.at(-1)?.snapshotId ?? first.snapshotId);
    return { marks, range: { workspacePath, baseId: first.snapshotId, endId: end } };
  }
}
