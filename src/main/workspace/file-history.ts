/*
 * Snapshots of a workspace's files in SQLite, and their restore: each content kept once by its hash, and per snapshot
 * the paths that changed.
 */

import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Database, Statement } from 'better-sqlite3';
import { WorkbenchError } from '../../shared/errors';
import type { FileChange } from '../../shared/file-history';
import type { FileHistory, FileSnapshotInfo } from '../agent/ports/ports';
import { readAllSync } from './fd-read';
import { walk } from './file-walk';
import { PathRefusedError } from './path-text';
import { WorkspaceFiles } from './workspace-files';
import { differences, type Manifest, type SnapshotEntry } from './snapshot-manifest';

export type { SnapshotEntry } from './snapshot-manifest';

type Entry = SnapshotEntry;
interface SnapshotRow {
  id: string;
  session_id: string;
  workspace_path: string;
  kind: string;
  created_at: number;
  base_id: string | null;
  depth: number;
  truncated: number;
  manifest: string;
}

export interface FileHistoryLimits {
  /** Files larger than this are listed but not kept. */
  readonly maxFileBytes: number;
  /** New content one snapshot may add; past it, files are listed but not kept. */
  readonly maxSnapshotBytes: number;
  readonly maxFiles: number;
}

export const defaultFileHistoryLimits: FileHistoryLimits = {
  maxFileBytes: 10 * 1024 * 1024,
  maxSnapshotBytes: 256 * 1024 * 1024,
  maxFiles: 50_000,
};

/**
 * Folders are listed too, by their path with a trailing `/` and this in place of a hash, so a
 * restore can remove the folders made after a snapshot and make the ones removed.
 */
export const folderHash = 'folder';
/** Present in every list that includes folders: lists saved before folders were listed say nothing of them. */
export const listsFolders = '/';

/** A full file list every this many snapshots, so reading one back applies few deltas. */
const fullEvery = 32;

/** How long a scan reads before it lets other work run. */
const yieldEveryMs = 10;

type CaptureInput = Parameters<FileHistory['capture']>[0];

interface StatKey {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly hash: string;
}

/**
 * Snapshots of a workspace's files in SQLite: each file's content once, by its SHA-256, and per
 * snapshot the list of paths that changed since the one before. Walks honour .gitignore and never
 * enter `.git`; links are neither saved nor touched. Files are hashed again only when their size,
 * times or inode changed. Reads and writes go the way the file tools go (`WorkspaceReader`,
 * `WorkspaceFiles`): from the real root, one name at a time, never through a link that leads out,
 * so a folder swapped for a link neither brings outside files in nor sends a restore out.
 */
export class SqliteFileHistory implements FileHistory {
  private readonly statements: {
    latest: Statement<[string], { id: string }>;
    row: Statement<[string], SnapshotRow>;
    insert: Statement<[SnapshotRow]>;
    hasBlob: Statement<[string], { one: number }>;
    insertBlob: Statement<[string, number, Buffer]>;
    blob: Statement<[string], { data: Buffer }>;
  };
  private readonly stats = new Map<string, StatKey>();
  private inFlight = 0;

  constructor(
    private readonly db: Database,
    private readonly limits: FileHistoryLimits = defaultFileHistoryLimits,
    /** Folders never saved nor touched, such as the app's own data folder when it lies in a workspace. */
    private readonly excluded: readonly string[] = [],
  ) {
    this.statements = {
      latest: db.prepare('SELECT id FROM file_snapshots WHERE session_id = ? ORDER BY id DESC LIMIT 1'),
      row: db.prepare('SELECT * FROM file_snapshots WHERE id = ?'),
      insert: db.prepare(
        'INSERT INTO file_snapshots (id, session_id, workspace_path, kind, created_at, base_id, depth, truncated, manifest) VALUES (@id, @session_id, @workspace_path, @kind, @created_at, @base_id, @depth, @truncated, @manifest)',
      ),
      hasBlob: db.prepare('SELECT 1 AS one FROM file_blobs WHERE hash = ?'),
      insertBlob: db.prepare('INSERT OR IGNORE INTO file_blobs (hash, size, data) VALUES (?, ?, ?)'),
      blob: db.prepare('SELECT data FROM file_blobs WHERE hash = ?'),
    };
  }

  latest(sessionId: string): string | null {
    return this.statements.latest.get(sessionId)?.id ?? null;
  }

  workspaceOf(snapshotId: string): string | null {
    return this.statements.row.get(snapshotId)?.workspace_path ?? null;
  }

  /** Captures running now: their content is saved before the snapshot that refers to it (see `collectFileContents`). */
  get capturing(): boolean {
    return this.inFlight > 0;
  }

  async capture(input: CaptureInput): Promise<FileSnapshotInfo> {
    this.inFlight += 1;
    try {
      return await this.captureNow(input);
    } finally {
      this.inFlight -= 1;
    }
  }

  private async captureNow(input: CaptureInput): Promise<FileSnapshotInfo> {
    const previousId = this.latest(input.sessionId);
    const previousRow = previousId ? (this.statements.row.get(previousId) ?? null) : null;
    const previous = previousRow && previousRow.workspace_path === input.workspacePath ? this.manifest(previousRow.id) : null;
    const { manifest, truncated } = await this.scan(input.workspacePath, true);
    const changed = previous ? differences(previous.manifest, manifest) : [];
    const skipped = [...manifest.values()].filter((entry) => entry.hash === null).length;
    const files = [...manifest.values()].filter((entry) => entry.hash !== folderHash).length;
    // Against a list saved before folders were listed, every folder would look new: only files count as changed then.
    const foldersBefore = previous?.manifest.has(listsFolders) ?? true;
    const shown = changed.filter((path) => path !== listsFolders && (foldersBefore || !path.endsWith('/')));
    if (previousRow && previous && changed.length === 0 && input.kind === 'step') {
      return { snapshotId: previousRow.id, files, changed: shown, skipped, reused: true };
    }
    const delta = previousRow && previous && previousRow.depth + 1 < fullEvery;
    const stored: Array<[string, Entry | null]> = delta
      ? changed.map((path) => [path, manifest.get(path) ?? null])
      : [...manifest.entries()];
    this.statements.insert.run({
      id: input.id,
      session_id: input.sessionId,
      workspace_path: input.workspacePath,
      kind: input.kind,
      created_at: input.at,
      base_id: delta ? previousRow.id : null,
      depth: delta ? previousRow.depth + 1 : 0,
      truncated: truncated ? 1 : 0,
      manifest: JSON.stringify(stored),
    });
    return { snapshotId: input.id, files, changed: shown, skipped, reused: false };
  }

  async preview(input: { workspacePath: string; targetId: string; expectedId: string | null }): Promise<FileChange[]> {
    return (await this.plan(input)).map(({ change }) => change);
  }

  async restore(input: {
    workspacePath: string;
    targetId: string;
    expectedId: string | null;
    overwriteConflicts: boolean;
  }): Promise<{ written: string[]; deleted: string[]; kept: string[]; refused: string[] }> {
    const plan = await this.plan(input);
    // The same walk as the file tools: from the real root, never through a link that leads out, never into .git or the app's data.
    const files = new WorkspaceFiles(input.workspacePath, { protectedRoots: this.excluded });
    const apply = plan.filter(({ change }) => change.available && (!change.conflict || input.overwriteConflicts));
    const kept = plan.filter((item) => !apply.includes(item)).map(({ change }) => change.path);
    const written: string[] = [];
    const refused: string[] = [];
    // Folders the snapshot had and nothing written goes into (writes make their own folders), so an empty one comes back too...
    const made = apply.filter(({ change }) => change.change !== 'delete').map(({ change }) => change.path);
    for (const { change } of apply) {
      if (change.kind !== 'folder' || change.change !== 'create') continue;
      if (made.some((path) => path.startsWith(`${change.path}/`))) continue;
      if (attempt(change.path, 'write', refused, () => files.putFolder(change.path))) written.push(`${change.path}/`);
    }
    // ...then every write, each to a temporary file renamed into place...
    for (const { change, target } of apply) {
      if (change.kind === 'folder' || change.change === 'delete' || !target?.hash) continue;
      const data = this.statements.blob.get(target.hash)?.data;
      if (!data) throw new WorkbenchError('store_corrupt', `The saved content of ${change.path} is missing.`);
      const mode = target.mode & 0o777;
      if (attempt(change.path, 'write', refused, () => files.put(change.path, data, mode))) written.push(change.path);
    }
    // ...and only once all of them are in place, the deletions: files, then folders deepest first, each only when empty.
    const deleted: string[] = [];
    for (const { change } of apply) {
      if (change.kind === 'folder' || change.change !== 'delete') continue;
      if (attempt(change.path, 'delete', refused, () => files.removeFile(change.path))) deleted.push(change.path);
    }
    const folders = apply.filter(({ change }) => change.kind === 'folder' && change.change === 'delete').reverse();
    for (const { change } of folders) {
      const outcome = attempt(change.path, 'delete', refused, () => files.removeEmptyFolder(change.path));
      // A folder that still holds something (an ignored file, a file kept) stays.
      if (outcome === true) deleted.push(`${change.path}/`);
      else if (outcome === false) kept.push(`${change.path}/`);
    }
    return { written, deleted, kept, refused };
  }

  private async plan(input: {
    workspacePath: string;
    targetId: string;
    expectedId: string | null;
  }): Promise<Array<{ change: FileChange; target: Entry | undefined }>> {
    const target = this.manifest(input.targetId);
    const expected = input.expectedId ? this.manifest(input.expectedId).manifest : null;
    const { manifest: current } = await this.scan(input.workspacePath, false);
    const paths = [...new Set([...target.manifest.keys(), ...current.keys()])].sort();
    // A list saved before folders were listed says nothing of them: they are left as they are.
    const foldersKnown = target.manifest.has(listsFolders);
    const plan: Array<{ change: FileChange; target: Entry | undefined }> = [];
    for (const key of paths) {
      const folder = key.endsWith('/');
      if (key === listsFolders || (folder && !foldersKnown)) continue;
      const path = folder ? key.slice(0, -1) : key;
      const wanted = target.manifest.get(key);
      const now = current.get(key);
      if (wanted && now && wanted.hash !== null && wanted.hash === now.hash) continue;
      // A snapshot that stopped listing at its limit says nothing of the files past it.
      if (!wanted && target.truncated) continue;
      const change: FileChange['change'] = wanted && now ? 'modify' : wanted ? 'create' : 'delete';
      const seen = expected ? (expected.get(key)?.hash ?? null) : (now?.hash ?? null);
      // Changed since the agent last saw it, or too large to have been saved: the person's, so kept by default.
      const conflict = (now !== undefined && now.hash === null) || (now?.hash ?? null) !== seen;
      const available = wanted ? wanted.hash !== null : now?.hash !== null;
      plan.push({ change: { path, kind: folder ? 'folder' : 'file', change, conflict, available }, target: wanted });
    }
    return plan;
  }

  /** A snapshot's list: files by path, folders by path with a trailing `/` (see `folderHash`). */
  listOf(id: string): ReadonlyMap<string, SnapshotEntry> {
    return this.manifest(id).manifest;
  }

  /** Saved content by its hash; null when none is saved. */
  content(hash: string): Buffer | null {
    return this.statements.blob.get(hash)?.data ?? null;
  }

  /** What is at each path on disk now, hashed as a snapshot would be, saving nothing; null where nothing readable is. */
  async entriesNow(workspacePath: string, paths: readonly string[]): Promise<Map<string, SnapshotEntry | null>> {
    const root = resolve(workspacePath);
    const reader = new WorkspaceFiles(root).reader();
    const found = new Map<string, SnapshotEntry | null>();
    try {
      for (const path of paths) {
        if (path.endsWith('/')) {
          const folder = await reader.list(path.slice(0, -1)).then(
            () => true,
            () => false,
          );
          found.set(path, folder ? { hash: folderHash, size: 0, mode: 0 } : null);
        } else
          found.set(
            path,
            reader.withPlainFile(path, (fd, info) => this.entryOf(`${root}\0${path}`, fd, info, null)),
          );
      }
      return found;
    } finally {
      reader.close();
    }
  }

  /** A snapshot's whole file list, put together from its full base and the deltas after it. */
  private manifest(id: string): { manifest: Manifest; truncated: boolean } {
    const chain: SnapshotRow[] = [];
    for (let row = this.statements.row.get(id); row; row = row.base_id ? this.statements.row.get(row.base_id) : undefined) {
      chain.unshift(row);
      if (chain.length > fullEvery + 1) throw new WorkbenchError('store_corrupt', `The file snapshot ${id} has a broken chain.`);
    }
    const first = chain[0];
    if (!first || first.base_id !== null) throw new WorkbenchError('not_found', `File snapshot "${id}" does not exist.`);
    const manifest: Manifest = new Map();
    for (const row of chain) {
      for (const [path, entry] of JSON.parse(row.manifest) as Array<[string, Entry | null]>) {
        if (entry) manifest.set(path, entry);
        else manifest.delete(path);
      }
    }
    return { manifest, truncated: chain.at(-1)?.truncated === 1 };
  }

  /**
   * The workspace's files now, hashed; with `store`, their content is saved too (within the limits).
   * Folders and files are opened from the real root one name at a time without following a link
   * (`WorkspaceReader`), and each file is looked at and read through one descriptor, so a folder
   * swapped for a link meanwhile cannot bring in a file from elsewhere. Links are skipped.
   */
  private async scan(workspacePath: string, store: boolean): Promise<{ manifest: Manifest; truncated: boolean }> {
    const root = resolve(workspacePath);
    const reader = new WorkspaceFiles(root).reader();
    try {
      const { entries, truncated } = await walk({ start: reader.root, root: reader.root, maxEntries: this.limits.maxFiles, reader });
      const manifest: Manifest = new Map();
      const budget = { left: this.limits.maxSnapshotBytes };
      const excluded = this.excluded.map((folder) => resolve(folder) + sep);
      let since = performance.now();
      for (const entry of entries) {
        // A folder's path ends with `/`, so the excluded folder itself is left out with what it holds.
        if (excluded.some((folder) => join(root, entry.path).startsWith(folder))) continue;
        if (entry.directory) {
          manifest.set(entry.path, { hash: folderHash, size: 0, mode: 0 });
          continue;
        }
        const found = reader.withPlainFile(entry.path, (fd, info) =>
          this.entryOf(`${root}\0${entry.path}`, fd, info, store ? budget : null),
        );
        if (found) manifest.set(entry.path, found);
        // The reads are synchronous: let the rest of the main process run every few milliseconds, as awaited reads did.
        if (performance.now() - since > yieldEveryMs) {
          await new Promise((resume) => setImmediate(resume));
          since = performance.now();
        }
      }
      manifest.set(listsFolders, { hash: folderHash, size: 0, mode: 0 });
      return { manifest, truncated };
    } finally {
      reader.close();
    }
  }

  /**
   * One open plain file as a snapshot lists it: hashed again only when its size, times or inode
   * changed; null when it cannot be read (it is left out, as before). A failure to save it throws.
   */
  private entryOf(key: string, fd: number, info: Stats, budget: { left: number } | null): Entry | null {
    const cached = this.stats.get(key);
    if (
      cached &&
      cached.size === info.size &&
      cached.mtimeMs === info.mtimeMs &&
      cached.ctimeMs === info.ctimeMs &&
      cached.ino === info.ino &&
      (!budget || this.statements.hasBlob.get(cached.hash))
    )
      return { hash: cached.hash, size: info.size, mode: info.mode };
    if (info.size > this.limits.maxFileBytes || (budget && info.size > budget.left))
      return { hash: null, size: info.size, mode: info.mode };
    // One byte past the limit tells a file that grew since fstat from one that fits.
    let data: Buffer;
    try {
      data = readAllSync(fd, this.limits.maxFileBytes + 1);
    } catch {
      return null;
    }
    if (data.length > this.limits.maxFileBytes) return { hash: null, size: data.length, mode: info.mode };
    const hash = createHash('sha256').update(data).digest('hex');
    if (budget && !this.statements.hasBlob.get(hash)) {
      this.statements.insertBlob.run(hash, data.length, data);
      budget.left -= data.length;
    }
    this.stats.set(key, { size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino, hash });
    return { hash, size: info.size, mode: info.mode };
  }
}

/**
 * Makes one change of a restore. A path refused on the way (a link in the way that leads out or
 * to nothing, a .git folder, the app's data, a place that changed while it was opened) is listed
 * in `refused` and the restore goes on; any other failure stops it.
 */
function attempt<T>(path: string, doing: 'write' | 'delete', refused: string[], change: () => T): T | null {
  try {
    return change();
  } catch (error) {
    if (error instanceof PathRefusedError) {
      refused.push(path);
      return null;
    }
    throw new WorkbenchError('internal', `Could not ${doing} ${path}: ${(error as Error).message}`, { cause: error });
  }
}
