/*
 * The key the database is encrypted with, as the store asks for it (`DatabaseKeyKeeper`), and how a key is given to
 * SQLite3 Multiple Ciphers (SQLCipher's page format, AES-256, a raw 256-bit key).
 */

import type { Database } from 'better-sqlite3';

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
  | { readonly encrypted: true }
  | {
      readonly encrypted: false;
      /** Why not, said plainly (no keychain on this system, or no keeper given). */
      readonly reason: string;
    };

/**
 * Keys a connection just opened, before anything is read: SQLCipher's page format, with the key given raw (hex), so no
 * key derivation runs at each open.
 */
export function applyKey(db: Database, key: Buffer, pragma: 'key' | 'rekey' = 'key'): void {
  if (key.length !== databaseKeyBytes) throw new RangeError(`A database key has ${databaseKeyBytes} bytes, not ${key.length}.`);
  db.pragma(`cipher = 'sqlcipher'`);
  // Pages are encrypted with AES-256 without SQLCipher's per-page HMAC-SHA512: in this build the HMAC doubled the time of
  // a step's commit (bench/checkpoints.ts), for a check against deliberate tampering with the file, not for its secrecy.
  // SQLite's own checks still find a damaged file, and a wrong key is still refused. Changing this needs a conversion.
  db.pragma('hmac_use = 0');
  db.pragma(`${pragma} = "x'${key.toString('hex')}'"`);
}
