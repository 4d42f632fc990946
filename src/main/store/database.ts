/*
 * Opens the app's SQLite database and migrates its schema, after a backup; folds its write-ahead log back on a timer.
 */

import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { StoreError } from '../../shared/errors';
import { latestSchemaVersion, migrations as defaultMigrations, type Migration } from './migrations';

export interface OpenDatabaseOptions {
  readonly migrations?: readonly Migration[];
  readonly now?: () => number;
}

export interface OpenedDatabase {
  readonly db: Database;
  readonly path: string;
  /** Copy taken before migrating an existing database, if a migration ran. */
  readonly backupPath: string | null;
  readonly schemaVersion: number;
}

const sqliteHeader = Buffer.from('SQLite format 3\0', 'latin1');

function assertLooksLikeSqlite(path: string): void {
  if (!existsSync(path) || statSync(path).size === 0) return;
  const header = Buffer.alloc(sqliteHeader.length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (!header.equals(sqliteHeader)) {
    throw new StoreError('store_corrupt', `The database file ${path} is not a SQLite database (it may be damaged). It was left untouched.`);
  }
}

function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB';
}

/**
 * Opens the profile database in WAL mode and brings its schema up to date. An existing database is
 * copied aside before any migration runs. A database from a newer app or a damaged file is refused
 * with a typed error and left as it was.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): OpenedDatabase {
  const steps = options.migrations ?? defaultMigrations;
  const target = steps.at(-1)?.version ?? latestSchemaVersion;
  const now = options.now ?? Date.now;
  assertLooksLikeSqlite(path);
  let db: Database;
  try {
    db = new BetterSqlite3(path);
  } catch (error) {
    if (isCorruption(error))
      throw new StoreError('store_corrupt', `The database file ${path} is damaged and cannot be opened. It was left untouched.`, {
        cause: error,
      });
    throw new StoreError('store_unavailable', `The database file ${path} cannot be opened: ${(error as Error).message}`, { cause: error });
  }
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > target) {
      throw new StoreError(
        'store_newer_version',
        `The database ${path} was written by a newer version of Agent Workbench (schema ${version}, this app knows ${target}). Update the app; the file was left untouched.`,
      );
    }
    db.pragma('journal_mode = WAL');
    // NORMAL is durable across app crashes in WAL mode; a power cut can lose at most the last commits, never corrupt.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // Checkpoints run off the hot path (see startCheckpointer), not inside the commit of a step.
    db.pragma('wal_autocheckpoint = 0');

    let backupPath: string | null = null;
    const pending = steps.filter((step) => step.version > version);
    if (pending.length > 0 && version > 0) {
      backupPath = `${path}.backup-v${version}-${now()}`;
      db.prepare('VACUUM INTO ?').run(backupPath);
    }
    for (const step of pending) {
      db.transaction(() => {
        step.up(db);
        db.pragma(`user_version = ${step.version}`);
      })();
    }
    return { db, path, backupPath, schemaVersion: target };
  } catch (error) {
    db.close();
    if (error instanceof StoreError) throw error;
    if (isCorruption(error))
      throw new StoreError('store_corrupt', `The database file ${path} is damaged. It was left untouched.`, { cause: error });
    throw new StoreError('store_unavailable', `The database ${path} could not be prepared: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Folds the write-ahead log back into the database every `intervalMs` when it has grown past
 * `thresholdBytes`, and once more on dispose. SQLite's automatic checkpoint would do this inside
 * whichever commit crosses its limit, adding an fsync to that step; here it runs on a timer.
 */
export function startCheckpointer(
  db: Database,
  path: string,
  options: { intervalMs?: number; thresholdBytes?: number; hardLimitBytes?: number; isBusy?: () => boolean; onIdle?: () => void } = {},
): { dispose(): void } {
  const walPath = `${path}-wal`;
  const threshold = options.thresholdBytes ?? 4 * 1024 * 1024;
  const hardLimit = options.hardLimitBytes ?? 256 * 1024 * 1024;
  const checkpoint = (mode: 'PASSIVE' | 'TRUNCATE'): void => {
    try {
      if (db.open) db.pragma(`wal_checkpoint(${mode})`);
    } catch (error) {
      console.error('A checkpoint of the database failed:', (error as Error).message);
    }
  };
  const timer = setInterval(() => {
    if (!options.isBusy?.()) {
      try {
        options.onIdle?.();
      } catch (error) {
        console.error('Idle maintenance of the database failed:', (error as Error).message);
      }
    }
    if (!existsSync(walPath)) return;
    const size = statSync(walPath).size;
    // While a turn runs, wait for it to end unless the log has grown very large.
    if (size > hardLimit || (size > threshold && !options.isBusy?.())) checkpoint('PASSIVE');
  }, options.intervalMs ?? 10_000);
  timer.unref();
  return {
    dispose: () => {
      clearInterval(timer);
      checkpoint('TRUNCATE');
    },
  };
}
