/*
 * Putting a backup of the database back in its place when the database cannot be opened: only a backup that opens
 * now is offered, and the file it replaces is kept beside it, untouched.
 */

import { copyFileSync, existsSync, linkSync, renameSync, rmSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3-multiple-ciphers';
import { StoreError, WorkbenchError, toErrorInfo } from '../../shared/errors';
import { databaseFileState, durableCopy, nameTaken, schemaBackups, sidecars, syncFile, syncFolder } from './database-conversion';
import { openWithKey } from './database-key';
import { whileAlone, type LockSystem } from './database-lock';

/** A backup kept beside the database that opens as it is now. */
export interface RestorableBackup {
  readonly path: string;
  /** When it was taken (ms since the epoch), from its name. */
  readonly takenAt: number;
  /** The schema it was written with; a restore brings it up to date when the app opens it. */
  readonly schemaVersion: number;
}

/** Removes a file of the restore's own, if it is there and can be; what cannot be removed is left. */
function discard(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // Not a file (a folder of that name): left as it is.
  }
}

/** When a backup named `<file>.backup-v<version>-<time>` was taken. */
export const takenAtOf = (backup: string): number => Number(/-(\d+)$/.exec(backup)?.[1] ?? 0);

/**
 * Opens a database file read-only, with `key` (in the cipher it was written with) when it is encrypted; null when it
 * cannot be (no key for it, a key that does not open it, not a file).
 */
function openReadOnly(file: string, key: Buffer | null): BetterSqlite3.Database | null {
  const state = databaseFileState(file);
  if (state === 'absent' || (state === 'opaque' && key === null)) return null;
  const options = { readonly: true, fileMustExist: true };
  if (state === 'opaque' && key !== null) return openWithKey(file, key, options)?.db ?? null;
  return new BetterSqlite3(file, options);
}

/** The schema version of an open database whose pages check out, or null; never newer than `newestSchema`. */
function checkedVersion(db: BetterSqlite3.Database, newestSchema: number): number | null {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > newestSchema) return null;
  return db.pragma('quick_check(1)', { simple: true }) === 'ok' ? version : null;
}

/**
 * The schema version of a backup when it opens (plainly, or with `key` when it is encrypted) and its pages check out,
 * its write-ahead log included; null when it does not, was written by a newer app, or cannot be read at all.
 */
function openingVersion(backup: string, key: Buffer | null, newestSchema: number): number | null {
  let db: BetterSqlite3.Database | null = null;
  try {
    db = openReadOnly(backup, key);
    return db ? checkedVersion(db, newestSchema) : null;
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

/**
 * The newest backup kept beside the database at `path` that opens now: a plain one, or an encrypted one `key` opens.
 * A backup of a newer app, a damaged one or one needing another key is passed over; null when none opens.
 */
export function newestRestorableBackup(path: string, key: Buffer | null, newestSchema: number): RestorableBackup | null {
  return restorableBackups(path, key, newestSchema, 1)[0] ?? null;
}

/** The backups kept beside the database at `path` that open now (as `newestRestorableBackup` checks), newest first, at most `limit`. */
export function restorableBackups(path: string, key: Buffer | null, newestSchema: number, limit = Infinity): RestorableBackup[] {
  const newestFirst = schemaBackups(path).sort((a, b) => takenAtOf(b) - takenAtOf(a));
  const found: RestorableBackup[] = [];
  for (const backup of newestFirst) {
    if (found.length >= limit) break;
    const schemaVersion = openingVersion(backup, key, newestSchema);
    if (schemaVersion !== null) found.push({ path: backup, takenAt: takenAtOf(backup), schemaVersion });
  }
  return found;
}

/** A name beside the database, not yet taken by it or its sidecars, for the files a restore sets aside. */
function setAsideName(path: string, now: number): string {
  let candidate = `${path}.unopened-${now}`;
  for (let count = 2; nameTaken(candidate); count += 1) {
    candidate = `${path}.unopened-${now}-${count}`;
  }
  return candidate;
}

/** Keeps `from` under the name `to` as well, without moving it: a second link, or a whole copy where links cannot be. */
function keepAlsoAs(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    durableCopy(from, to);
  }
}

/**
 * Writes the backup open as `source` (whose schema `expected` was checked), its write-ahead log folded in, as one whole
 * file at `to` (through SQLite, so it is encrypted as the backup is), and checks the copy opens with the same schema.
 */
function copyWhole(source: BetterSqlite3.Database, expected: number, to: string, key: Buffer | null, newestSchema: number): void {
  rmSync(to, { force: true });
  source.prepare('VACUUM INTO ?').run(to);
  const copy = openReadOnly(to, key);
  try {
    if (!copy || checkedVersion(copy, newestSchema) !== expected) {
      throw new WorkbenchError('invalid_state', 'The copy does not open as the backup does.');
    }
  } finally {
    copy?.close();
  }
  syncFile(to);
}

/** Who puts the backup back, as a process that has the database open is told; and the system the lock asks. */
export interface RestoreOptions {
  readonly holder?: string;
  readonly lockSystem?: LockSystem;
}

/**
 * Puts `backup` (a backup kept beside the database that opens now, checked again here, once) in place of the database at
 * `path`, with the database alone: refused with `store_in_use`, naming it, while another running process has it open
 * (its connection would go on with the file set aside, or write into the new one's place), and nothing is changed. The backup is first copied whole beside the database, its log folded in, and the copy checked. Then the
 * database and its sidecars are kept under `<file>.unopened-<time>` as well (links, so nothing is moved or written), the
 * sidecars leave the database's name, and the copy is renamed over it in one step. At every moment the database's name
 * holds the database or the copy, never nothing, so a crash never leaves the app to make a new, empty one. The backup
 * stays where it was. Returns the name the database was kept under.
 */
export function restoreBackup(
  path: string,
  backup: string,
  key: Buffer | null,
  newestSchema: number,
  now: number,
  options: RestoreOptions = {},
): string {
  const put = (): string => putBack(path, backup, key, newestSchema, now);
  return whileAlone(path, 'restore', options.holder ?? 'Agent Workbench', put, options.lockSystem);
}

function putBack(path: string, backup: string, key: Buffer | null, newestSchema: number, now: number): string {
  const refused = new WorkbenchError('invalid_state', `${backup} is not a backup of ${path} that opens now; nothing was changed.`);
  if (!schemaBackups(path).includes(backup)) throw refused;
  // Opened and checked once: the copy is made from this connection.
  let source: BetterSqlite3.Database | null = null;
  let version: number | null = null;
  try {
    source = openReadOnly(backup, key);
    version = source ? checkedVersion(source, newestSchema) : null;
  } catch {
    // Neither opens nor checks out: refused below.
  }
  if (!source || version === null) {
    source?.close();
    throw refused;
  }
  const restoring = `${path}.restoring`;
  try {
    copyWhole(source, version, restoring, key, newestSchema);
  } catch (error) {
    discard(restoring);
    throw new StoreError('store_unavailable', `The backup could not be copied (${toErrorInfo(error).message}); nothing was changed.`, {
      cause: error,
    });
  } finally {
    source.close();
  }
  const aside = setAsideName(path, now);
  const present = ['', ...sidecars].filter((suffix) => existsSync(`${path}${suffix}`));
  try {
    for (const suffix of present) keepAlsoAs(`${path}${suffix}`, `${aside}${suffix}`);
    syncFolder(path);
  } catch (error) {
    for (const suffix of present) discard(`${aside}${suffix}`);
    discard(restoring);
    throw new StoreError(
      'store_unavailable',
      `The database could not be kept aside (${toErrorInfo(error).message}); nothing was changed.`,
      {
        cause: error,
      },
    );
  }
  // The database and its sidecars are kept whole under the other name: its own sidecars go, so none is read with the copy.
  try {
    for (const suffix of sidecars) rmSync(`${path}${suffix}`, { force: true });
    renameSync(restoring, path);
  } catch (error) {
    discard(restoring);
    // The database is still in its place: its sidecars come back to it, as far as they can.
    const notBack = present.filter(
      (suffix) => suffix !== '' && !existsSync(`${path}${suffix}`) && !linkedBack(`${aside}${suffix}`, `${path}${suffix}`),
    );
    const kept = notBack.length === 0 ? '' : ` Its ${notBack.join(', ')} could not be put back beside it: kept as ${aside}${notBack[0]}.`;
    throw new StoreError(
      'store_unavailable',
      `The backup could not be put in place (${toErrorInfo(error).message}); the database is where it was.${kept}`,
      {
        cause: error,
      },
    );
  }
  try {
    syncFolder(path);
  } catch (error) {
    console.error('The folder of the restored database could not be flushed:', error);
  }
  return aside;
}

/** Puts a link to `from` back at `to`; false when it could not be. */
function linkedBack(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch {
    try {
      copyFileSync(from, to);
      return true;
    } catch {
      return false;
    }
  }
}
