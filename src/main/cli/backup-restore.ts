/*
 * The database's backups from the terminal: what the terminal runner says when the database cannot be opened (why, and
 * the backups kept beside it that open), and `--restore-backup` putting one back with the app's own checks.
 */

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { StoreError } from '../../shared/errors';
import { openDatabase } from '../store/database';
import { databaseFileState } from '../store/database-conversion';
import { holdDatabase } from '../store/database-lock';
import { restorableBackups, restoreBackup, type RestorableBackup } from '../store/database-restore';
import { latestSchemaVersion } from '../store/migrations';

/** How the terminal runner is named to another process that wants the database alone. */
export const terminalHolder = 'the terminal runner (npm run agent)';

/** The database of a data folder. */
export const databaseIn = (dataDir: string): string => join(dataDir, 'workbench.sqlite');

/** Whether opening failed on the file itself (damaged, or its key missing or wrong): a backup may then be put back. */
export function isUnopened(error: unknown): error is StoreError {
  return (
    error instanceof StoreError &&
    (error.code === 'store_corrupt' || error.code === 'store_key_missing' || error.code === 'store_key_wrong')
  );
}

const backupLine = (backup: RestorableBackup): string =>
  `  ${backup.path}  (taken ${new Date(backup.takenAt).toISOString()}, schema ${backup.schemaVersion})`;

/** The backups beside the database that open here (plain ones: the terminal runner has no key), newest first, as lines. */
function backupList(path: string): string[] {
  const backups = restorableBackups(path, null, latestSchemaVersion);
  return backups.length === 0 ? ['No backup kept beside it opens here.'] : ['Backups that open, newest first:', ...backups.map(backupLine)];
}

/** What the runner prints when the database of `dataDir` cannot be opened for `error`: why, and the backups that open. */
export function unopenedReport(error: StoreError, dataDir: string): string {
  const lines = [error.message, ...backupList(databaseIn(dataDir))];
  if (lines.length > 2)
    lines.push(`Put one back in its place (the file is kept beside it): npm run agent -- --data ${dataDir} --restore-backup newest|PATH`);
  return lines.join('\n');
}

export type TerminalRestore = { readonly ok: boolean; readonly message: string };

/** Null when the database at `path` opens (it is closed again), or why it does not; absent, it is not made. */
function openingError(path: string): StoreError | null {
  if (databaseFileState(path) === 'absent') return new StoreError('store_corrupt', `There is no database at ${path}.`);
  try {
    openDatabase(path, { holder: terminalHolder }).db.close();
    return null;
  } catch (error) {
    if (isUnopened(error)) return error;
    throw error;
  }
}

/**
 * `--restore-backup newest|PATH`: puts a backup of the database of `dataDir` back in its place, as the app's window
 * does, and only where the app offers it: the database cannot be opened (or is not there), the backup is one kept beside
 * it that opens now, and no other running process has the database open. The file it replaces is kept beside it,
 * untouched. Says what it did, or why it changed nothing.
 */
export function restoreFromTerminal(dataDir: string, choice: string, now: number): TerminalRestore {
  const path = databaseIn(dataDir);
  const hold = holdDatabase(path, terminalHolder);
  try {
    if (openingError(path) === null)
      return {
        ok: false,
        message: `The database ${path} opens: --restore-backup puts a backup back only in place of one that cannot be opened; nothing was changed.`,
      };
    const backups = restorableBackups(path, null, latestSchemaVersion);
    const chosen = choice === 'newest' ? backups[0] : backups.find((backup) => backup.path === resolve(choice));
    if (!chosen) {
      const what =
        choice === 'newest' ? `No backup kept beside ${path} opens here` : `${resolve(choice)} is not a backup of ${path} that opens now`;
      return { ok: false, message: [`${what}; nothing was changed.`, ...backupList(path)].join('\n') };
    }
    const aside = restoreBackup(path, chosen.path, null, latestSchemaVersion, now, { holder: terminalHolder });
    const kept = existsSync(aside)
      ? `the database that could not be opened is kept as ${aside}, untouched`
      : 'there was no database in its place';
    return {
      ok: true,
      message: `Put back ${chosen.path} (taken ${new Date(chosen.takenAt).toISOString()}) as ${path}; ${kept}. The backup stays where it was.`,
    };
  } finally {
    hold.release();
  }
}
