import { closeSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database } from 'better-sqlite3';
import BetterSqlite3 from 'better-sqlite3-multiple-ciphers';
import { applyKey } from '../../src/main/store/database-key';
import { testDatabaseKeys } from '../host/test-keychain';

/** The harness runs on a database encrypted at rest, as the app does where the system has a keychain; CRASH_PLAIN=1: plain. */
export const crashEncrypted = process.env['CRASH_PLAIN'] !== '1';

/** The database of a data folder, opened from outside the app to check it: with the key the app kept, when encrypted. */
export function openCheckedDatabase(path: string, readonly = false): Database {
  const db = new BetterSqlite3(path, { readonly });
  if (crashEncrypted) {
    const key = testDatabaseKeys(dirname(path)).read();
    if (!key) {
      db.close();
      throw new Error(`no database key was kept beside ${path}`);
    }
    applyKey(db, key);
  }
  return db;
}

/** A problem when the database file is not as it should be: encrypted (no SQLite header) unless the run is plain. */
export function encryptionProblem(path: string): string | null {
  const header = Buffer.alloc(16);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  const plain = header.toString('latin1') === 'SQLite format 3\0';
  if (crashEncrypted && plain) return 'the database file is plain, not encrypted';
  if (!crashEncrypted && !plain) return 'the database file is not a plain SQLite file';
  return null;
}
