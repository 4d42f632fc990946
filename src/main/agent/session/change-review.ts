/*
 * What the agent changed in the workspace's files, by turn or session: listed, diffed, and reverted whole or by
 * hunk.
 */
import { maxChangedListed, type ChangedFile, type ChangeSet, type FileDiff } from '../../../shared/changes';
import { NotFoundError, WorkbenchError } from '../../../shared/errors';
import type { FilesRestored } from '../../../shared/file-history';
import type { Clock } from '../ports/clock';
import type { ChangeRange, FileChanges, FileHistory } from '../ports/ports';
import type { SessionJournal } from '../history/session-journal';
import type { SessionStore } from '../ports/stores';
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

/** A sub-agent named beside a path it changed. */
type SubAgentMark = NonNullable<ChangedFile['by']>[number];

/** How deep a walk of sub-agents goes at most (the setting allows fewer). */
const maxSubAgentDepth = 8;

/** A snapshot the journal of the shown line names, with the turn that took it. */
interface Mark {
  readonly turnId: string;
  readonly snapshotId: string;
  readonly changed: readonly string[];
  /** Taken before the turn's first call: what it lists changed before the turn, by someone else. */
  readonly turnStart: boolean;
}

/** The snapshots of a session's shown line read so far, so a long journal is read once, then only what was added. */
interface MarksRead {
  readonly branchId: string;
  readonly workspacePath: string;
  lastSeq: number;
  readonly marks: Mark[];
}

/**
 * The paths the agent changed in some marks: what each lists, but a turn's first (what changed
 * before the turn was someone else's). Null when a mark lists only part of what changed.
 */
function agentPaths(marks: readonly Mark[]): Set<string> | null {
  const paths = new Set<string>();
  for (const mark of marks) {
    if (mark.turnStart) continue;
    if (mark.changed.length >= maxChangedListed) return null;
    for (const path of mark.changed) paths.add(path);
  }
  return paths;
}

/**
 * What the agent changed in the workspace over a session or one turn, compared from the files as
 * they were when it began to the files as the agent left them, and reverting a file or some of its
 * hunks. Only paths the agent changed count: an edit of the person's between turns is theirs. A
 * revert is saved like a restore (the state before it first), so it can be undone.
 */
export class ChangeReview {
  private readonly read = new Map<string, MarksRead>();

  constructor(private readonly options: ChangeReviewOptions) {}

  async list(sessionId: string, turnId: string | null): Promise<ChangeSet> {
    const { marks, range } = this.scope(sessionId, turnId);
    const turnIds = [...new Set(marks.map((mark) => mark.turnId))];
    const turns = turnIds.map((id) => {
      const paths = agentPaths(marks.filter((mark) => mark.turnId === id));
      return { turnId: id, files: paths?.size ?? maxChangedListed };
    });
    const files = range ? await this.options.changes.compare(range) : [];
    const by = range ? this.subAgentPaths(sessionId, turnId, range.workspacePath) : new Map<string, SubAgentMark[]>();
    return {
      turnId,
      saved: range !== null,
      files: files.map((file) => {
        const made = by.get(file.path);
        return made ? { ...file, by: made } : file;
      }),
      turns: turns.filter((turn) => turn.files > 0),
    };
  }

  /**
   * Which sub-agents changed which paths, over the sub-agents a session's calls started (in one turn, or all) and
   * theirs: each path is named for the deepest that changed it, since those that handed the work on saw it change
   * around their call.
   */
  private subAgentPaths(sessionId: string, turnId: string | null, workspacePath: string): Map<string, SubAgentMark[]> {
    const found = new Map<string, SubAgentMark[]>();
    const walk = (parentId: string, inTurn: string | null, depth: number): Set<string> => {
      const below = new Set<string>();
      if (depth > maxSubAgentDepth) return below;
      for (const child of this.options.store.subAgents(parentId)) {
        if (inTurn !== null && child.subAgent?.turnId !== inTurn) continue;
        if (child.workspacePath !== workspacePath) continue;
        const deeper = walk(child.id, null, depth + 1);
        for (const path of agentPaths(this.marksOf(child.id, workspacePath)) ?? []) {
          if (deeper.has(path)) continue;
          found.set(path, [...(found.get(path) ?? []), { sessionId: child.id, title: child.title }]);
          below.add(path);
        }
        for (const path of deeper) below.add(path);
      }
      return below;
    };
    walk(sessionId, turnId, 1);
    return found;
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
    journal.append(sessionId, [{ type: 'files_restored', checkpointId: null, undoOf: null, ...result, of: 'revert' }]);
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
   * (taken before its first call) and its last. A turn journaled before turn starts were marked
   * starts from the snapshot before it.
   */
  private scope(sessionId: string, turnId: string | null): { marks: readonly Mark[]; range: ChangeRange | null } {
    const { store, files } = this.options;
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    const workspacePath = session.workspacePath;
    if (workspacePath === null) return { marks: [], range: null };
    const marks = this.marksOf(sessionId, workspacePath);
    if (turnId === null) {
      const first = marks[0];
      if (!first) return { marks, range: null };
      const newest = files.latest(sessionId);
      const endId = newest && files.workspaceOf(newest) === workspacePath ? newest : (marks.at(-1)?.snapshotId ?? first.snapshotId);
      return { marks, range: { workspacePath, baseId: first.snapshotId, endId, only: agentPaths(marks) } };
    }
    const at = marks.findIndex((mark) => mark.turnId === turnId);
    const own = marks.filter((mark) => mark.turnId === turnId);
    const first = own[0];
    if (!first) return { marks, range: null };
    const base = first.turnStart ? first : (marks[at - 1] ?? first);
    const endId = own.at(-1)?.snapshotId ?? first.snapshotId;
    return { marks, range: { workspacePath, baseId: base.snapshotId, endId, only: agentPaths(own) } };
  }

  private marksOf(sessionId: string, workspacePath: string): readonly Mark[] {
    const { store, files } = this.options;
    const branchId = store.activeBranch(sessionId);
    let read = this.read.get(sessionId);
    if (!read || read.branchId !== branchId || read.workspacePath !== workspacePath) {
      read = { branchId, workspacePath, lastSeq: -1, marks: [] };
      this.read.set(sessionId, read);
    }
    for (const { seq, event } of store.journal(sessionId, { afterSeq: read.lastSeq })) {
      read.lastSeq = seq;
      if (event.type !== 'files_snapshotted' || files.workspaceOf(event.snapshotId) !== workspacePath) continue;
      read.marks.push({ turnId: event.turnId, snapshotId: event.snapshotId, changed: event.changed, turnStart: event.turnStart === true });
    }
    return read.marks;
  }
}
