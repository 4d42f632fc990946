import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/store/database';
import {
  holdDatabase,
  judgeHolder,
  nodeLockSystem,
  pidRuns,
  readBootId,
  whileAlone,
  type DatabaseHolder,
  type LockSystem,
} from '../../../src/main/store/database-lock';
import { restoreBackup } from '../../../src/main/store/database-restore';
import { latestSchemaVersion } from '../../../src/main/store/migrations';
import { CipherKeptDatabaseKey } from '../../../src/main/secrets/cipher-kept-database-key';
import { memoryKeyCipher } from '../../host/test-cipher';
import { temporaryFolder } from '../../helpers';
import { ended, otherProcessHolding } from '../../database-holder';

const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** A pid that ran a moment ago and no longer does. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await ended(child);
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

describe('only one process puts a backup back, and only while no other has the database open', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let path: string;
  let backup: string;
  const children: ChildProcess[] = [];

  /** A database holding one session of the given title, closed. */
  function databaseWith(title: string, at = path): void {
    const { db } = openDatabase(at);
    db.prepare("INSERT OR REPLACE INTO sessions (id, title, status, created_at, updated_at) VALUES ('s1', ?, 'idle', 1, 1)").run(title);
    db.close();
  }
  function titles(): unknown[] {
    const { db } = openDatabase(path);
    try {
      return db.prepare('SELECT title FROM sessions').pluck().all();
    } finally {
      db.close();
    }
  }

  beforeEach(() => {
    folder = temporaryFolder();
    path = join(folder.path, 'workbench.sqlite');
    databaseWith('Yesterday');
    backup = `${path}.backup-v${latestSchemaVersion}-1700000000000`;
    writeFileSync(backup, readFileSync(path));
    databaseWith('Today');
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      child.kill('SIGKILL');
      await ended(child);
    }
    folder.remove();
  });

  it('refuses while another process has it open, naming it, and changes nothing; works once that process has quit', async () => {
    const other = await otherProcessHolding(path, 'the terminal runner');
    children.push(other);
    const before = digest(path);
    expect(() => restoreBackup(path, backup, null, latestSchemaVersion, 5)).toThrow(
      expect.objectContaining({
        code: 'store_in_use',
        message: expect.stringMatching(
          new RegExp(`open in the terminal runner \\(pid ${other.pid}, since .*\\)\\. Putting a backup back needs it alone`),
        ),
      }),
    );
    expect(digest(path)).toBe(before);
    expect(readdirSync(folder.path).filter((name) => /unopened|restoring|\.lock/.test(name))).toEqual([]);

    // Quitting as it should: its stdin ends, it closes the database and lets go.
    other.stdin?.end();
    await ended(other);
    restoreBackup(path, backup, null, latestSchemaVersion, 6);
    expect(titles()).toEqual(['Yesterday']);
    expect(readdirSync(folder.path).filter((name) => /\.open-|\.lock/.test(name))).toEqual([]);
  }, 30_000);

  it('takes over the record of a process that was killed, and a lock left by one', async () => {
    const other = await otherProcessHolding(path, 'Agent Workbench');
    children.push(other);
    other.kill('SIGKILL');
    await ended(other);
    // Its record stays behind, naming a pid that no longer runs.
    expect(readdirSync(folder.path).filter((name) => name.startsWith('workbench.sqlite.open-'))).toHaveLength(1);
    const system = nodeLockSystem();
    const gone: DatabaseHolder = {
      pid: await deadPid(),
      host: system.host,
      bootId: system.bootId(),
      bootedAt: system.bootedAt(),
      startedAt: Date.now(),
      name: 'a restore that crashed',
      purpose: 'restore',
      token: 'left',
    };
    writeFileSync(`${path}.lock`, JSON.stringify(gone));
    const aside = restoreBackup(path, backup, null, latestSchemaVersion, 7);
    expect(readdirSync(folder.path).filter((name) => name.startsWith('workbench.sqlite.open-'))).toEqual([]);
    expect(titles()).toEqual(['Yesterday']);
    expect(existsSync(aside)).toBe(true);
    expect(readdirSync(folder.path).filter((name) => /\.open-|\.lock/.test(name))).toEqual([]);
  }, 30_000);

  it('clears the records of processes that were killed when the next one opens the database', async () => {
    const records = (): string[] => readdirSync(folder.path).filter((name) => name.startsWith('workbench.sqlite.open-'));
    const pids: Array<number | undefined> = [];
    for (const name of ['first', 'second']) {
      const killed = await otherProcessHolding(path, name);
      children.push(killed);
      pids.push(killed.pid);
      killed.kill('SIGKILL');
      await ended(killed);
    }
    // The second one, opening, took the first one's record away; its own is left.
    expect(records()).toEqual([expect.stringMatching(new RegExp(`^workbench\\.sqlite\\.open-${pids[1]}-`))]);
    const hold = holdDatabase(path, 'Agent Workbench');
    expect(records()).toEqual([`workbench.sqlite.open-${process.pid}-${hold.holder.token}`]);
    hold.release();
    expect(records()).toEqual([]);
  }, 30_000);

  it('keeps a process from opening the database while another is putting a backup back in it', async () => {
    const other = await otherProcessHolding(join(folder.path, 'unrelated.sqlite'), 'the test host');
    children.push(other);
    const system = nodeLockSystem();
    const restoring: DatabaseHolder = {
      pid: other.pid ?? 0,
      host: system.host,
      bootId: system.bootId(),
      bootedAt: system.bootedAt(),
      startedAt: Date.parse('2026-01-02T03:04:05Z'),
      name: 'the terminal runner',
      purpose: 'restore',
      token: 'busy',
    };
    writeFileSync(`${path}.lock`, JSON.stringify(restoring));
    expect(() => holdDatabase(path, 'Agent Workbench')).toThrow(
      expect.objectContaining({
        code: 'store_in_use',
        message: `The database ${path} is being put back from a backup by the terminal runner (pid ${other.pid}, since 2026-01-02T03:04:05.000Z); start again once it is done.`,
      }),
    );
    // Refused, it leaves no record of its own behind.
    expect(readdirSync(folder.path).filter((name) => name.startsWith('workbench.sqlite.open-'))).toEqual([]);
    expect(() => restoreBackup(path, backup, null, latestSchemaVersion, 8)).toThrow(expect.objectContaining({ code: 'store_in_use' }));
    expect(titles()).toEqual(['Today']);
  }, 30_000);

  it('counts a record it cannot read as held for a moment, then as gone; and one of another computer as held, saying how to clear it', () => {
    const lock = `${path}.lock`;
    writeFileSync(lock, '{"pid":');
    expect(() => restoreBackup(path, backup, null, latestSchemaVersion, 9)).toThrow(
      expect.objectContaining({
        code: 'store_in_use',
        message: expect.stringContaining(`a process that is just taking hold of it (${lock})`),
      }),
    );
    utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    restoreBackup(path, backup, null, latestSchemaVersion, 10);
    expect(titles()).toEqual(['Yesterday']);

    const system = nodeLockSystem();
    const elsewhere: DatabaseHolder = {
      pid: process.pid,
      host: `${system.host}-other`,
      bootId: null,
      bootedAt: 0,
      startedAt: Date.parse('2026-01-02T03:04:05Z'),
      name: 'Agent Workbench',
      purpose: 'open',
      token: 'remote',
    };
    const record = `${path}.open-${process.pid}-remote`;
    writeFileSync(record, JSON.stringify(elsewhere));
    expect(() => restoreBackup(path, backup, null, latestSchemaVersion, 11)).toThrow(
      expect.objectContaining({
        message: expect.stringContaining(
          `open in Agent Workbench (pid ${process.pid} on the computer ${system.host}-other, since 2026-01-02T03:04:05.000Z; if it no longer runs, delete ${record})`,
        ),
      }),
    );
  });

  it('does not convert a plain database to encrypted while another process has it open, and does once it is alone', async () => {
    const keys = new CipherKeptDatabaseKey(join(folder.path, 'database.key'), memoryKeyCipher());
    const other = await otherProcessHolding(path, 'the terminal runner');
    children.push(other);
    const opened = openDatabase(path, { keys });
    expect(opened.encryption).toEqual({
      encrypted: false,
      reason: expect.stringMatching(new RegExp(`^not encrypted yet: the terminal runner \\(pid ${other.pid}, since .*\\) has it open`)),
    });
    opened.db.close();
    expect(readFileSync(path).subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
    other.stdin?.end();
    await ended(other);
    const alone = openDatabase(path, { keys });
    expect(alone.encryption).toEqual({ encrypted: true, cipher: 'aegis-256' });
    alone.db.close();
  }, 30_000);
});

describe('whether the process of a record still holds the database', () => {
  const holder = (over: Partial<DatabaseHolder> = {}): DatabaseHolder => ({
    pid: 4242,
    host: 'here',
    bootId: 'boot-a',
    bootedAt: 1_000_000,
    startedAt: 2_000_000,
    name: 'Agent Workbench',
    purpose: 'open',
    token: 't',
    ...over,
  });
  const system = (over: Partial<LockSystem> & { running?: number[]; boot?: string | null; booted?: number } = {}): LockSystem => ({
    pid: over.pid ?? 7,
    host: over.host ?? 'here',
    bootId: () => (over.boot === undefined ? 'boot-a' : over.boot),
    bootedAt: () => over.booted ?? 1_000_000,
    now: () => 3_000_000,
    isRunning: (pid) => (over.running ?? []).includes(pid),
  });

  it('holds while its pid runs in this boot, and is gone when it does not, or ran in an earlier boot', () => {
    expect(judgeHolder(holder(), system({ running: [4242] }))).toBe('live');
    expect(judgeHolder(holder(), system({ running: [] }))).toBe('gone');
    // After a restart the pid may belong to another program: the boot says the record is old.
    expect(judgeHolder(holder(), system({ running: [4242], boot: 'boot-b' }))).toBe('gone');
    expect(judgeHolder(holder({ pid: 7 }), system())).toBe('this');
    expect(judgeHolder(holder({ pid: 7 }), system({ boot: 'boot-b' }))).toBe('gone');
  });

  it('without boot ids, goes by when the computer started, allowing for the clock moving a little', () => {
    const noIds = { boot: null, running: [4242] };
    expect(judgeHolder(holder({ bootId: null }), system({ ...noIds, booted: 1_000_000 + 30_000 }))).toBe('live');
    expect(judgeHolder(holder({ bootId: null }), system({ ...noIds, booted: 1_000_000 + 3_600_000 }))).toBe('gone');
  });

  it('holds when it is of another computer, whose processes cannot be asked from here', () => {
    expect(judgeHolder(holder({ host: 'elsewhere' }), system({ running: [] }))).toBe('live');
  });

  it('reads the boot id on Linux only, and none when it cannot be read', () => {
    const read = (file: string): string => (file === '/proc/sys/kernel/random/boot_id' ? 'c0ffee\n' : '');
    expect(readBootId('linux', read)).toBe('c0ffee');
    expect(readBootId('darwin', read)).toBeNull();
    expect(readBootId('win32', read)).toBeNull();
    expect(
      readBootId('linux', () => {
        throw new Error('no /proc');
      }),
    ).toBeNull();
  });

  it('counts a pid as running when signalling it is refused, and not when there is no such process', () => {
    const fail = (code: string) => () => {
      throw Object.assign(new Error(code), { code });
    };
    expect(pidRuns(1, fail('EPERM'))).toBe(true);
    expect(pidRuns(1, fail('ESRCH'))).toBe(false);
    expect(pidRuns(process.pid)).toBe(true);
  });

  it('runs the work alone over this process’s own records, and leaves no lock behind, even when the work fails', () => {
    const folder = temporaryFolder();
    try {
      const path = join(folder.path, 'workbench.sqlite');
      const hold = holdDatabase(path, 'Agent Workbench');
      expect(whileAlone(path, 'convert', 'Agent Workbench', () => 'done')).toBe('done');
      expect(() =>
        whileAlone(path, 'restore', 'Agent Workbench', () => {
          throw new Error('the disk is full');
        }),
      ).toThrow('the disk is full');
      expect(existsSync(`${path}.lock`)).toBe(false);
      hold.release();
      expect(readdirSync(folder.path)).toEqual([]);
    } finally {
      folder.remove();
    }
  });
});
