/*
 * Who has the database open, kept beside it: every process that opens it (the app, the terminal runner, the test host)
 * keeps a record of its own there for as long as it does, and what needs the database alone (putting a backup back,
 * converting it to encrypted) takes the lock file and runs only while no other running process has it open. Records
 * left by a process that is gone (its pid no longer runs, or it ran before this computer last started) are taken over.
 */

import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, uptime } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { StoreError } from '../../shared/errors';

/** Why a process has the database: open as usual (shared with others), or alone to put a backup back or convert it. */
export const holdPurposeSchema = z.enum(['open', 'restore', 'convert']);
export type HoldPurpose = z.infer<typeof holdPurposeSchema>;

/** One process's record of holding the database, as written to its file. */
export const databaseHolderSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string().max(256),
  /** The boot it ran in (Linux's boot id), or null where the system gives none. */
  bootId: z.string().max(100).nullable(),
  /** When its computer started, ms since the epoch (the wall clock less the uptime). */
  bootedAt: z.number(),
  /** When it took hold, ms since the epoch. */
  startedAt: z.number(),
  /** What the process is, as another is told: "Agent Workbench", "the terminal runner". */
  name: z.string().max(200),
  purpose: holdPurposeSchema,
  /** Tells this hold's file from another's of the same process. */
  token: z.string().max(64),
});
export type DatabaseHolder = z.infer<typeof databaseHolderSchema>;

/** Another running process has the database open or alone: `holder` names it, the message says what was refused. */
export class DatabaseInUseError extends StoreError {
  constructor(
    message: string,
    /** The process, in words (see `describeHolder`). */
    readonly holder: string,
  ) {
    super('store_in_use', message, { retryable: true });
  }
}

/** What the lock asks of the system; tests give their own to play other hosts, boots and processes gone. */
export interface LockSystem {
  readonly pid: number;
  readonly host: string;
  /** This boot's id, or null where the system has none. */
  bootId(): string | null;
  /** When this computer started, ms since the epoch. */
  bootedAt(): number;
  now(): number;
  /** Whether a process of this computer with that pid runs. */
  isRunning(pid: number): boolean;
}

/** Whether a pid runs: signal 0 checks without sending anything; a process of another user (EPERM) runs too. */
export function pidRuns(
  pid: number,
  kill: (pid: number, signal: number) => unknown = (each, signal) => process.kill(each, signal),
): boolean {
  try {
    kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** This boot's id: Linux keeps one per boot; other systems have none to read (their boot time stands in). */
export function readBootId(
  platform: NodeJS.Platform,
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): string | null {
  if (platform !== 'linux') return null;
  try {
    const id = read('/proc/sys/kernel/random/boot_id').trim();
    return id === '' ? null : id;
  } catch {
    return null;
  }
}

/** The system this process runs on. */
export function nodeLockSystem(): LockSystem {
  const bootId = readBootId(process.platform);
  return {
    pid: process.pid,
    host: hostname(),
    bootId: () => bootId,
    bootedAt: () => Date.now() - uptime() * 1000,
    now: () => Date.now(),
    isRunning: (pid) => pidRuns(pid),
  };
}

/**
 * How far apart two readings of one boot's start may be (the wall clock moves under the uptime) where the system has no
 * boot id: a record whose computer started earlier than this one by more is from a boot before.
 */
const bootSlackMs = 60_000;
/** A record that cannot be read is a process still writing it for this long, then one that is gone. */
const unreadableGraceMs = 10_000;

type Judged =
  { readonly state: 'this' | 'gone' } | { readonly state: 'live'; readonly holder: DatabaseHolder | null; readonly file: string };

/** Whether the process of a record still holds the database: this one, another that runs, or one gone. */
export function judgeHolder(holder: DatabaseHolder, system: LockSystem): 'this' | 'live' | 'gone' {
  // A process of another computer (a shared folder) cannot be asked here: it holds until its record is removed.
  if (holder.host !== system.host) return 'live';
  const bootId = system.bootId();
  const earlierBoot =
    bootId !== null && holder.bootId !== null ? bootId !== holder.bootId : holder.bootedAt < system.bootedAt() - bootSlackMs;
  if (earlierBoot) return 'gone';
  if (holder.pid === system.pid) return 'this';
  return system.isRunning(holder.pid) ? 'live' : 'gone';
}

function readHolder(file: string): DatabaseHolder | null {
  try {
    const parsed = databaseHolderSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** What a record's file says of its process; null when the file is gone. */
function judgeFile(file: string, system: LockSystem): Judged | null {
  const holder = readHolder(file);
  if (holder) {
    const state = judgeHolder(holder, system);
    return state === 'live' ? { state, holder, file } : { state };
  }
  try {
    const fresh = system.now() - statSync(file).mtimeMs < unreadableGraceMs;
    return fresh ? { state: 'live', holder: null, file } : { state: 'gone' };
  } catch {
    return null;
  }
}

/** The process a record names, in words: "the terminal runner (pid 4242, since 2026-…)". */
export function describeHolder(judged: { readonly holder: DatabaseHolder | null; readonly file: string }, system: LockSystem): string {
  const holder = judged.holder;
  if (!holder) return `a process that is just taking hold of it (${judged.file})`;
  const since = new Date(holder.startedAt).toISOString();
  if (holder.host !== system.host)
    return `${holder.name} (pid ${holder.pid} on the computer ${holder.host}, since ${since}; if it no longer runs, delete ${judged.file})`;
  return `${holder.name} (pid ${holder.pid}, since ${since})`;
}

const lockFile = (path: string): string => `${path}.lock`;
const openPrefix = (path: string): string => `${basename(path)}.open-`;

function newHolder(name: string, purpose: HoldPurpose, system: LockSystem): DatabaseHolder {
  return {
    pid: system.pid,
    host: system.host,
    bootId: system.bootId(),
    bootedAt: system.bootedAt(),
    startedAt: system.now(),
    name: name.slice(0, 200),
    purpose,
    token: randomBytes(8).toString('hex'),
  };
}

/** Removes a record's file; one that cannot be (a folder of that name) is left, and judged again next time. */
function discard(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // Left as it is.
  }
}

/** Removes a record if it is still this hold's own (a record taken over since is another's). */
function removeOwn(file: string, token: string): void {
  if (readHolder(file)?.token === token) discard(file);
}

/** The database's lock file as it stands: absent, or what it says of its process. */
const judgeLock = (path: string, system: LockSystem): Judged | null => judgeFile(lockFile(path), system);

/** A hold on the database for as long as it is open; `release` when it is closed. */
export interface DatabaseHold {
  readonly holder: DatabaseHolder;
  release(): void;
}

/**
 * Records that this process has the database at `path` open (named `name` to others), as long as the hold is not
 * released. Opening it along with others is fine (SQLite's write-ahead log is made for that); while another running
 * process has it alone (putting a backup back, converting it) the hold is refused with `store_in_use`, naming it.
 */
export function holdDatabase(path: string, name: string, system: LockSystem = nodeLockSystem()): DatabaseHold {
  const holder = newHolder(name, 'open', system);
  const file = join(dirname(path), `${openPrefix(path)}${holder.pid}-${holder.token}`);
  try {
    writeFileSync(file, JSON.stringify(holder), { flag: 'wx' });
  } catch (error) {
    throw new StoreError(
      'store_unavailable',
      `The database ${path} cannot be opened: ${file} could not be written (${(error as Error).message}).`,
      {
        cause: error,
      },
    );
  }
  // Written first, checked second (and the other way round by `whileAlone`): of two at once, one always sees the other.
  const lock = judgeLock(path, system);
  if (lock?.state === 'live') {
    discard(file);
    const what = lock.holder?.purpose === 'convert' ? 'encrypted' : 'put back from a backup';
    const other = describeHolder(lock, system);
    throw new DatabaseInUseError(`The database ${path} is being ${what} by ${other}; start again once it is done.`, other);
  }
  // Records left by processes that are gone (killed, or before a restart) go now, so they never pile up.
  for (const record of openRecords(path)) if (judgeFile(record, system)?.state === 'gone') discard(record);
  return { holder, release: () => removeOwn(file, holder.token) };
}

/** Takes the lock file, taking over one whose process is gone; the live holder when another has it. */
function takeLock(path: string, holder: DatabaseHolder, system: LockSystem): Judged | null {
  const file = lockFile(path);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      writeFileSync(file, JSON.stringify(holder), { flag: 'wx' });
      return null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new StoreError('store_unavailable', `${file} could not be written (${(error as Error).message}); nothing was changed.`, {
          cause: error,
        });
    }
    const judged = judgeFile(file, system);
    if (judged?.state === 'live') return judged;
    // Gone (or this process's, left by a failure): moved away under a name of its own, then checked again there, so a
    // lock another process took meanwhile is never removed.
    const moved = `${file}.stale-${holder.token}`;
    try {
      renameSync(file, moved);
    } catch {
      continue;
    }
    const again = judgeFile(moved, system);
    if (again?.state === 'live') {
      // Taken meanwhile by a process that runs: put back, unless yet another lock is there by now.
      try {
        linkSync(moved, file);
      } catch {
        // Another lock is in place: it is the one that counts.
      }
      discard(moved);
      return again;
    }
    discard(moved);
  }
  return judgeLock(path, system) ?? { state: 'live', holder: null, file };
}

/**
 * Runs `work` with the database at `path` alone (`purpose`: putting a backup back, or converting it), for the process
 * named `name`. Refused with `store_in_use`, naming the process, when another running process has it open or alone;
 * `work` then never runs. The records of processes gone are removed. This process's own holds do not count.
 */
export function whileAlone<T>(
  path: string,
  purpose: Exclude<HoldPurpose, 'open'>,
  name: string,
  work: () => T,
  system = nodeLockSystem(),
): T {
  const holder = newHolder(name, purpose, system);
  const what = purpose === 'restore' ? 'Putting a backup back' : 'Converting it to encrypted';
  const busy = takeLock(path, holder, system);
  if (busy?.state === 'live') {
    const doing = busy.holder?.purpose === 'convert' ? 'encrypting it' : 'putting a backup back';
    const other = describeHolder(busy, system);
    throw new DatabaseInUseError(`The database ${path} is being changed by ${other}, ${doing}; nothing was changed.`, other);
  }
  try {
    for (const file of openRecords(path)) {
      const judged = judgeFile(file, system);
      if (judged?.state === 'gone') discard(file);
      if (judged?.state === 'live') {
        const other = describeHolder(judged, system);
        throw new DatabaseInUseError(
          `The database ${path} is open in ${other}. ${what} needs it alone: quit it first; nothing was changed.`,
          other,
        );
      }
    }
    return work();
  } finally {
    removeOwn(lockFile(path), holder.token);
  }
}

/** The files of the processes that have the database at `path` open. */
function openRecords(path: string): string[] {
  const prefix = openPrefix(path);
  try {
    return readdirSync(dirname(path))
      .filter((name) => name.startsWith(prefix))
      .map((name) => join(dirname(path), name));
  } catch {
    return [];
  }
}
