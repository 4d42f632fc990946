/*
 * Opens the app's SQLite database and migrates its schema, after a backup; folds its write-ahead log back on a timer.
 */

import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Database } from 'better-sqlite3';
import BetterSqlite3 from 'better-sqlite3-multiple-ciphers';
import { StoreError, toErrorInfo } from '../../shared/errors';
import {
  conversionBackupPath,
  ConversionNotUndoneError,
  convertOrUndo,
  freeBackupName,
  databaseFileState,
  encryptPlainBackups,
  recoverConversion,
  type ConversionSource,
  type ConversionStep,
} from './database-conversion';
import {
  cipherInHeader,
  currentCipher,
  databaseKeyFile,
  openWithKey,
  type DatabaseEncryption,
  type DatabaseKeyKeeper,
} from './database-key';
import { DatabaseInUseError, whileAlone, type LockSystem } from './database-lock';
import { newestRestorableBackup, type RestorableBackup } from './database-restore';
import { latestSchemaVersion, migrations as defaultMigrations, type Migration } from './migrations';

export interface OpenDatabaseOptions {
  readonly migrations?: readonly Migration[];
  readonly now?: () => number;
  /**
   * Keeps the database's key. With a keeper whose system can keep keys, a new database is made encrypted and a plain
   * one is converted in place; without one (or where the system keeps none) the database stays plain and says why.
   */
  readonly keys?: DatabaseKeyKeeper;
  /** Told before each step of a conversion of a plain database (tests stop there, as a crash would). */
  readonly onConversionStep?: (step: ConversionStep) => void;
  /** What this process is, as another that has the database open is told when a conversion needs it alone. */
  readonly holder?: string;
  /** The system the lock asks whether other processes have the database open (tests give their own). */
  readonly lockSystem?: LockSystem;
}

export interface OpenedDatabase {
  readonly db: Database;
  readonly path: string;
  /** Copy taken before migrating an existing database, if a migration ran. */
  readonly backupPath: string | null;
  readonly schemaVersion: number;
  /** Whether the file is encrypted at rest, and if not, why. */
  readonly encryption: DatabaseEncryption;
}

function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB';
}

/**
 * A database that cannot be opened (its key missing or wrong, or the file damaged): the file is never touched, and the
 * newest backup kept beside it that opens now (plainly, or with `key`) is named, for the person to put back.
 */
function unopenedError(
  code: 'store_key_missing' | 'store_key_wrong' | 'store_corrupt',
  path: string,
  why: string,
  options: { readonly key: Buffer | null; readonly newestSchema: number; readonly cause?: unknown },
): StoreError {
  // Looking for a backup never takes the place of saying why the database cannot be opened.
  let backup: RestorableBackup | null = null;
  try {
    backup = newestRestorableBackup(path, options.key, options.newestSchema);
  } catch (error) {
    console.error('The backups of the database could not be looked at:', error);
  }
  const offer = backup
    ? ` A backup taken ${new Date(backup.takenAt).toISOString()} opens: it can be put back in its place (from the app's window, or with the terminal runner's --restore-backup), and this file is then kept beside it as it is.`
    : '';
  return new StoreError(code, `The database ${path} cannot be opened: ${why} The file was left untouched.${offer}`, {
    ...(options.cause === undefined ? {} : { cause: options.cause }),
    ...(backup ? { backupPath: backup.path } : {}),
  });
}

/** The key of an encrypted database, or a typed error saying why there is none. */
function keyOfEncrypted(path: string, keys: DatabaseKeyKeeper | undefined, newestSchema: number): Buffer {
  const missing = (why: string, cause?: unknown): StoreError =>
    unopenedError('store_key_missing', path, why, { key: null, newestSchema, ...(cause === undefined ? {} : { cause }) });
  if (!keys) throw missing('it is encrypted and no key was given to open it.');
  const keeping = keys.keeping();
  if (!keeping.available) throw missing(`it is encrypted and its key cannot be read here: ${keeping.reason}`);
  let key: Buffer | null;
  try {
    key = keys.read();
  } catch (error) {
    throw missing(`it is encrypted and its key could not be read (${toErrorInfo(error).message}).`, error);
  }
  if (!key) throw missing('it is encrypted and the key this system kept for it is gone.');
  return key;
}

/** The schema version of a plain database file; 0 when it cannot be read (opening it says why). */
function plainSchemaVersion(path: string): number {
  try {
    const db = new BetterSqlite3(path, { fileMustExist: true });
    try {
      return db.pragma('user_version', { simple: true }) as number;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

/** The key to open the database with, or why it stays plain. */
type KeyOrReason = { readonly key: Buffer } | { readonly key: null; readonly reason: string };

/**
 * Finds the key to open the database with, converting a plain one in place: null when it stays plain, with the reason.
 * A conversion that fails leaves the plain database as it was (the app keeps working) and is tried at the next start.
 */
function prepareKey(path: string, target: number, options: OpenDatabaseOptions): KeyOrReason {
  // What a conversion stopped part way left is put back, and a conversion runs, only while no other process has the
  // database open: the file is replaced under its name. Another process has it: it stays as it is, and plain.
  const alone = <T>(work: () => T): T => whileAlone(path, 'convert', options.holder ?? 'Agent Workbench', work, options.lockSystem);
  let othersHoldIt: string | null = null;
  try {
    alone(() => recoverConversion(path));
  } catch (error) {
    if (!(error instanceof DatabaseInUseError))
      throw new StoreError(
        'store_unavailable',
        `The database ${path} was left part way through a conversion, and it could not be put back as it was (${toErrorInfo(error).message}). Nothing was opened or changed: make room on the disk and start again.`,
        { cause: error },
      );
    othersHoldIt = error.holder;
  }
  const state = databaseFileState(path);
  const keys = options.keys;
  if (state === 'opaque') return { key: keyOfEncrypted(path, keys, target) };
  if (!keys) return { key: null, reason: 'not encrypted: no key keeper was given' };
  const keeping = keys.keeping();
  if (!keeping.available) return { key: null, reason: `not encrypted: ${keeping.reason}` };
  let key: Buffer;
  try {
    key = keys.read() ?? keys.create();
  } catch (error) {
    // A key kept but unreadable is never replaced: encrypted backups may need it.
    return { key: null, reason: `not encrypted: its key could not be read (${toErrorInfo(error).message})` };
  }
  if (state === 'absent') return { key };
  // A database of a newer app is left as it is: opening it refuses it below.
  if (plainSchemaVersion(path) > target) return { key: null, reason: 'not encrypted' };
  const why = othersHoldIt !== null ? heldOpenBy(othersHoldIt) : tryConverting(path, key, options, 'plain');
  return why === undefined ? { key } : { key: null, reason: `not encrypted yet: ${why}` };
}

/** Why a database is not converted while another process has it open. */
const heldOpenBy = (holder: string): string => `${holder} has it open; it is converted at a start when nothing else has`;

/**
 * Converts the database from `from` to the cipher the app writes, with the database alone: undefined when done, else why
 * not (another process has it open, or the conversion failed and was undone), for the window to say; it is tried again
 * at the next start. Throws when a failed conversion could not be undone.
 */
function tryConverting(path: string, key: Buffer, options: OpenDatabaseOptions, from: ConversionSource): string | undefined {
  try {
    whileAlone(
      path,
      'convert',
      options.holder ?? 'Agent Workbench',
      () => convertOrUndo(path, key, options.onConversionStep, from),
      options.lockSystem,
    );
    return undefined;
  } catch (error) {
    if (error instanceof DatabaseInUseError) return heldOpenBy(error.holder);
    if (error instanceof ConversionNotUndoneError) throw error;
    console.error(`The database ${path} could not be converted to ${currentCipher}:`, error);
    return `converting it failed (${toErrorInfo(error).message}); it is tried again at the next start`;
  }
}

/**
 * Opens the encrypted database with its key, in the cipher its header names. A file in the cipher versions before wrote
 * is first checked read-only with the key, then converted to the one the app writes while no other process has it open;
 * when it cannot be, it is opened as it is and converted at a later start. A key that does not open it is refused, the
 * file untouched.
 */
function openEncrypted(
  path: string,
  key: Buffer,
  target: number,
  options: OpenDatabaseOptions,
): { db: Database; encryption: DatabaseEncryption & { encrypted: true } } {
  const keyWrong = (): StoreError =>
    // Pages the key does not decrypt read as garbage ("not a database"); AEGIS refuses them.
    unopenedError('store_key_wrong', path, 'the key this system keeps does not open it (the key changed, or the file is damaged).', {
      key,
      newestSchema: target,
    });
  let notConverted: string | undefined;
  if (cipherInHeader(path) === 'sqlcipher') {
    const checked = openWithKey(path, key, { readonly: true, fileMustExist: true });
    if (!checked) throw keyWrong();
    checked.db.close();
    notConverted = tryConverting(path, key, options, 'sqlcipher');
  }
  const opened = openWithKey(path, key);
  if (!opened) throw keyWrong();
  const still = opened.cipher === currentCipher ? {} : { notConverted: notConverted ?? 'it is converted at the next start' };
  return { db: opened.db, encryption: { encrypted: true, cipher: opened.cipher, ...still } };
}

/**
 * Opens the profile database in WAL mode and brings its schema up to date. With a key keeper, the database is encrypted
 * at rest (a plain one is converted first, see `convertToEncrypted`). An existing database is copied aside before any
 * migration runs (encrypted as it is). A database from a newer app, a damaged file or one whose key is missing or wrong
 * is refused with a typed error and left as it was.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): OpenedDatabase {
  const steps = options.migrations ?? defaultMigrations;
  const target = steps.at(-1)?.version ?? latestSchemaVersion;
  const now = options.now ?? Date.now;
  const state = databaseFileState(path);
  if (state === 'opaque' && !options.keys && !existsSync(conversionBackupPath(path))) {
    // The app's key file beside it: an encrypted database, opened here by a process the key is not given to (the
    // terminal runner, which cannot ask the system's keychain on the app's behalf), not a damaged one.
    if (existsSync(join(dirname(path), databaseKeyFile)))
      throw unopenedError(
        'store_key_missing',
        path,
        `it is encrypted at rest, and its key (${databaseKeyFile}, sealed by the system's keychain for the app) can only be opened by the app: open this data folder in the app, or give this run a data folder of its own.`,
        { key: null, newestSchema: target },
      );
    throw unopenedError('store_corrupt', path, 'it is not a SQLite database (it may be damaged).', { key: null, newestSchema: target });
  }
  const prepared = prepareKey(path, target, options);
  const key = prepared.key;
  let db: Database;
  let encryption: DatabaseEncryption;
  try {
    if (prepared.key) {
      ({ db, encryption } = openEncrypted(path, prepared.key, target, options));
    } else {
      db = new BetterSqlite3(path);
      encryption = { encrypted: false, reason: prepared.reason };
    }
  } catch (error) {
    if (error instanceof StoreError) throw error;
    if (isCorruption(error))
      throw unopenedError('store_corrupt', path, 'the file is damaged.', { key, newestSchema: target, cause: error });
    throw new StoreError('store_unavailable', `The database file ${path} cannot be opened: ${(error as Error).message}`, { cause: error });
  }
  try {
    // The key opens it: copies taken before a schema change while it was plain are encrypted with it too.
    if (key) encryptPlainBackups(path, key);
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
    // 16 MB of pages kept in memory, said here rather than left to how SQLite was built (its default there is about the
    // same): on an encrypted database each page read from the file is decrypted again.
    db.pragma('cache_size = -16384');
    // Checkpoints run off the hot path (see startCheckpointer), not inside the commit of a step.
    db.pragma('wal_autocheckpoint = 0');

    let backupPath: string | null = null;
    const pending = steps.filter((step) => step.version > version);
    if (pending.length > 0 && version > 0) {
      backupPath = freeBackupName(path, version, now());
      db.prepare('VACUUM INTO ?').run(backupPath);
    }
    for (const step of pending) {
      db.transaction(() => {
        step.up(db);
        db.pragma(`user_version = ${step.version}`);
      })();
    }
    return { db, path, backupPath, schemaVersion: target, encryption };
  } catch (error) {
    db.close();
    if (error instanceof StoreError) throw error;
    if (isCorruption(error))
      throw unopenedError('store_corrupt', path, 'the file is damaged.', { key, newestSchema: target, cause: error });
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
