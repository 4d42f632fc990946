/* The checkpoints' part of the session view's fold: checkpoints saved or recovered, the files they changed, and restores. */

import { BugError } from '../errors';
import type { RuntimeEvent } from '../events';
import type { EntryPlace } from './entry-place';
import { turnFilesChanged, turnStepped } from './turn-figures';
import type { SessionView } from './types';

export type CheckpointEvent = Extract<
  RuntimeEvent,
  {
    type:
      | 'checkpoint_saved'
      | 'checkpoint_recovered'
      | 'files_snapshotted'
      | 'files_restored'
      | 'git_committed'
      | 'worktree_created'
      | 'worktree_brought_back'
      | 'worktree_removed';
  }
>;

/** The view after one event of a checkpoint or of the files it holds. */
export function applyCheckpointEvent(view: SessionView, event: CheckpointEvent, { seq, at }: EntryPlace): SessionView {
  switch (event.type) {
    case 'checkpoint_saved': {
      // The checkpoint of an answer at a gate is saved right after the answer, and remembers it.
      const answer = event.source === 'approval' && view.lastAnswer !== null ? { answer: view.lastAnswer } : {};
      return {
        ...turnStepped(view, event.turnId, at),
        lastAnswer: null,
        checkpoints: [
          ...view.checkpoints,
          {
            id: event.checkpointId,
            turnId: event.turnId,
            seq: event.seq,
            source: event.source,
            at,
            filesChanged: null,
            journalSeq: seq,
            ...answer,
          },
        ],
      };
    }
    case 'checkpoint_recovered':
      return { ...view, warnings: [...view.warnings, event.message] };
    case 'files_snapshotted': {
      // A snapshot that changed nothing only marks where a turn's changes start.
      if (event.changed.length === 0) return view;
      const changed = turnFilesChanged(view, event);
      return {
        ...changed,
        checkpoints: changed.checkpoints.map((checkpoint) =>
          checkpoint.id === event.checkpointId
            ? { ...checkpoint, filesChanged: [...(checkpoint.filesChanged ?? []), ...event.changed] }
            : checkpoint,
        ),
      };
    }
    case 'files_restored':
      return {
        ...view,
        lastRestore: {
          restoreId: event.restoreId,
          safetySnapshotId: event.safetySnapshotId,
          written: event.written,
          deleted: event.deleted,
          kept: event.kept,
          refused: event.refused,
          undoOf: event.undoOf,
          of: event.of ?? 'restore',
        },
      };
    case 'git_committed':
      return {
        ...view,
        commits: [
          ...view.commits,
          {
            commit: event.commit.commit,
            branch: event.commit.branch,
            subject: event.commit.subject,
            paths: event.commit.paths,
            turnId: event.turnId,
            at,
          },
        ],
      };
    case 'worktree_created':
      return {
        ...view,
        worktree: {
          branch: event.worktree.branch,
          root: event.worktree.root,
          mainPath: event.worktree.mainPath,
          broughtBack: null,
          removed: false,
        },
      };
    case 'worktree_brought_back':
      return view.worktree ? { ...view, worktree: { ...view.worktree, broughtBack: event.result.fingerprint } } : view;
    case 'worktree_removed':
      return view.worktree ? { ...view, worktree: { ...view.worktree, removed: true } } : view;
    default: {
      const unhandled: never = event;
      throw new BugError(`The checkpoints' fold has no case for ${JSON.stringify(unhandled)}.`);
    }
  }
}
