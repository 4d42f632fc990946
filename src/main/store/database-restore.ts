/*
 * Putting a backup of the database back in its place when the database cannot be opened: only a backup that opens
 * now is offered, and the file it replaces is kept beside it, untouched.
 */

import { existsSync, renameSync, rmSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3-multiple-ciphers';
import { StoreError, WorkbenchError, toErrorInfo } from '../../shared/errors';
import { databaseFileState, durableCopy, schemaBackups } from './database-conversion';
import { applyKey } from './database-key';

/** A backup kept beside the database that opens as it is now. */
export interface RestorableBackup {
  readonly path: string;
  /** When it was taken (ms since the epoch), from its name. */
  readonly takenAt: number;
  /** The schema it was written with; a restore brings it up to date when the app opens it. */
  readonly schemaVersion: number;
}

const sidecars = ['-wal', '-shm'] as const;

/** When a backup named `<file>.backup-v<version>-<time>` was taken. */
const takenAtOf = (backup: string): number => Number(/-(\d+)$/.exec(backup)?.[1] ?? 0);

/**
 * The schema version of a backup when it opens (plainly, or with `key` when it is encrypted) and its pages check out;
 * null when it does not, or was written by a newer app than `newestSchema`.
 */
function openingVersion(backup: string, key: Buffer | null, newestSchema: number): number | null {
  const state = databaseFileState(backup);
  if (state === 'absent' || (state === 'opaque' && key === null)) return null;
  let db: BetterSqlite3.Database | null = null;
  try {
    db = new BetterSqlite3(backup, { readonly: true, fileMustExist: true });
    if (state === 'opaque' && key !== null) applyKey(db, key);
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > newestSchema) return null;
    return db.pragma('quick_check(1)', { simple: true }) === 'ok' ? version : null;
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

/**
 * The backups kept beside the database at `path` that open now, newest first: plain ones, and encrypted ones that
 * `key` opens. A backup of a newer app, a damaged one or one needing another key is not offered.
 */
export function restorableBackups(path: string, key: Buffer | null, newestSchema: number): RestorableBackup[] {
  const found: RestorableBackup[] = [];
  for (const backup of schemaBackups(path)) {
    const schemaVersion = openingVersion(backup, key, newestSchema);
    if (schemaVersion !== null) found.push({ path: backup, takenAt: takenAtOf(backup), schemaVersion });
  }
  return found.sort((a, b) => b.takenAt - a.takenAt);
}

/** A name beside the database, not yet taken, for the file a restore sets aside. */
function setAsideName(path: string, now: number): string {
  let candidate = `${path}.unopened-${now}`;
  for (let count = 2; [candidate, ...sidecars.map((suffix) => `${candidate}${suffix}`)].some(existsSync); count += 1) {
    candidate = `${path}.unopened-${now}-${count}`;
  }
  return candidate;
}

/**
 * Puts `backup` (one of `restorableBackups`, checked again here) in place of the database at `path`. The database file
 * and its write-ahead log are renamed aside first (`<file>.unopened-<time>`), never removed or written, and the backup
 * is copied whole, so it stays where it was. Where the copy fails, the set-aside file goes back in place. Returns the
 * name the database was set aside under.
 */
export function restoreBackup(path: string, backup: string, key: Buffer | null, newestSchema: number, now: number): string {
  if (!restorableBackups(path, key, newestSchema).some((candidate) => candidate.path === backup)) {
    throw new WorkbenchError('invalid_state', `${backup} is not a backup of ${path} that opens now; nothing was changed.`);
  }
  const aside = setAsideName(path, now);
  const moved: Array<[string, string]> = [];
  const putBack = (): void => {
    for (const [from, to] of moved.reverse()) renameSync(to, from);
  };
  try {
    for (const suffix of ['', ...sidecars]) {
      if (!existsSync(`${path}${suffix}`)) continue;
      renameSync(`${path}${suffix}`, `${aside}${suffix}`);
      moved.push([`${path}${suffix}`, `${aside}${suffix}`]);
    }
    durableCopy(backup, path);
  } catch (error) {
    try {
      rmSync(`${path}.partial`, { force: true });
    } catch {
      // Not a file of the copy's (a folder of that name): left as it is.
    }
    putBack();
    throw new StoreError(
      'store_unavailable',
      `The backup could not be put in place (${toErrorInfo(error).message}); the database was left as it was.`,
      {
        cause: error,
      },
    );
  }
  return aside;
}
