/*
 * The other interfaces the runtime is given: providers, workspace folders, file history and changes, and its
 * listener.
 */
import type { ContextWindow, ModelCheck, ModelChoice, ProviderKind, Session } from '../../../shared/domain';
import type { FileChange } from '../../../shared/file-history';
import type { ChangedFile, FileDiff } from '../../../shared/changes';
import type { JournalEntry, ToolCallDraftEvent } from '../../../shared/events';
import type { ModelProvider } from './model-provider';

/** Finds the provider for a model choice (endpoint settings and key). Throws a typed error when it cannot. */
export interface ProviderResolver {
  resolve(choice: ModelChoice): ModelProvider;
  /** The endpoint behind a choice, for pricing and accounting. */
  describe(choice: ModelChoice): { kind: ProviderKind; baseUrl: string };
  /** The model used when a session has none chosen. */
  defaultModel(): ModelChoice | null;
  /**
   * The window to budget a model's requests with: the person's setting, else what the server says
   * it loaded, else a safe default, with where the figure comes from. Never throws.
   */
  window(choice: ModelChoice, signal: AbortSignal): Promise<ContextWindow>;
}

/** Checks a folder the person chose as a workspace. Throws `InvalidInputError` when it is not one. */
export interface WorkspaceInspector {
  resolveFolder(path: string): Promise<string>;
}

/** Where the runtime announces what happened, after it is journalled. */
export interface RuntimeListener {
  onEntries(sessionId: string, entries: readonly JournalEntry[]): void;
  /** Tool calls the model is writing, shown live and never saved; a listener that shows nothing live leaves it out. */
  onDrafts?(sessionId: string, drafts: readonly ToolCallDraftEvent[]): void;
  onSessionChanged(change: { session: Session } | { deletedSessionId: string }): void;
}

/** A saved state of a workspace's files. */
export interface FileSnapshotInfo {
  readonly snapshotId: string;
  readonly files: number;
  /** Paths that differ from the session's previous snapshot. */
  readonly changed: readonly string[];
  readonly skipped: number;
  /** Nothing changed since the previous snapshot, which is returned instead of a new one. */
  readonly reused: boolean;
}

/**
 * Time travel over a workspace's files: snapshots that store only what changed, a preview of what
 * bringing one back would do, and the restore itself. The person's own `.git` is never touched,
 * ignored files are never saved nor changed.
 */
export interface FileHistory {
  capture(input: { sessionId: string; workspacePath: string; id: string; at: number; kind: 'step' | 'safety' }): Promise<FileSnapshotInfo>;
  /** The newest snapshot of a session, or null. */
  latest(sessionId: string): string | null;
  preview(input: { workspacePath: string; targetId: string; expectedId: string | null }): Promise<FileChange[]>;
  /**
   * Writes the target's files, then (only once every write has succeeded) deletes the files the
   * target does not have. Conflicts are kept unless `overwriteConflicts`. A path that cannot be
   * reached safely (a link on the way that leads out, a .git folder) is left alone and listed in
   * `refused`; the rest go on.
   */
  restore(input: {
    workspacePath: string;
    targetId: string;
    expectedId: string | null;
    overwriteConflicts: boolean;
  }): Promise<{ written: string[]; deleted: string[]; kept: string[]; refused: string[] }>;
  /** Which workspace a snapshot was taken of. */
  workspaceOf(snapshotId: string): string | null;
}

/** Where a comparison of saved files runs: from the `baseId` snapshot to the `endId` one. */
export interface ChangeRange {
  readonly workspacePath: string;
  readonly baseId: string;
  readonly endId: string;
  /** The only paths to consider (folders with a trailing `/`): those the agent changed; null when not known, all of them. */
  readonly only: ReadonlySet<string> | null;
}

/**
 * What the agent changed between two snapshots of a workspace, path by path, and undoing part of
 * it on disk now. A revert writes only the one path it is asked for; the caller saves the state
 * before and after it, so it can itself be undone.
 */
export interface FileChanges {
  compare(range: ChangeRange): Promise<ChangedFile[]>;
  diff(range: ChangeRange, path: string): Promise<FileDiff>;
  /** Takes the change of one path back out of the file on disk: all of it, or only the hunks listed. */
  revert(
    range: ChangeRange,
    path: string,
    hunks: readonly number[] | null,
  ): Promise<{ written: string[]; deleted: string[]; kept: string[]; refused: string[] }>;
}

/** What checks of models found, kept per endpoint and model. */
export interface ModelCheckStore {
  get(providerId: string, model: string): ModelCheck | null;
  /** The checks of one endpoint, or of all, newest first. */
  list(providerId?: string): ModelCheck[];
  put(check: ModelCheck): void;
  /** Forgets an endpoint's checks (it was removed, or its address changed). */
  forget(providerId: string): void;
}
