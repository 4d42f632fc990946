/*
 * Sessions exported to a versioned document and imported again, with the checks every import has.
 */
import { autonomySchema, busyStatuses, type Autonomy, type Session, type SubAgentLink } from '../../../shared/domain';
import { InvalidInputError, NotFoundError, StoreError, WorkbenchError } from '../../../shared/errors';
import { eventFormatVersion, runtimeEventSchema, type RuntimeEvent } from '../../../shared/events';
import {
  maxExportedSubAgents,
  sessionExportFormat,
  sessionExportSchema,
  sessionExportVersion,
  sessionFileSuffix,
  type SessionExport,
  type SessionExportPart,
} from '../../../shared/session-export';
import type { CheckpointRef, CheckpointStore } from '../ports/checkpoints';
import type { Clock } from '../ports/clock';
import type { WorkspaceInspector } from '../ports/ports';
import { branchLine, headsOfBranches } from './branching';
import { redactValue } from './secret-redaction';
import type { ImportedSession, SessionStore } from '../ports/stores';

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

  /**
   * The session as a document. What looks like a secret (API keys, tokens, private keys, `.env` values) is replaced with
   * a marker unless `raw` is asked for; `redacted` says how many were.
   */
  exportSession(sessionId: string, options: { raw?: boolean } = {}): { fileName: string; document: string; redacted: number } {
    const { store, clock, appVersion } = this.options;
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    // Its sub-agents, each after the session it works for, at every depth.
    const subAgents: SessionExportPart[] = [];
    const walk = (parentId: string): void => {
      for (const child of store.subAgents(parentId)) {
        if (subAgents.length >= maxExportedSubAgents)
          throw new WorkbenchError(
            'invalid_state',
            `This session's sub-agents are more than an export holds (${maxExportedSubAgents}); nothing was exported.`,
          );
        subAgents.push(this.partOf(child));
        walk(child.id);
      }
    };
    walk(sessionId);
    const whole: SessionExport = {
      format: sessionExportFormat,
      version: sessionExportVersion,
      exportedAt: clock.now(),
      appVersion,
      ...this.partOf(session),
      ...(subAgents.length > 0 ? { subAgents } : {}),
    };
    const { value: document, count: redacted } = options.raw ? { value: whole, count: 0 } : redactValue(whole);
    const safeTitle =
      session.title
        .replace(/[^A-Za-z0-9 _-]+/g, '')
        .trim()
        .slice(0, 60) || 'session';
    return { fileName: `${safeTitle}${sessionFileSuffix}`, document: JSON.stringify(document, null, 1), redacted };
  }

  /** One session as the export holds it: the session, its branches, its whole journal and its checkpoints. */
  private partOf(session: Session): SessionExportPart {
    const { store, checkpoints } = this.options;
    return {
      session: {
        id: session.id,
        title: session.title,
        workspacePath: session.workspacePath,
        model: session.model,
        autonomy: session.autonomy,
        status: session.status,
        createdAt: session.createdAt,
        updatedAt: session.updatedAt,
        ...(session.subAgent ? { subAgent: session.subAgent } : {}),
      },
      activeBranchId: store.activeBranch(session.id),
      branches: store.branches(session.id),
      journal: store
        .allRows(session.id)
        .map((row) => ({ seq: row.seq, at: row.at, branchId: row.branchId, format: row.format, event: row.event })),
      checkpoints: checkpoints.records(session.id).map((record) => ({
        id: record.id,
        parentId: record.parentId,
        seq: record.seq,
        createdAt: record.createdAt,
        metadata: record.metadata,
        appended: [...record.delta.appended],
        ...(record.delta.state ? { state: { ...record.delta.state } } : {}),
      })),
    };
  }

  /**
   * Imports a session, and the sub-agents it carries, as new ones. What the file says was approved is never taken
   * (see `session_imported`); the session starts at the lower of the file's autonomy and the default here, and keeps
   * its workspace only when that folder exists on this machine (and `keepFolder` accepts it: the window's file cannot
   * name a folder the person never chose); its sub-agents follow it. A notice in the conversation says what was changed.
   * The whole file is checked before anything is written, and lands in one transaction.
   */
  async importSession(text: string, keepFolder: (path: string) => boolean = () => true): Promise<Session> {
    const { store, checkpoints, newId } = this.options;
    const document = parseDocument(text);
    const parts = [document, ...(document.subAgents ?? [])];
    const rowsOf = parts.map(rowsOfPart);
    for (const part of parts) checkShape(part);
    // Each sub-agent works for a session that comes before it in the file: the tree is whole and has no circle.
    const ids = new Map<string, string>([[document.session.id, newId()]]);
    for (const part of document.subAgents ?? []) {
      const link = part.session.subAgent;
      if (!link) throw new InvalidInputError(`Sub-agent ${part.session.id} of the export does not say which session it works for.`);
      if (!ids.has(link.parentSessionId))
        throw new InvalidInputError(`Sub-agent ${part.session.id} works for a session that does not come before it in the export.`);
      if (ids.has(part.session.id)) throw new InvalidInputError(`Two sessions of the export have the id ${part.session.id}.`);
      ids.set(part.session.id, newId());
    }
    const found = await this.folderHere(document.session.workspacePath);
    const workspacePath = found !== null && keepFolder(found) ? found : null;
    const defaultAutonomy = this.options.defaultAutonomy();
    const autonomy = autonomyRank(document.session.autonomy) <= autonomyRank(defaultAutonomy) ? document.session.autonomy : defaultAutonomy;
    const prepared = parts.map((part, index) => {
      const link = index === 0 ? undefined : part.session.subAgent;
      return this.prepare(part, rowsOf[index] ?? [], {
        id: ids.get(part.session.id) ?? newId(),
        workspacePath,
        // A sub-agent starts no higher than the session it works for, nor than its own in the file.
        autonomy: autonomyRank(part.session.autonomy) <= autonomyRank(autonomy) ? part.session.autonomy : autonomy,
        // A model from an endpoint not configured here falls back to the default.
        model: part.session.model && this.options.providerExists(part.session.model.providerId) ? part.session.model : null,
        ...(link ? { subAgent: { ...link, parentSessionId: ids.get(link.parentSessionId) ?? link.parentSessionId } } : {}),
      });
    });
    return store.transaction(() => {
      const [first] = prepared.map((part) => {
        const session = store.importSession(part.imported);
        const refs = new Map<string, CheckpointRef>();
        for (const checkpoint of part.checkpoints) {
          const parent = checkpoint.parentId === null ? null : (refs.get(checkpoint.parentId) ?? null);
          const delta = checkpoint.state ? { appended: checkpoint.appended, state: checkpoint.state } : { appended: checkpoint.appended };
          refs.set(checkpoint.id, checkpoints.put(parent, session.id, delta, checkpoint.metadata, checkpoint.id));
        }
        return session;
      });
      if (!first) throw new InvalidInputError('The session export holds no session.');
      return first;
    });
  }

  /**
   * One session of the file as it is written here: its id, folder, autonomy and model as decided for the import, a
   * notice ending each line the file left unfinished or the shown one when anything was changed, and a turn the file
   * has running interrupted.
   */
  private prepare(
    part: SessionExportPart,
    fileRows: readonly ImportRow[],
    here: {
      id: string;
      workspacePath: string | null;
      autonomy: Autonomy;
      model: SessionExportPart['session']['model'];
      subAgent?: SubAgentLink;
    },
  ): { imported: ImportedSession; checkpoints: SessionExportPart['checkpoints'] } {
    const now = this.options.clock.now();
    const heads = headsOfBranches(part.branches, fileRows);
    const isOpen = (branchId: string): boolean => (heads.get(branchId)?.openTurn ?? null) !== null;
    const notes = importNotes({
      open: part.branches.some((branch) => isOpen(branch.id)),
      autonomy: { file: part.session.autonomy, here: here.autonomy },
      workspace: { file: part.session.workspacePath, here: here.workspacePath },
    });
    // The notice ends the shown line, and every line with an unfinished turn, so the fold drops what the file approved.
    // An import that changed nothing gets none: its journal is the file's.
    let nextSeq = fileRows.reduce((highest, row) => Math.max(highest, row.seq), -1) + 1;
    const imported: RuntimeEvent = { type: 'session_imported', message: notes.join(' ') };
    const marks = notes.length === 0 ? [] : part.branches.filter((branch) => branch.id === part.activeBranchId || isOpen(branch.id));
    const markRows = marks.map((branch) => ({ seq: nextSeq++, at: now, branchId: branch.id, event: imported }));
    // A turn the file has running or waiting is interrupted here: the person resumes or discards it.
    const status = busyStatuses.has(part.session.status) ? 'interrupted' : part.session.status;
    const interrupted: RuntimeEvent = { type: 'status_changed', status };
    const statusRow =
      status === part.session.status ? [] : [{ seq: nextSeq++, at: now, branchId: part.activeBranchId, event: interrupted }];
    const rows = [...fileRows, ...markRows, ...statusRow];
    const { title, createdAt } = part.session;
    return {
      imported: {
        session: {
          title,
          createdAt,
          id: here.id,
          workspacePath: here.workspacePath,
          autonomy: here.autonomy,
          model: here.model,
          status,
          updatedAt: Math.max(part.session.updatedAt, now),
          ...(here.subAgent ? { subAgent: here.subAgent } : {}),
        },
        branches: part.branches,
        activeBranchId: part.activeBranchId,
        rows,
        // Folded here from the rows as written, so nothing is replayed from disk later.
        heads: headsOfBranches(part.branches, rows),
      },
      checkpoints: part.checkpoints,
    };
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

type ImportRow = { seq: number; at: number; branchId: string; event: RuntimeEvent };

/** A part's rows, each checked: written by this app's event format or an older one, and a valid event. */
function rowsOfPart(part: SessionExportPart): ImportRow[] {
  return part.journal.map((row) => {
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
function checkShape(document: SessionExportPart): void {
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
