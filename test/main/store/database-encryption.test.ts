import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/store/database';
import { conversionSteps, convertToEncrypted, type ConversionStep } from '../../../src/main/store/database-conversion';
import { latestSchemaVersion, migrations, type Migration } from '../../../src/main/store/migrations';
import { CipherKeptDatabaseKey } from '../../../src/main/secrets/cipher-kept-database-key';
import type { SecretCipher } from '../../../src/main/secrets/encrypted-file-secret-store';
import { memoryKeyCipher } from '../../host/test-cipher';
import { leaveAsCrashed, temporaryFolder } from '../../helpers';

const noKeychain: SecretCipher = {
  isAvailable: () => false,
  encrypt: () => {
    throw new Error('no keychain');
  },
  decrypt: () => {
    throw new Error('no keychain');
  },
};

const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const isPlainSqlite = (path: string): boolean => readFileSync(path).subarray(0, 16).toString('latin1') === 'SQLite format 3\0';

class Crash extends Error {}

describe('the database encrypted at rest', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let path: string;
  let keyPath: string;
  const keychain = memoryKeyCipher();
  const keys = (): CipherKeptDatabaseKey => new CipherKeptDatabaseKey(keyPath, keychain);

  beforeEach(() => {
    folder = temporaryFolder();
    path = join(folder.path, 'workbench.sqlite');
    keyPath = join(folder.path, 'database.key');
  });
  afterEach(() => folder.remove());

  /** A plain database of the app's with a session whose title is in the write-ahead log, not yet in the file. */
  function plainDatabaseWithSession(title = 'Secret plans'): void {
    const { db } = openDatabase(path);
    db.prepare("INSERT INTO sessions (id, title, status, created_at, updated_at) VALUES ('s1', ?, 'idle', 1, 1)").run(title);
    leaveAsCrashed(path, db);
  }

  const titles = (db: { prepare(sql: string): { pluck(): { all(): unknown[] } } }): unknown[] =>
    db.prepare('SELECT title FROM sessions ORDER BY id').pluck().all();

  it('makes a new database encrypted: its file reads as noise without the key, and opens again with it', () => {
    const opened = openDatabase(path, { keys: keys() });
    expect(opened.encryption).toEqual({ encrypted: true, cipher: 'aegis-256' });
    opened.db.prepare("INSERT INTO sessions (id, title, status, created_at, updated_at) VALUES ('s1', 'Secret plans', 'idle', 1, 1)").run();
    opened.db.close();
    expect(isPlainSqlite(path)).toBe(false);
    expect(readFileSync(path).includes('Secret plans')).toBe(false);
    expect(() => new BetterSqlite3(path).prepare('SELECT * FROM sessions').all()).toThrow(/not a database/);
    expect(readFileSync(keyPath, 'utf8')).not.toContain(keys().read()?.toString('hex'));
    const again = openDatabase(path, { keys: keys() });
    expect(titles(again.db)).toEqual(['Secret plans']);
    again.db.close();
  });

  it('converts a plain database in place, its write-ahead log included, and removes the backup once verified', () => {
    plainDatabaseWithSession();
    expect(existsSync(`${path}-wal`)).toBe(true);
    const opened = openDatabase(path, { keys: keys() });
    expect(opened.encryption).toEqual({ encrypted: true, cipher: 'aegis-256' });
    expect(titles(opened.db)).toEqual(['Secret plans']);
    expect(opened.db.pragma('journal_mode', { simple: true })).toBe('wal');
    opened.db.close();
    expect(isPlainSqlite(path)).toBe(false);
    expect(readFileSync(path).includes('Secret plans')).toBe(false);
    expect(
      readdirSync(folder.path)
        .filter((name) => name.startsWith('workbench.sqlite'))
        .sort(),
    ).toEqual(['workbench.sqlite', 'workbench.sqlite.copy', 'workbench.sqlite.copy-wal']);
  });

  it.each(conversionSteps.map((step) => [step]))('recovers a conversion that crashed before %s, losing nothing', (step: ConversionStep) => {
    plainDatabaseWithSession();
    expect(() =>
      convertToEncrypted(path, keys().read() ?? keys().create(), (at) => {
        if (at === step) throw new Crash(`crashed before ${at}`);
      }),
    ).toThrow(Crash);
    const opened = openDatabase(path, { keys: keys() });
    expect(opened.encryption).toEqual({ encrypted: true, cipher: 'aegis-256' });
    expect(titles(opened.db)).toEqual(['Secret plans']);
    expect(opened.db.pragma('integrity_check', { simple: true })).toBe('ok');
    opened.db.close();
    expect(isPlainSqlite(path)).toBe(false);
    expect(existsSync(`${path}.unencrypted-backup`)).toBe(false);
    expect(existsSync(`${path}.encrypting`)).toBe(false);
  });

  it('puts the backup back over a half-encrypted file left by a crash in the conversion', () => {
    plainDatabaseWithSession();
    const key = keys().create();
    expect(() =>
      convertToEncrypted(path, key, (at) => {
        if (at === 'verify') throw new Crash('power cut');
      }),
    ).toThrow(Crash);
    // The file the conversion put in place was only partly written to disk.
    const damaged = readFileSync(path);
    damaged.fill(0, 4096, damaged.length);
    writeFileSync(path, damaged);
    const opened = openDatabase(path, { keys: keys() });
    expect(titles(opened.db)).toEqual(['Secret plans']);
    opened.db.close();
    expect(isPlainSqlite(path)).toBe(false);
  });

  it('keeps what was written to a plain file the conversion never replaced, and drops the backup left beside it', () => {
    plainDatabaseWithSession();
    writeFileSync(`${path}.unencrypted-backup`, readFileSync(path));
    const later = new BetterSqlite3(path);
    later.prepare("INSERT INTO sessions (id, title, status, created_at, updated_at) VALUES ('s2', 'Written since', 'idle', 2, 2)").run();
    later.close();
    const opened = openDatabase(path, { keys: keys() });
    expect(titles(opened.db)).toEqual(['Secret plans', 'Written since']);
    opened.db.close();
    expect(isPlainSqlite(path)).toBe(false);
    expect(existsSync(`${path}.unencrypted-backup`)).toBe(false);
  });

  it('keeps working on the plain database when the conversion fails, and converts it at the next start', () => {
    plainDatabaseWithSession();
    const failing = openDatabase(path, {
      keys: keys(),
      onConversionStep: (at) => {
        if (at === 'verify_copy') throw new Error('the disk is full');
      },
    });
    expect(failing.encryption).toEqual({ encrypted: false, reason: expect.stringContaining('the disk is full') });
    expect(titles(failing.db)).toEqual(['Secret plans']);
    failing.db.close();
    expect(isPlainSqlite(path)).toBe(true);
    expect(existsSync(`${path}.unencrypted-backup`)).toBe(false);
    const next = openDatabase(path, { keys: keys() });
    expect(next.encryption).toEqual({ encrypted: true, cipher: 'aegis-256' });
    expect(titles(next.db)).toEqual(['Secret plans']);
    next.db.close();
  });

  it('stays plain and says so where the system offers no keychain', () => {
    plainDatabaseWithSession();
    const opened = openDatabase(path, { keys: new CipherKeptDatabaseKey(keyPath, noKeychain) });
    expect(opened.encryption).toEqual({ encrypted: false, reason: 'not encrypted: this system offers no keychain' });
    expect(titles(opened.db)).toEqual(['Secret plans']);
    opened.db.close();
    expect(isPlainSqlite(path)).toBe(true);
    expect(existsSync(keyPath)).toBe(false);
  });

  it('refuses a wrong key with a typed error, leaves the file as it was and names the backup that opens', () => {
    openDatabase(path, { keys: keys() }).db.close();
    // A migration's copy of the database, kept beside it.
    writeFileSync(`${path}.backup-v${latestSchemaVersion}-1`, readFileSync(path));
    // An older plain copy, from before the database was encrypted.
    const plainBackup = `${path}.backup-v2-0`;
    const plain = new BetterSqlite3(plainBackup);
    plain.exec('CREATE TABLE sessions (title TEXT)');
    plain.close();
    const plainBefore = digest(plainBackup);
    const before = digest(path);
    // Another key than the one the database was made with.
    const otherSystem = new CipherKeptDatabaseKey(join(folder.path, 'other.key'), keychain);
    otherSystem.create();
    let caught: unknown;
    try {
      openDatabase(path, { keys: otherSystem });
    } catch (error) {
      caught = error;
    }
    // The newer copy needs the key that is gone; the plain one opens, so it is the one offered.
    expect(caught).toMatchObject({
      code: 'store_key_wrong',
      backupPath: plainBackup,
      message: expect.stringContaining('A backup taken 1970-01-01T00:00:00.000Z opens'),
    });
    expect(digest(path)).toBe(before);
    // Nothing is encrypted with a key that does not open the database.
    expect(digest(plainBackup)).toBe(plainBefore);
  });

  it('encrypts, with the key, the plain copies taken before a schema change, which then open with it', () => {
    plainDatabaseWithSession();
    const backup = `${path}.backup-v3-100`;
    const source = new BetterSqlite3(path);
    source.prepare('VACUUM INTO ?').run(backup);
    source.close();
    expect(isPlainSqlite(backup)).toBe(true);
    openDatabase(path, { keys: keys() }).db.close();
    expect(isPlainSqlite(backup)).toBe(false);
    expect(readFileSync(backup).includes('Secret plans')).toBe(false);
    const copy = openDatabase(backup, { keys: keys() });
    expect(titles(copy.db)).toEqual(['Secret plans']);
    copy.db.close();
    expect(readdirSync(folder.path).filter((name) => name.includes('encrypting'))).toEqual([]);
  });

  it('refuses a missing key (no keychain, or the key file gone) and never overwrites the database', () => {
    openDatabase(path, { keys: keys() }).db.close();
    const before = digest(path);
    expect(() => openDatabase(path, { keys: new CipherKeptDatabaseKey(keyPath, noKeychain) })).toThrow(
      expect.objectContaining({ code: 'store_key_missing', message: expect.stringContaining('this system offers no keychain') }),
    );
    const otherKeychain = new CipherKeptDatabaseKey(keyPath, memoryKeyCipher());
    expect(() => openDatabase(path, { keys: otherKeychain })).toThrow(expect.objectContaining({ code: 'store_key_missing' }));
    writeFileSync(keyPath + '.moved', readFileSync(keyPath));
    writeFileSync(keyPath, '');
    expect(() => openDatabase(path, { keys: keys() })).toThrow(expect.objectContaining({ code: 'store_key_missing' }));
    expect(digest(path)).toBe(before);
    expect(readFileSync(keyPath, 'utf8')).toBe('');
  });

  it('leaves a plain database of a newer app as it was, unconverted', () => {
    openDatabase(path).db.close();
    const newer = new BetterSqlite3(path);
    newer.pragma(`user_version = ${latestSchemaVersion + 5}`);
    newer.close();
    const before = digest(path);
    expect(() => openDatabase(path, { keys: keys() })).toThrow(expect.objectContaining({ code: 'store_newer_version' }));
    expect(digest(path)).toBe(before);
    expect(isPlainSqlite(path)).toBe(true);
  });

  it("keeps a migration's backup of an encrypted database encrypted", () => {
    openDatabase(path, { keys: keys() }).db.close();
    const next: Migration = {
      version: latestSchemaVersion + 1,
      description: 'adds a column',
      up: (db) => db.exec('ALTER TABLE sessions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0'),
    };
    const { db, backupPath } = openDatabase(path, { keys: keys(), migrations: [...migrations, next], now: () => 7 });
    db.close();
    expect(backupPath).not.toBeNull();
    expect(isPlainSqlite(backupPath ?? '')).toBe(false);
  });
});
