/*
 * Files the app keeps outside its database, sealed at rest with a key derived from the database's: AES-256-GCM, a new
 * nonce for every write, so a file is unreadable without the key and any change to it is found. Small files are sealed
 * in memory, large ones a chunk at a time, in the same format.
 */

import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
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
  /**
   * Seals the file open as `from` into `to` (opened empty, for writing) a chunk at a time, in the format `seal` writes, so
   * `open` reads it too. Answers the seal's tag (hex), different for every file sealed: a record of it tells this file
   * from any other sealed with the same key.
   */
  sealFile(from: FileHandle, to: FileHandle): Promise<string>;
  /**
   * Opens the sealed file `from` into `to` a chunk at a time and answers its tag. Throws `invalid_state` as `open` does;
   * what was written to `to` by then is unchecked and must be thrown away.
   */
  openFile(from: FileHandle, to: FileHandle): Promise<string>;
}

const magic = Buffer.from('AWSEAL01', 'latin1');
const nonceBytes = 12;
const tagBytes = 16;
const headerBytes = magic.length + nonceBytes + tagBytes;
/** Bytes read at a time by the file variants: what they hold in memory, whatever the file's size. */
const chunkBytes = 1 << 20;

const notSealedError = (): WorkbenchError => new WorkbenchError('invalid_state', 'The file is not sealed.');
const notOpenedError = (cause: unknown): WorkbenchError =>
  new WorkbenchError('invalid_state', 'The file does not open with this key, or was changed since it was sealed.', { cause });

/** Reads `from` from `position` a chunk at a time into one reused buffer, handing each chunk to `use`. */
async function eachChunk(from: FileHandle, position: number, use: (chunk: Buffer) => Promise<void>): Promise<void> {
  const buffer = Buffer.allocUnsafe(chunkBytes);
  for (let at = position; ;) {
    const { bytesRead } = await from.read(buffer, 0, buffer.length, at);
    if (bytesRead === 0) return;
    await use(buffer.subarray(0, bytesRead));
    at += bytesRead;
  }
}

/** Writes all of `data` at `position`. */
async function writeAt(to: FileHandle, data: Buffer, position: number): Promise<void> {
  for (let done = 0; done < data.length;) {
    const { bytesWritten } = await to.write(data, done, data.length - done, position + done);
    done += bytesWritten;
  }
}

/** Whether the bytes begin as a sealed file does, whatever its key (say nothing of whether they open). */
export function isSealed(data: Buffer): boolean {
  return data.length >= magic.length && data.subarray(0, magic.length).equals(magic);
}

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
      if (!isSealed(sealed) || sealed.length < headerBytes) throw notSealedError();
      const decipher = decipherOf(sealed);
      try {
        return Buffer.concat([decipher.update(sealed.subarray(headerBytes)), decipher.final()]);
      } catch (error) {
        throw notOpenedError(error);
      }
    },
    sealFile: async (from, to) => {
      const nonce = randomBytes(nonceBytes);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(header);
      // The tag is known at the end: its place is written after the body, so the format is the one `seal` writes.
      await writeAt(to, Buffer.concat([magic, nonce, Buffer.alloc(tagBytes)]), 0);
      let at = headerBytes;
      await eachChunk(from, 0, async (chunk) => {
        const body = cipher.update(chunk);
        await writeAt(to, body, at);
        at += body.length;
      });
      await writeAt(to, cipher.final(), at);
      const tag = cipher.getAuthTag();
      await writeAt(to, tag, magic.length + nonceBytes);
      return tag.toString('hex');
    },
    openFile: async (from, to) => {
      const head = Buffer.alloc(headerBytes);
      const { bytesRead } = await from.read(head, 0, headerBytes, 0);
      if (bytesRead < headerBytes || !isSealed(head)) throw notSealedError();
      const decipher = decipherOf(head);
      let at = 0;
      await eachChunk(from, headerBytes, async (chunk) => {
        const plain = decipher.update(chunk);
        await writeAt(to, plain, at);
        at += plain.length;
      });
      let last: Buffer;
      try {
        last = decipher.final();
      } catch (error) {
        throw notOpenedError(error);
      }
      await writeAt(to, last, at);
      return head.subarray(magic.length + nonceBytes, headerBytes).toString('hex');
    },
  };

  /** A decipher for the sealed bytes beginning with `head` (their first `headerBytes` at least). */
  function decipherOf(head: Buffer) {
    const decipher = createDecipheriv('aes-256-gcm', key, head.subarray(magic.length, magic.length + nonceBytes));
    decipher.setAAD(header);
    decipher.setAuthTag(head.subarray(magic.length + nonceBytes, headerBytes));
    return decipher;
  }
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
