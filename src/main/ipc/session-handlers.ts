/*
 * The IPC handlers of sessions: creating, opening and exporting them, their versions (edits, retries, branches),
 * checkpoints and changes.
 */

import { NotFoundError } from '../../shared/errors';
import type { Session } from '../../shared/domain';
import type { AccountingStore } from '../agent/ports/accounting';
import type { SessionStore } from '../agent/ports/stores';
import type { SessionTransfer } from '../agent/history/session-transfer';
import type { SessionArchive } from '../agent/session/archive';
import type { SessionRuntime } from '../agent/session/session-runtime';
import type { ChosenPaths } from './chosen-paths';
import type { Handlers } from './router';

type SessionChannel =
  | 'session:list'
  | 'session:create'
  | 'session:rename'
  | 'session:delete'
  | 'session:open'
  | 'session:resume'
  | 'session:discard'
  | 'session:tree'
  | 'session:export'
  | 'session:import'
  | 'session:setModel'
  | 'session:setAutonomy'
  | 'session:stats'
  | 'session:subAgents'
  | 'session:compact'
  | 'message:edit'
  | 'turn:retry'
  | 'branch:list'
  | 'branch:switch'
  | 'checkpoint:preview'
  | 'checkpoint:restore'
  | 'checkpoint:undoRestore'
  | 'changes:list'
  | 'changes:diff'
  | 'changes:revert';

export interface SessionHandlerDependencies {
  readonly store: SessionStore;
  readonly runtime: SessionRuntime;
  readonly accounting: AccountingStore;
  readonly transfer: SessionTransfer;
  /** Deleted sessions, kept until restored or purged. */
  readonly archive: SessionArchive;
  /** The paths the person chose: a workspace the window names must be one, or a session's already. */
  readonly chosenPaths: ChosenPaths;
}

/** The workspaces sessions have: the recent folders the window offers. */
export function knownWorkspaces(store: SessionStore): string[] {
  return store.list().flatMap((session) => (session.workspacePath === null ? [] : [session.workspacePath]));
}

/** The handlers of sessions, their versions (edits, retries, branches), checkpoints and changes. */
export function sessionHandlers(deps: SessionHandlerDependencies): Pick<Handlers, SessionChannel> {
  const { store, runtime, accounting } = deps;
  const existing = (sessionId: string): Session => {
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    return session;
  };
  return {
    'session:list': () => store.list(),
    'session:create': (input) => {
      if (typeof input.workspacePath === 'string') deps.chosenPaths.require(input.workspacePath, 'folder', knownWorkspaces(store));
      return runtime.sessions.create(input);
    },
    'session:rename': (input) => runtime.sessions.rename(input.sessionId, input.title),
    // Deleting archives: nothing is removed until the retention period ends or the person deletes it from Settings.
    'session:delete': (input) => deps.archive.archive(input.sessionId),
    'session:open': (input) => {
      const session = existing(input.sessionId);
      runtime.prepare(input.sessionId);
      const from = input.recentTurns === undefined ? -1 : store.recentTurnsStart(input.sessionId, input.recentTurns);
      return {
        session,
        entries: store.journal(input.sessionId, { afterSeq: from - 1 }),
        complete: from <= 0,
        branchPoints: runtime.branchPoints(input.sessionId),
      };
    },
    'session:resume': (input) => runtime.resume(input.sessionId),
    'session:discard': (input) => runtime.discard(input.sessionId),
    'session:tree': (input) => {
      existing(input.sessionId);
      return runtime.tree(input.sessionId);
    },
    'session:export': (input) => deps.transfer.exportSession(input.sessionId, { raw: input.raw === true }),
    'session:import': async (input) => {
      // The file's folder is kept only where the person chose it here, or a session has it already.
      const session = await deps.transfer.importSession(input.document, (path) => deps.chosenPaths.has(path, knownWorkspaces(store)));
      runtime.announceSession(session.id);
      return session;
    },
    'session:setModel': (input) => runtime.sessions.setModel(input.sessionId, input.model),
    'session:setAutonomy': (input) => runtime.sessions.setAutonomy(input.sessionId, input.autonomy),
    'session:subAgents': (input) => {
      existing(input.sessionId);
      return runtime.subAgents.of(input.sessionId);
    },
    'session:stats': (input) => {
      existing(input.sessionId);
      // What the session spent, its sub-agents' work included.
      return accounting.totals(input.sessionId, 'with_sub_agents');
    },
    'session:compact': (input) => ({ turnId: runtime.compact(input.sessionId, input.instructions ?? null) }),

    'message:edit': async (input) =>
      input.filesBack
        ? runtime.editMessageWithFiles(input.sessionId, input.messageId, input.text, input.overwriteConflicts ?? false)
        : { ...runtime.editMessage(input.sessionId, input.messageId, input.text), files: null },
    'turn:retry': (input) => runtime.retryTurn(input.sessionId, input.turnId),
    'branch:list': (input) => {
      existing(input.sessionId);
      return {
        activeBranchId: store.activeBranch(input.sessionId),
        branches: store.branches(input.sessionId),
        points: runtime.branchPoints(input.sessionId),
      };
    },
    'branch:switch': (input) => runtime.switchBranch(input.sessionId, input.branchId),
    'checkpoint:preview': (input) => runtime.previewFiles(input.sessionId, input.checkpointId),
    'checkpoint:restore': (input) => runtime.restore(input.sessionId, input.checkpointId, input.mode, input.overwriteConflicts ?? false),
    'checkpoint:undoRestore': (input) => runtime.undoRestore(input.sessionId, input.restoreId),
    'changes:list': (input) => runtime.listChanges(existing(input.sessionId).id, input.turnId ?? null),
    'changes:diff': (input) => runtime.diffChange(existing(input.sessionId).id, input.turnId ?? null, input.path),
    'changes:revert': (input) => runtime.revertChange(existing(input.sessionId).id, input.turnId ?? null, input.path, input.hunks ?? null),
  };
}
