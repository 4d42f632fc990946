/*
 * The key the database is encrypted with, as the store asks for it (`DatabaseKeyKeeper`), and how a key is given to
 * SQLite3 Multiple Ciphers (AEGIS-256 pages, a raw 256-bit key; SQLCipher's format still opened, as versions before wrote).
 */

import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import BetterSqlite3 from 'better-sqlite3-multiple-ciphers';

/** Whether the system can keep the database's key; when not, why, in words the person reads. */
export type KeyKeeping = { readonly available: true } | { readonly available: false; readonly reason: string };

/**
 * Keeps the one key of the database. The app keeps it with the system's keychain (Electron's safeStorage); tests keep it
 * with a cipher of their own behind the same interface.
 */
export interface DatabaseKeyKeeper {
  /** Whether a key can be kept and read on this system. */
  keeping(): KeyKeeping;
  /** The kept key (32 bytes), or null when none was ever kept. Throws when one is kept but cannot be read. */
  read(): Buffer | null;
  /** Makes a new random key (32 bytes) and keeps it. Never called while a key is kept. */
  create(): Buffer;
}

/** Bytes of a key. */
export const databaseKeyBytes = 32;

/** The file beside the database that keeps its key, sealed by the system's keychain (the app's `CipherKeptDatabaseKey`). */
export const databaseKeyFile = 'database.key';

/** Where the database stands on encryption at rest, as the app tells it. */
export type DatabaseEncryption =
  | {
      readonly encrypted: true;
      /** The cipher it is in: the one the app writes, or the one before until it is converted. */
      readonly cipher: DatabaseCipher;
      /** Why a file in the cipher before is not yet converted (another process has it open, or converting failed). */
      readonly notConverted?: string;
    }
  | {
      readonly encrypted: false;
      /** Why not, said plainly (no keychain on this system, or no keeper given). */
      readonly reason: string;
    };

/**
 * How the pages of an encrypted database are encrypted:
 * - `aegis-256`: what the app writes. AEGIS-256, an authenticated cipher, so a page changed on disk is refused when read;
 *   it runs on the processor's AES instructions where it has them, and a step's commit costs about a tenth more than on
 *   a plain file (bench/checkpoints.ts).
 * - `sqlcipher`: SQLCipher's format with AES-256 and without its per-page HMAC, as versions before wrote. Such a file is
 *   still opened, and converted to `aegis-256` at a start when nothing else has it open.
 */
export type DatabaseCipher = 'aegis-256' | 'sqlcipher';

/** The cipher the app writes: new databases, conversions, and copies it encrypts. */
export const currentCipher: DatabaseCipher = 'aegis-256';

/**
 * Keys a connection just opened, before anything is read, with the key given raw (hex), so no key derivation runs at
 * each open. `rekey` encrypts (a plain file) or re-encrypts (one keyed before, even with another cipher) with `cipher`.
 */
export function applyKey(db: Database, key: Buffer, pragma: 'key' | 'rekey' = 'key', cipher: DatabaseCipher = currentCipher): void {
  if (key.length !== databaseKeyBytes) throw new RangeError(`A database key has ${databaseKeyBytes} bytes, not ${key.length}.`);
  if (cipher === 'aegis-256') {
    db.pragma(`cipher = 'aegis'`);
    db.pragma(`algorithm = 'aegis-256'`);
  } else {
    db.pragma(`cipher = 'sqlcipher'`);
    // Without SQLCipher's per-page HMAC-SHA512, which doubled the time of a step's commit.
    db.pragma('hmac_use = 0');
  }
  db.pragma(`${pragma} = "x'${key.toString('hex')}'"`);
}

/**
 * The cipher an encrypted database file was written with, read from its first page, whose bytes 16 to 23 both formats
 * keep unencrypted: byte 20 holds the bytes each page reserves for the cipher (64 for AEGIS-256's nonce and tag, 16 for
 * SQLCipher's IV without HMAC). Null when there is no file, it is shorter, or it reserves another count.
 */
export function cipherInHeader(file: string): DatabaseCipher | null {
  if (!existsSync(file)) return null;
  const header = Buffer.alloc(24);
  let read: number;
  const fd = openSync(file, 'r');
  try {
    read = readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (read < header.length) return null;
  const reserved = header[20];
  return reserved === 64 ? 'aegis-256' : reserved === 16 ? 'sqlcipher' : null;
}

/**
 * Whether reading the schema failed as a key that does not open the file fails: AEGIS checks page 1's tag ("not a
 * database"); SQLCipher's format without HMAC decrypts page 1 to garbage, which SQLite reads as "not a database", an
 * "unsupported file format" or, past its header, damage that cannot be told from another key.
 */
function notOpenedByKey(cipher: DatabaseCipher, code: unknown): boolean {
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_ERROR') return true;
  return cipher === 'sqlcipher' && code === 'SQLITE_CORRUPT';
}

/**
 * Opens the encrypted database file `file` with `key`, in the cipher its header names (`cipherInHeader`): null when the
 * key does not open it (another key, a damaged first page, or a header naming no cipher of the app's). A new or empty
 * file is keyed with the cipher the app writes. Reading its schema is the check. Any other failure (a damaged page
 * further on, a busy or unreadable file) is thrown as SQLite gave it. A file in SQLCipher's format is best checked
 * read-only (`options`), as a connection with the wrong key may fold the write-ahead log back garbled when it closes;
 * AEGIS refuses such pages and leaves the log as it was.
 */
export function openWithKey(
  file: string,
  key: Buffer,
  options: BetterSqlite3.Options = {},
): { readonly db: BetterSqlite3.Database; readonly cipher: DatabaseCipher } | null {
  // An empty or new file is made in the cipher the app writes.
  const empty = !existsSync(file) || statSync(file).size === 0;
  const cipher = empty ? currentCipher : cipherInHeader(file);
  if (cipher === null) return null;
  const db = new BetterSqlite3(file, options);
  try {
    applyKey(db, key, 'key', cipher);
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    return { db, cipher };
  } catch (error) {
    db.close();
    if (notOpenedByKey(cipher, (error as { code?: unknown }).code)) return null;
    throw error;
  }
}
