/*
 * Converts a plain database into an encrypted one in place, or one in the cipher versions before wrote into the one the
 * app writes, with a backup of the file as it was kept until the new file is verified; and puts back what a conversion
 * stopped part way (a crash, a power cut) left.
 */

import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, readSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3-multiple-ciphers';
import { StoreError, toErrorInfo } from '../../shared/errors';
import { applyKey, cipherInHeader, type DatabaseCipher } from './database-key';

/** The steps of a conversion, in order; each is told before it runs (tests stop there, as a crash would). */
export const conversionSteps = ['fold_log', 'back_up', 'copy', 'encrypt_copy', 'verify_copy', 'replace', 'verify', 'drop_backup'] as const;
export type ConversionStep = (typeof conversionSteps)[number];

/** What a conversion starts from: a plain file, or one in the cipher versions before wrote. */
export type ConversionSource = 'plain' | Exclude<DatabaseCipher, 'aegis-256'>;

/** The copy of the file as it was, kept while a conversion runs: its presence at a start means it did not finish. */
export const conversionBackupPath = (path: string, from: ConversionSource = 'plain'): string =>
  from === 'plain' ? `${path}.unencrypted-backup` : `${path}.${from}-backup`;
const conversionSources: readonly ConversionSource[] = ['plain', 'sqlcipher'];
const workPath = (path: string): string => `${path}.encrypting`;
/** The files SQLite keeps beside a database: its write-ahead log and index, or a rollback journal. */
export const sidecars = ['-wal', '-shm', '-journal'] as const;

/** Whether a file, or a sidecar of one, already has the name `name`. */
export const nameTaken = (name: string): boolean =>
  [name, ...sidecars.map((suffix) => `${name}${suffix}`)].some((file) => existsSync(file));

const sqliteHeader = Buffer.from('SQLite format 3\0', 'latin1');

/** What a database file is: absent or empty, a plain SQLite file, or something else (encrypted, or damaged). */
export function databaseFileState(path: string): 'absent' | 'plain' | 'opaque' {
  if (!existsSync(path) || statSync(path).size === 0) return 'absent';
  const header = Buffer.alloc(sqliteHeader.length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  return header.equals(sqliteHeader) ? 'plain' : 'opaque';
}

function removeWithSidecars(path: string): void {
  for (const file of [path, ...sidecars.map((suffix) => `${path}${suffix}`)]) rmSync(file, { force: true });
}

export function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function syncFolder(path: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(dirname(path), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Copies a file whole or not at all: to a temporary name, flushed, then renamed into place. */
export function durableCopy(from: string, to: string): void {
  const partial = `${to}.partial`;
  copyFileSync(from, partial);
  syncFile(partial);
  renameSync(partial, to);
  syncFolder(to);
}

/** Rows of every table, by table: what must be the same before and after. */
type RowCounts = Record<string, number>;

function rowCounts(db: BetterSqlite3.Database): RowCounts {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name")
    .pluck()
    .all() as string[];
  const counts: RowCounts = {};
  for (const table of tables)
    counts[table] = db
      .prepare(`SELECT count(*) FROM "${table.replaceAll('"', '""')}"`)
      .pluck()
      .get() as number;
  return counts;
}

/** Opens an encrypted file with the key and checks it whole against the plain rows; throws when it does not hold them. */
function verifyEncrypted(path: string, key: Buffer, expected: RowCounts): void {
  if (databaseFileState(path) !== 'opaque') throw new StoreError('store_unavailable', `${path} was not encrypted.`);
  const db = new BetterSqlite3(path);
  try {
    applyKey(db, key);
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok')
      throw new StoreError('store_corrupt', `The encrypted copy of the database failed its integrity check: ${String(integrity)}.`);
    const counts = rowCounts(db);
    if (JSON.stringify(counts) !== JSON.stringify(expected))
      throw new StoreError('store_corrupt', 'The encrypted copy of the database does not hold the same rows as the plain one.');
  } finally {
    db.close();
  }
}

/** Whether the file at `path` is still in the format a conversion from `from` started with: it was never replaced. */
function stillAsBefore(path: string, from: ConversionSource): boolean {
  const state = databaseFileState(path);
  if (from === 'plain') return state === 'plain';
  return state === 'opaque' && cipherInHeader(path) === from;
}

/**
 * Puts back what a conversion stopped part way left. When the backup of the file as it was is still there (the
 * conversion never finished) and the file was already replaced, the backup replaces whatever the file became: it is
 * only ever written whole and the app writes nothing to the database while converting, so it holds everything. A file
 * never replaced is whole as it is (and may have been written since): the backup is dropped. Throws only when a backup
 * must be put back and cannot be; the work copies are then removed as far as they can be. Says whether it put one back.
 */
export function recoverConversion(path: string): boolean {
  for (const from of conversionSources) rmSync(`${conversionBackupPath(path, from)}.partial`, { force: true });
  const from = conversionSources.find((source) => existsSync(conversionBackupPath(path, source)));
  let putBack = false;
  if (from !== undefined) {
    const backup = conversionBackupPath(path, from);
    if (!stillAsBefore(path, from)) {
      durableCopy(backup, `${path}.restoring`);
      for (const suffix of sidecars) rmSync(`${path}${suffix}`, { force: true });
      renameSync(`${path}.restoring`, path);
      putBack = true;
    }
    rmSync(backup, { force: true });
    syncFolder(path);
  }
  // What is left of the work copies holds nothing the database needs: one that cannot be removed is said, and left.
  for (const work of [path, ...schemaBackups(path)].map(workPath)) {
    try {
      removeWithSidecars(work);
    } catch (error) {
      console.error(`A copy left by a conversion (${work}) could not be removed:`, toErrorInfo(error).message);
    }
  }
  return putBack;
}

/** A name `<path>.backup-v<version>-<time>` for a backup, from `time` on, that no file or sidecar of it has yet. */
export function freeBackupName(path: string, version: number, time: number): string {
  for (let at = time; ; at += 1) {
    const name = `${path}.backup-v${version}-${at}`;
    if (!nameTaken(name)) return name;
  }
}

/** A conversion failed and what it left could not be put back: the database must not be opened until it is. */
export class ConversionNotUndoneError extends StoreError {
  constructor(message: string, cause: unknown) {
    super('store_unavailable', message, { cause });
  }
}

/**
 * Converts as `convertToEncrypted` does, and when it fails, puts back what it left before throwing its error. When even
 * that fails (a full disk), throws a `ConversionNotUndoneError` (`store_unavailable`) saying so: the database must not
 * be opened then, as what is written to it could be replaced by the backup at the next start.
 */
export function convertOrUndo(
  path: string,
  key: Buffer,
  onStep: (step: ConversionStep) => void = () => undefined,
  from: ConversionSource = 'plain',
): void {
  try {
    convertToEncrypted(path, key, onStep, from);
  } catch (error) {
    try {
      recoverConversion(path);
    } catch (undoing) {
      throw new ConversionNotUndoneError(
        `The database ${path} could not be converted (${toErrorInfo(error).message}), and what the conversion left could not be put back (${toErrorInfo(undoing).message}). It was not opened, so nothing written now can be lost: make room on the disk and start again.`,
        undoing,
      );
    }
    throw error;
  }
}

/**
 * Encrypts the database at `path` with the key, in place: a plain one, or one in the cipher versions before wrote
 * (`from`), which is re-encrypted with the cipher the app writes. The write-ahead log is folded in first; a backup of
 * the file as it is is written whole; a copy is encrypted (a rekey needs a rollback journal, so not in WAL mode) and
 * verified (integrity, and the same rows in every table); it then replaces the file in one rename, is verified again
 * where it now lies, and only then is the backup removed (or, from the cipher before, kept as a schema change's backup
 * is). A crash at any point leaves either the file as it was (the backup is then dropped) or the backup, which
 * `recoverConversion` puts back at the next start. Throws when a step fails; the caller then recovers (`convertOrUndo`).
 */
export function convertToEncrypted(
  path: string,
  key: Buffer,
  onStep: (step: ConversionStep) => void = () => undefined,
  from: ConversionSource = 'plain',
): void {
  const openAsItIs = (file: string): BetterSqlite3.Database => {
    const db = new BetterSqlite3(file);
    try {
      if (from !== 'plain') applyKey(db, key, 'key', from);
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  };
  onStep('fold_log');
  let counts: RowCounts;
  let version: number;
  const before = openAsItIs(path);
  try {
    before.pragma('wal_checkpoint(TRUNCATE)');
    before.pragma('journal_mode = DELETE');
    counts = rowCounts(before);
    version = before.pragma('user_version', { simple: true }) as number;
  } finally {
    before.close();
  }
  onStep('back_up');
  const backup = conversionBackupPath(path, from);
  durableCopy(path, backup);
  onStep('copy');
  const work = workPath(path);
  removeWithSidecars(work);
  copyFileSync(path, work);
  onStep('encrypt_copy');
  const copy = openAsItIs(work);
  try {
    applyKey(copy, key, 'rekey');
    copy.pragma('journal_mode = WAL');
  } finally {
    copy.close();
  }
  syncFile(work);
  onStep('verify_copy');
  verifyEncrypted(work, key, counts);
  onStep('replace');
  for (const suffix of sidecars) rmSync(`${path}${suffix}`, { force: true });
  renameSync(work, path);
  syncFolder(path);
  onStep('verify');
  verifyEncrypted(path, key, counts);
  onStep('drop_backup');
  // A file in the cipher before is kept as a backup like a schema change's (encrypted as it was): a version before this
  // one offers it when it cannot open the converted file. A plain one is not: it would leave the contents readable.
  if (from === 'plain') rmSync(backup, { force: true });
  else renameSync(backup, freeBackupName(path, version, Date.now()));
  syncFolder(path);
}

/** The copies taken before a schema change (`<path>.backup-v<version>-<time>`), whole files only. */
export function schemaBackups(path: string): string[] {
  const prefix = `${basename(path)}.backup-`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(prefix) && !/\.(encrypting|partial)(-wal|-shm|-journal)?$|-(wal|shm|journal)$/.test(name))
    .map((name) => join(dirname(path), name));
}

/**
 * Encrypts in place, with the database's key, the plain copies taken before a schema change (by versions of the app
 * before encryption, or while the system had no keychain): each is copied, the copy encrypted and verified, then renamed
 * over it. A copy that cannot be encrypted stays as it was. Says how many were encrypted.
 */
export function encryptPlainBackups(path: string, key: Buffer): number {
  let encrypted = 0;
  for (const backup of schemaBackups(path)) {
    if (databaseFileState(backup) !== 'plain') continue;
    const work = workPath(backup);
    try {
      removeWithSidecars(work);
      copyFileSync(backup, work);
      let counts: RowCounts;
      const plain = new BetterSqlite3(work);
      try {
        plain.pragma('journal_mode = DELETE');
        counts = rowCounts(plain);
      } finally {
        plain.close();
      }
      const copy = new BetterSqlite3(work);
      try {
        applyKey(copy, key, 'rekey');
      } finally {
        copy.close();
      }
      syncFile(work);
      verifyEncrypted(work, key, counts);
      renameSync(work, backup);
      syncFolder(backup);
      encrypted += 1;
    } catch (error) {
      removeWithSidecars(work);
      console.error(`The backup ${backup} could not be encrypted; it stays as it was:`, error);
    }
  }
  return encrypted;
}
