/*
 * The database's key kept in a file of the data folder, encrypted by the system's keychain (the secrets' cipher:
 * Electron's safeStorage in the app).
 */

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { StoreError } from '../../shared/errors';
import { databaseKeyBytes, type DatabaseKeyKeeper, type KeyKeeping } from '../store/database-key';
import type { SecretCipher } from './encrypted-file-secret-store';

const keyFileSchema = z.object({ version: z.literal(1), key: z.string().min(1) }).strict();

/**
 * A random 32-byte key, made once, kept in one file encrypted by the cipher. Where the cipher is not available (a Linux
 * desktop without a keyring), no key is made and the database stays plain.
 */
export class CipherKeptDatabaseKey implements DatabaseKeyKeeper {
  constructor(
    private readonly path: string,
    private readonly cipher: SecretCipher,
  ) {}

  keeping(): KeyKeeping {
    return this.cipher.isAvailable() ? { available: true } : { available: false, reason: 'this system offers no keychain' };
  }

  read(): Buffer | null {
    if (!existsSync(this.path)) return null;
    let document: unknown = null;
    try {
      document = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch {
      // Damaged: said below.
    }
    const parsed = keyFileSchema.safeParse(document);
    if (!parsed.success) throw new StoreError('store_key_missing', `The database key file ${this.path} is damaged.`);
    const key = Buffer.from(this.cipher.decrypt(Buffer.from(parsed.data.key, 'base64')), 'hex');
    if (key.length !== databaseKeyBytes) throw new StoreError('store_key_missing', `The database key in ${this.path} is not a key.`);
    return key;
  }

  create(): Buffer {
    if (existsSync(this.path))
      throw new StoreError('invalid_state', `A database key is already kept in ${this.path}; it is never replaced.`);
    const key = randomBytes(databaseKeyBytes);
    const temporary = `${this.path}.tmp`;
    const document = { version: 1, key: this.cipher.encrypt(key.toString('hex')).toString('base64') };
    writeFileSync(temporary, JSON.stringify(document), { mode: 0o600, flush: true });
    renameSync(temporary, this.path);
    return key;
  }
}
