/*
 * Sessions exported to a versioned document and imported again, with the checks every import has.
 */
import { autonomySchema, busyStatuses, type Autonomy, type Session } from '../../../shared/domain';
import { InvalidInputError, NotFoundError, StoreError, WorkbenchError } from '../../../shared/errors';
import { eventFormatVersion, runtimeEventSchema, type RuntimeEvent } from '../../../shared/events';
import {
  sessionExportFormat,
  sessionExportSchema,
  sessionExportVersion,
  sessionFileSuffix,
  type SessionExport,
} from '../../../shared/session-export';
import type { CheckpointRef, CheckpointStore } from '../ports/checkpoints';
import type { Clock } from '../ports/clock';
import type { WorkspaceInspector } from '../ports/ports';
import { branchLine, headsOfBranches } from './branching';
import type { SessionStore } from '../ports/stores';

export interface SessionTransferOptions {
  readonly store: SessionStore;
  readonly checkpoints: CheckpointStore;
  readonly clock: Clock;
  readonly newId: () => string;
  readonly appVersion: string;
  /** Whether a model endpoint is configured here: an imported session's model from elsewhere falls back to the default. */
  readonly providerExists: (providerId: string) => boolean;
  /** The autonomy new sessions start at here: an imported session never starts above it, whatever its file says. */
  readonly defaultAutonomy: () => Autonomy;
  /** Checks an imported session's workspace folder: it is kept only when it is a folder on this machine. */
  readonly workspaces: WorkspaceInspector;
}

/**
 * Sessions out to a versioned JSON document and back in. An import is checked whole before
 * anything is written, lands in one transaction, and always makes a new session: it never
 * replaces one.
 */
export class SessionTransfer {
  constructor(private readonly options: SessionTransferOptions) {}

  exportSession(sessionId: string): { fileName: string; document: string } {
    const { store, checkpoints, clock, appVersion } = this.options;
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    const document: SessionExport = {
      format: sessionExportFormat,
      version: sessionExportVersion,
      exportedAt: clock.now(),
      appVersion,
      session: {
        id: session.id,
        title: session.title,
        workspacePath: session.workspacePath,
        model: session.model,
        autonomy: session.autonomy,
        status: session.status,
        createdAt: session.createdAt,
        updatedAt: session.updatedAt,
      },
      activeBranchId: store.activeBranch(sessionId),
      branches: store.branches(sessionId),
      journal: store
        .allRows(sessionId)
        .map((row) => ({ seq: row.seq, at: row.at, branchId: row.branchId, format: row.format, event: row.event })),
      checkpoints: checkpoints.records(sessionId).map((record) => ({
        id: record.id,
        parentId: record.parentId,
        seq: record.seq,
        createdAt: record.createdAt,
        metadata: record.metadata,
        appended: [...record.delta.appended],
        ...(record.delta.state ? { state: { ...record.delta.state } } : {}),
      })),
    };
    const safeTitle =
      session.title
        .replace(/[^A-Za-z0-9 _-]+/g, '')
        .trim()
        .slice(0, 60) || 'session';
    return { fileName: `${safeTitle}${sessionFileSuffix}`, document: JSON.stringify(document, null, 1) };
  }

  /**
   * Imports a session as a new one. What the file says was approved is never taken (see
   * `session_imported`); the session starts at the lower of the file's autonomy and the default here,
   * and keeps its workspace only when that folder exists on this machine. A notice in the
   * conversation says what was changed.
   */
  async importSession(text: string): Promise<Session> {
    const { store, checkpoints, clock, newId } = this.options;
    const document = parseDocument(text);
    const fileRows = document.journal.map((row) => {
      if (row.format > eventFormatVersion)
        throw new StoreError(
          'store_newer_version',
          `Event ${row.seq} was written by a newer version of the app; update the app to import this session.`,
        );
      const parsed = runtimeEventSchema.safeParse(row.event);
      if (!parsed.success)
        throw new InvalidInputError(`Event ${row.seq} is not a valid event: ${parsed.error.issues[0]?.message ?? 'invalid'}.`);
      return { seq: row.seq, at: row.at, branchId: row.branchId, event: parsed.data as RuntimeEvent };
    });
    checkShape(document);
    const workspacePath = await this.folderHere(document.session.workspacePath);
    const defaultAutonomy = this.options.defaultAutonomy();
    const autonomy = autonomyRank(document.session.autonomy) <= autonomyRank(defaultAutonomy) ? document.session.autonomy : defaultAutonomy;
    const heads = headsOfBranches(document.branches, fileRows);
    const isOpen = (branchId: string): boolean => (heads.get(branchId)?.openTurn ?? null) !== null;
    const notes = importNotes({
      open: document.branches.some((branch) => isOpen(branch.id)),
      autonomy: { file: document.session.autonomy, here: autonomy },
      workspace: { file: document.session.workspacePath, here: workspacePath },
    });
    // The notice ends the shown line, and every line with an unfinished turn, so the fold drops what the file approved.
    // An import that changed nothing gets none: its journal is the file's.
    const now = clock.now();
    let nextSeq = fileRows.reduce((highest, row) => Math.max(highest, row.seq), -1) + 1;
    const imported: RuntimeEvent = { type: 'session_imported', message: notes.join(' ') };
    const marks =
      notes.length === 0 ? [] : document.branches.filter((branch) => branch.id === document.activeBranchId || isOpen(branch.id));
    const markRows = marks.map((branch) => ({ seq: nextSeq++, at: now, branchId: branch.id, event: imported }));
    // A turn the file has running or waiting is interrupted here: the person resumes or discards it.
    const status = busyStatuses.has(document.session.status) ? 'interrupted' : document.session.status;
    const interrupted: RuntimeEvent = { type: 'status_changed', status };
    const statusRow =
      status === document.session.status ? [] : [{ seq: nextSeq++, at: now, branchId: document.activeBranchId, event: interrupted }];
    const rows = [...fileRows, ...markRows, ...statusRow];
    const id = newId();
    return store.transaction(() => {
      const session = store.importSession({
        session: {
          ...document.session,
          id,
          workspacePath,
          autonomy,
          model: document.session.model && this.options.providerExists(document.session.model.providerId) ? document.session.model : null,
          status,
          updatedAt: Math.max(document.session.updatedAt, now),
        },
        branches: document.branches,
        activeBranchId: document.activeBranchId,
        rows,
        // Folded here from the rows as written, so nothing is replayed from disk later.
        heads: headsOfBranches(document.branches, rows),
      });
      const refs = new Map<string, CheckpointRef>();
      for (const checkpoint of document.checkpoints) {
        const parent = checkpoint.parentId === null ? null : (refs.get(checkpoint.parentId) ?? null);
        const delta = checkpoint.state ? { appended: checkpoint.appended, state: checkpoint.state } : { appended: checkpoint.appended };
        refs.set(checkpoint.id, checkpoints.put(parent, id, delta, checkpoint.metadata, checkpoint.id));
      }
      return session;
    });
  }

  /** The folder as it is on this machine, or null when it is not one here. */
  private async folderHere(path: string | null): Promise<string | null> {
    if (path === null) return null;
    try {
      return await this.options.workspaces.resolveFolder(path);
    } catch (error) {
      if (error instanceof InvalidInputError) return null;
      throw error;
    }
  }
}

/** What an import changed of the file, in words for the conversation's notice; empty when it changed nothing. */
function importNotes(change: {
  open: boolean;
  autonomy: { file: Autonomy; here: Autonomy };
  workspace: { file: string | null; here: string | null };
}): string[] {
  const { open, autonomy, workspace } = change;
  const notes = [
    ...(open
      ? [
          'Answers and plan approvals recorded in the file are not taken: when you resume, the calls it left unfinished are decided again here and wait for your answer where the rules ask.',
        ]
      : []),
    ...(autonomy.here === autonomy.file ? [] : [`It starts at autonomy ${autonomy.here}, not ${autonomy.file} as in the file.`]),
    ...(workspace.file !== null && workspace.here === null
      ? [
          `Its workspace folder ${workspace.file} does not exist on this machine, so it has no workspace; choose one before it works on files.`,
        ]
      : []),
  ];
  return notes.length === 0 ? [] : ['This session was imported from a file.', ...notes];
}

/** How far an autonomy level lets calls run without asking: L0 least. */
const autonomyRank = (level: Autonomy): number => autonomySchema.options.indexOf(level);

function parseDocument(text: string): SessionExport {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`This is not a session export: it is not JSON (${(error as Error).message}).`);
  }
  const format = (raw as { format?: unknown } | null)?.format;
  if (format !== sessionExportFormat) throw new InvalidInputError('This is not a session export of this app.');
  const version = (raw as { version?: unknown }).version;
  if (typeof version === 'number' && version > sessionExportVersion) {
    throw new StoreError(
      'store_newer_version',
      `This session was exported by a newer version of the app (format ${version}); update the app to import it.`,
    );
  }
  const parsed = sessionExportSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidInputError(`The session export is damaged at ${issue?.path.join('.') || 'its top'}: ${issue?.message ?? 'invalid'}.`);
  }
  return parsed.data;
}

/** Branches form one tree, rows belong to branches, checkpoints follow their parents. */
function checkShape(document: SessionExport): void {
  const ids = new Set(document.branches.map((branch) => branch.id));
  if (ids.size !== document.branches.length) throw new InvalidInputError('The session export has two branches with the same id.');
  if (document.branches.filter((branch) => branch.parentId === null).length !== 1)
    throw new InvalidInputError('The session export must have exactly one first branch.');
  for (const branch of document.branches) {
    if (branch.parentId !== null && !ids.has(branch.parentId))
      throw new InvalidInputError(`Branch ${branch.id} has a parent that is not in the export.`);
    try {
      branchLine(document.branches, branch.id);
    } catch (error) {
      throw new InvalidInputError(`The session export's branches: ${(error as Error).message}`);
    }
  }
  if (!ids.has(document.activeBranchId)) throw new InvalidInputError('The shown branch is not in the export.');
  const seqs = new Set<number>();
  for (const row of document.journal) {
    if (!ids.has(row.branchId)) throw new InvalidInputError(`Event ${row.seq} belongs to a branch that is not in the export.`);
    if (seqs.has(row.seq)) throw new InvalidInputError(`Two events have the number ${row.seq}.`);
    seqs.add(row.seq);
  }
  const seen = new Set<string>();
  for (const checkpoint of document.checkpoints) {
    if (checkpoint.parentId !== null && !seen.has(checkpoint.parentId))
      throw new InvalidInputError(`Checkpoint ${checkpoint.id} comes before its parent.`);
    if (seen.has(checkpoint.id)) throw new InvalidInputError(`Two checkpoints have the id ${checkpoint.id}.`);
    seen.add(checkpoint.id);
  }
  if (document.session.title.trim().length === 0) throw new WorkbenchError('invalid_input', 'The session has no title.');
}
