import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Database } from 'better-sqlite3';
import BetterSqlite3 from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/store/database';
import { conversionSteps, convertToEncrypted, type ConversionStep } from '../../../src/main/store/database-conversion';
import { applyKey, openWithKey, type DatabaseCipher } from '../../../src/main/store/database-key';
import { restorableBackups, restoreBackup } from '../../../src/main/store/database-restore';
import { latestSchemaVersion } from '../../../src/main/store/migrations';
import { CipherKeptDatabaseKey } from '../../../src/main/secrets/cipher-kept-database-key';
import { memoryKeyCipher } from '../../host/test-cipher';
import { leaveAsCrashed, temporaryFolder } from '../../helpers';
import { ended, otherProcessHolding } from '../../database-holder';

class Crash extends Error {}

const titles = (db: { prepare(sql: string): { pluck(): { all(): unknown[] } } }): unknown[] =>
  db.prepare('SELECT title FROM sessions ORDER BY id').pluck().all();

/** The cipher `file` opens with under `key`, or null when it opens with none. */
function cipherOf(file: string, key: Buffer): DatabaseCipher | null {
  const opened = openWithKey(file, key, { readonly: true, fileMustExist: true });
  opened?.db.close();
  return opened?.cipher ?? null;
}

/** Flips one bit at `offset` within page `page` (from 1) of the file, as a change made to it on disk. */
function flipBit(file: string, page: number, offset: number): void {
  const bytes = readFileSync(file);
  const at = (page - 1) * 4096 + offset;
  bytes[at] = (bytes[at] ?? 0) ^ 0x10;
  writeFileSync(file, bytes);
}

describe('the cipher of the database', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let path: string;
  const keychain = memoryKeyCipher();
  const keys = (): CipherKeptDatabaseKey => new CipherKeptDatabaseKey(join(folder.path, 'database.key'), keychain);
  const key = (): Buffer => keys().read() ?? keys().create();
  const children: ChildProcess[] = [];

  beforeEach(() => {
    folder = temporaryFolder();
    path = join(folder.path, 'workbench.sqlite');
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      child.kill('SIGKILL');
      await ended(child);
    }
    folder.remove();
  });

  /**
   * A database of the app's as versions before wrote it: SQLCipher's format without its HMAC, in WAL mode, with a session
   * whose title is only in the write-ahead log (copied while open, as after a crash).
   */
  function databaseOfVersionsBefore(title = 'Secret plans'): void {
    openDatabase(path).db.close();
    const db = new BetterSqlite3(path);
    db.pragma('journal_mode = DELETE');
    applyKey(db, key(), 'rekey', 'sqlcipher');
    db.pragma('journal_mode = WAL');
    crashWithSession(db, title);
    expect(cipherOf(path, key())).toBe('sqlcipher');
  }

  /** Adds a session to the open database and leaves its files as a crash would: the session only in the log. */
  function crashWithSession(db: Database, title: string): void {
    db.prepare("INSERT INTO sessions (id, title, status, created_at, updated_at) VALUES ('s1', ?, 'idle', 1, 1)").run(title);
    leaveAsCrashed(path, db);
  }

  /** Converting the file to the cipher the app writes, stopped before `step` as a crash would stop it. */
  const convertingCrashesAt = (step: ConversionStep) => (): void =>
    convertToEncrypted(
      path,
      key(),
      (at) => {
        if (at === step) throw new Crash(`crashed before ${at}`);
      },
      'sqlcipher',
    );

  const otherKeys = (): CipherKeptDatabaseKey => {
    const other = new CipherKeptDatabaseKey(join(folder.path, 'other.key'), keychain);
    if (!other.read()) other.create();
    return other;
  };

  it('writes AEGIS-256, which refuses a page changed on disk where the format before read it without a word', () => {
    const opened = openDatabase(path, { keys: keys() });
    opened.db.prepare("INSERT INTO sessions (id, title, status, created_at, updated_at) VALUES ('s1', 'Secret plans', 'idle', 1, 1)").run();
    const page = opened.db.prepare("SELECT pageno FROM dbstat WHERE name = 'sessions'").pluck().get() as number;
    expect(opened.db.pragma('page_size', { simple: true })).toBe(4096);
    opened.db.pragma('wal_checkpoint(TRUNCATE)');
    opened.db.close();
    expect(cipherOf(path, key())).toBe('aegis-256');

    // One bit flipped in the free middle of the page that holds the session: AEGIS authenticates the whole page.
    flipBit(path, page, 2000);
    const reopened = openDatabase(path, { keys: keys() });
    expect(() => titles(reopened.db)).toThrow(expect.objectContaining({ code: 'SQLITE_CORRUPT' }));
    reopened.db.close();

    // The same bit in the format versions before wrote goes unnoticed.
    folder.remove();
    folder = temporaryFolder();
    path = join(folder.path, 'workbench.sqlite');
    databaseOfVersionsBefore();
    const legacy = openWithKey(path, key());
    if (!legacy) throw new Error('the file of versions before did not open');
    legacy.db.pragma('wal_checkpoint(TRUNCATE)');
    const legacyPage = legacy.db.prepare("SELECT pageno FROM dbstat WHERE name = 'sessions'").pluck().get() as number;
    legacy.db.close();
    flipBit(path, legacyPage, 2000);
    const read = openWithKey(path, key());
    expect(read?.cipher).toBe('sqlcipher');
    expect(read && titles(read.db)).toEqual(['Secret plans']);
    read?.db.close();
  });

  it('converts a database in the format versions before wrote at the next start, its write-ahead log included', () => {
    databaseOfVersionsBefore();
    const opened = openDatabase(path, { keys: keys() });
    expect(opened.encryption).toEqual({ encrypted: true, cipher: 'aegis-256' });
    expect(titles(opened.db)).toEqual(['Secret plans']);
    expect(opened.db.pragma('journal_mode', { simple: true })).toBe('wal');
    opened.db.close();
    expect(cipherOf(path, key())).toBe('aegis-256');
    expect(readFileSync(path).includes('Secret plans')).toBe(false);
    // The file as it was is kept as a schema change's backup, in its own format, which a version before can open.
    const left = readdirSync(folder.path).filter((name) => /backup|encrypting|partial/.test(name));
    expect(left).toEqual([expect.stringMatching(new RegExp(`^workbench\\.sqlite\\.backup-v${latestSchemaVersion}-\\d+$`))]);
    const kept = join(folder.path, left[0] ?? '');
    expect(cipherOf(kept, key())).toBe('sqlcipher');
    expect(restorableBackups(path, key(), latestSchemaVersion).map((found) => found.path)).toEqual([kept]);
    const old = openWithKey(kept, key(), { readonly: true });
    expect(old && titles(old.db)).toEqual(['Secret plans']);
    old?.db.close();
  });

  it.each(conversionSteps.map((step) => [step]))(
    'recovers a conversion of the cipher that crashed before %s, losing nothing',
    (step: ConversionStep) => {
      databaseOfVersionsBefore();
      expect(convertingCrashesAt(step)).toThrow(Crash);
      const opened = openDatabase(path, { keys: keys() });
      expect(titles(opened.db)).toEqual(['Secret plans']);
      expect(opened.db.pragma('integrity_check', { simple: true })).toBe('ok');
      opened.db.close();
      expect(cipherOf(path, key())).toBe('aegis-256');
      expect(existsSync(`${path}.sqlcipher-backup`)).toBe(false);
      expect(existsSync(`${path}.encrypting`)).toBe(false);
    },
  );

  it('puts the old file back over a half-written new one left by a power cut in the conversion', () => {
    databaseOfVersionsBefore();
    expect(convertingCrashesAt('verify')).toThrow(Crash);
    const damaged = readFileSync(path);
    damaged.fill(0, 4096, damaged.length);
    writeFileSync(path, damaged);
    const opened = openDatabase(path, { keys: keys() });
    expect(titles(opened.db)).toEqual(['Secret plans']);
    opened.db.close();
    expect(cipherOf(path, key())).toBe('aegis-256');
  });

  it('keeps working in the format before when the conversion fails, and converts at the next start', () => {
    databaseOfVersionsBefore();
    const failing = openDatabase(path, {
      keys: keys(),
      onConversionStep: (at) => {
        if (at === 'verify_copy') throw new Error('the disk is full');
      },
    });
    expect(failing.encryption).toEqual({
      encrypted: true,
      cipher: 'sqlcipher',
      notConverted: 'converting it failed (the disk is full); it is tried again at the next start',
    });
    failing.db.prepare("INSERT INTO sessions (id, title, status, created_at, updated_at) VALUES ('s2', 'More plans', 'idle', 2, 2)").run();
    expect(titles(failing.db)).toEqual(['Secret plans', 'More plans']);
    failing.db.close();
    expect(cipherOf(path, key())).toBe('sqlcipher');
    expect(existsSync(`${path}.sqlcipher-backup`)).toBe(false);
    const next = openDatabase(path, { keys: keys() });
    expect(titles(next.db)).toEqual(['Secret plans', 'More plans']);
    next.db.close();
    expect(cipherOf(path, key())).toBe('aegis-256');
  });

  it('leaves the cipher as it is while another process has the database open, and converts once it has quit', async () => {
    databaseOfVersionsBefore();
    const other = await otherProcessHolding(path, 'the terminal runner', 'hold-only');
    children.push(other);
    const shared = openDatabase(path, { keys: keys() });
    expect(shared.encryption).toMatchObject({
      cipher: 'sqlcipher',
      notConverted: expect.stringMatching(/^the terminal runner \(pid \d+, since .*\) has it open/),
    });
    expect(titles(shared.db)).toEqual(['Secret plans']);
    shared.db.close();
    expect(cipherOf(path, key())).toBe('sqlcipher');
    other.stdin?.end();
    await ended(other);
    const alone = openDatabase(path, { keys: keys() });
    expect(titles(alone.db)).toEqual(['Secret plans']);
    alone.db.close();
    expect(cipherOf(path, key())).toBe('aegis-256');
  }, 30_000);

  it('offers and puts back a backup in the format before, which is then converted', () => {
    databaseOfVersionsBefore('Kept in the backup');
    const backup = `${path}.backup-v${latestSchemaVersion}-1000`;
    const legacy = openWithKey(path, key());
    legacy?.db.prepare('VACUUM INTO ?').run(backup);
    legacy?.db.close();
    expect(cipherOf(backup, key())).toBe('sqlcipher');
    // The database itself is lost: its first page is gone.
    const damaged = readFileSync(path);
    damaged.fill(0, 0, 4096);
    writeFileSync(path, damaged);
    expect(() => openDatabase(path, { keys: keys() })).toThrow(expect.objectContaining({ code: 'store_key_wrong', backupPath: backup }));
    expect(restorableBackups(path, key(), latestSchemaVersion).map((found) => found.path)).toEqual([backup]);
    restoreBackup(path, backup, key(), latestSchemaVersion, 2000);
    const opened = openDatabase(path, { keys: keys() });
    expect(titles(opened.db)).toEqual(['Kept in the backup']);
    opened.db.close();
    expect(cipherOf(path, key())).toBe('aegis-256');
  });

  it.each([['AEGIS-256'], ["SQLCipher's format"]])(
    'refuses another key on a database in %s left by a crash, and its log still holds the session for the right key',
    (format: string) => {
      if (format === 'AEGIS-256') crashWithSession(openDatabase(path, { keys: keys() }).db, 'Secret plans');
      else databaseOfVersionsBefore();
      expect(existsSync(`${path}-wal`)).toBe(true);
      expect(() => openDatabase(path, { keys: otherKeys() })).toThrow(expect.objectContaining({ code: 'store_key_wrong' }));
      const opened = openDatabase(path, { keys: keys() });
      expect(titles(opened.db)).toEqual(['Secret plans']);
      expect(opened.db.pragma('integrity_check', { simple: true })).toBe('ok');
      opened.db.close();
    },
  );

  it('says a page damaged after the first is damage, not a wrong key', () => {
    const opened = openDatabase(path, { keys: keys() });
    const schemaPages = opened.db
      .prepare("SELECT pageno FROM dbstat WHERE name = 'sqlite_schema' ORDER BY pageno")
      .pluck()
      .all() as number[];
    opened.db.pragma('wal_checkpoint(TRUNCATE)');
    opened.db.close();
    const later = schemaPages.find((page) => page > 1);
    if (later === undefined) throw new Error(`the schema fits one page here (${schemaPages.join(', ')})`);
    flipBit(path, later, 2000);
    expect(() => openDatabase(path, { keys: keys() })).toThrow(
      expect.objectContaining({ code: 'store_corrupt', message: expect.stringContaining('the file is damaged') }),
    );
  });

  it('does not open the database when a conversion that replaced the file cannot be undone, and loses nothing once it can be', () => {
    databaseOfVersionsBefore();
    // Something in the way of putting the old file back over the new one.
    const inTheWay = `${path}.restoring.partial`;
    expect(() =>
      openDatabase(path, {
        keys: keys(),
        onConversionStep: (at) => {
          if (at !== 'verify') return;
          mkdirSync(inTheWay);
          throw new Error('the disk is full');
        },
      }),
    ).toThrow(expect.objectContaining({ code: 'store_unavailable', message: expect.stringContaining('could not be put back') }));
    expect(existsSync(`${path}.sqlcipher-backup`)).toBe(true);
    // Still in the way at the next start: refused again, with nothing changed.
    expect(() => openDatabase(path, { keys: keys() })).toThrow(expect.objectContaining({ code: 'store_unavailable' }));
    expect(existsSync(`${path}.sqlcipher-backup`)).toBe(true);
    rmSync(inTheWay, { recursive: true });
    const opened = openDatabase(path, { keys: keys() });
    expect(titles(opened.db)).toEqual(['Secret plans']);
    opened.db.close();
    expect(cipherOf(path, key())).toBe('aegis-256');
    expect(existsSync(`${path}.sqlcipher-backup`)).toBe(false);
  });

  it('opens a database never replaced even when a copy the conversion left cannot be removed', () => {
    databaseOfVersionsBefore();
    writeFileSync(`${path}.sqlcipher-backup`, readFileSync(path));
    // A leftover work copy's sidecar that cannot be removed as a file.
    mkdirSync(`${path}.encrypting-journal`);
    const opened = openDatabase(path, { keys: keys() });
    expect(titles(opened.db)).toEqual(['Secret plans']);
    expect(opened.encryption).toMatchObject({ cipher: 'sqlcipher', notConverted: expect.stringContaining('converting it failed') });
    opened.db.close();
    expect(existsSync(`${path}.sqlcipher-backup`)).toBe(false);
  });

  it('keeps what was written to a file the conversion never replaced, and drops the backup left beside it', () => {
    databaseOfVersionsBefore();
    writeFileSync(`${path}.sqlcipher-backup`, readFileSync(path));
    // Written after the backup was taken, as by a run that went on with the file as it was.
    const legacy = openWithKey(path, key());
    legacy?.db
      .prepare("INSERT INTO sessions (id, title, status, created_at, updated_at) VALUES ('s2', 'Written since', 'idle', 2, 2)")
      .run();
    legacy?.db.close();
    const opened = openDatabase(path, { keys: keys() });
    expect(titles(opened.db)).toEqual(['Secret plans', 'Written since']);
    opened.db.close();
    expect(existsSync(`${path}.sqlcipher-backup`)).toBe(false);
  });
});
