/*
 * Files the app keeps outside its database, sealed at rest with a key derived from the database's: AES-256-GCM, a new
 * nonce for every write, so a file is unreadable without the key and any change to it is found.
 */

import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { WorkbenchError } from '../../shared/errors';
import type { DatabaseKeyKeeper } from '../store/database-key';

/** Seals and opens the files of one purpose (a cache, a store): a file sealed for one purpose does not open for another. */
export interface AtRestSeal {
  seal(plain: Buffer): Buffer;
  /** The plain bytes; throws `invalid_state` for a file that is not sealed, was sealed with another key or was changed. */
  open(sealed: Buffer): Buffer;
  /** Whether the bytes begin as a sealed file does (say nothing of whether they open). */
  isSealed(data: Buffer): boolean;
  /** A name for a file about `text` (a folder's path) that does not tell `text` without the key: 24 hex digits. */
  nameOf(text: string): string;
}

const magic = Buffer.from('AWSEAL01', 'latin1');
const nonceBytes = 12;
const tagBytes = 16;

/**
 * A seal for `purpose` from the database's key: the key itself never seals a file, only a key derived from it for that
 * purpose (HKDF-SHA-256).
 */
export function atRestSeal(databaseKey: Buffer, purpose: string): AtRestSeal {
  if (databaseKey.length < 32) throw new WorkbenchError('invalid_input', 'A seal needs a key of at least 32 bytes.');
  const derive = (label: string): Buffer =>
    Buffer.from(hkdfSync('sha256', databaseKey, Buffer.alloc(0), `agent-workbench at rest: ${label}`, 32));
  const key = derive(purpose);
  const header = Buffer.concat([magic, Buffer.from(purpose, 'utf8')]);
  const nameKey = derive(`${purpose}: names`);
  const isSealed = (data: Buffer): boolean => data.length >= magic.length && data.subarray(0, magic.length).equals(magic);
  return {
    isSealed,
    nameOf: (text) => createHmac('sha256', nameKey).update(text).digest('hex').slice(0, 24),
    seal: (plain) => {
      const nonce = randomBytes(nonceBytes);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(header);
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      return Buffer.concat([magic, nonce, cipher.getAuthTag(), body]);
    },
    open: (sealed) => {
      if (!isSealed(sealed) || sealed.length < magic.length + nonceBytes + tagBytes) {
        throw new WorkbenchError('invalid_state', 'The file is not sealed.');
      }
      const nonce = sealed.subarray(magic.length, magic.length + nonceBytes);
      const tag = sealed.subarray(magic.length + nonceBytes, magic.length + nonceBytes + tagBytes);
      const decipher = createDecipheriv('aes-256-gcm', key, nonce);
      decipher.setAAD(header);
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(sealed.subarray(magic.length + nonceBytes + tagBytes)), decipher.final()]);
      } catch (error) {
        throw new WorkbenchError('invalid_state', 'The file does not open with this key, or was changed since it was sealed.', {
          cause: error,
        });
      }
    },
  };
}

/** A seal for `purpose` from the key `keys` keeps for the database; null where none can be read (files then stay plain). */
export function sealFor(keys: DatabaseKeyKeeper, purpose: string): AtRestSeal | null {
  try {
    const key = keys.read();
    return key ? atRestSeal(key, purpose) : null;
  } catch {
    return null;
  }
}
