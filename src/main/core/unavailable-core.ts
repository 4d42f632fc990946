/*
 * The app while its database cannot be opened: what the window is told, every channel refusing but `app:info` and
 * `app:restoreBackup`, and that one putting back the backup the start-up error named, once.
 */

import { StoreError, WorkbenchError, type ErrorInfo } from '../../shared/errors';
import type { AppInfo } from '../../shared/ipc/contract';
import { createUnavailableHandlers } from '../ipc/handlers';
import type { Handlers } from '../ipc/router';
import type { DatabaseKeyKeeper } from '../store/database-key';
import type { LockSystem } from '../store/database-lock';
import { restoreBackup, takenAtOf } from '../store/database-restore';
import { latestSchemaVersion } from '../store/migrations';

/** The key kept for the database, or null where none can be read (a plain backup may still open). */
function keptKey(keys: DatabaseKeyKeeper | undefined): Buffer | null {
  try {
    return keys?.keeping().available ? keys.read() : null;
  } catch {
    return null;
  }
}

/**
 * Puts `backupPath` (the newest backup that opened when the app started, or none) back in place of the database at
 * `databasePath`, once: the database is kept beside it, and `relaunch`, when given, starts the app again once the
 * answer has gone out.
 */
export function backupRestorer(options: {
  readonly databasePath: string;
  readonly backupPath: string | undefined;
  readonly keys: DatabaseKeyKeeper | undefined;
  readonly now: () => number;
  readonly relaunch?: (() => void) | undefined;
  /** Who restores, as a process that has the database open is told (the restore then waits for it to quit). */
  readonly restore?: { readonly holderName?: string | undefined; readonly lockSystem?: LockSystem | undefined } | undefined;
}): () => { setAsidePath: string; relaunching: boolean } {
  let restored: string | null = null;
  return () => {
    if (restored !== null) {
      throw new WorkbenchError(
        'invalid_state',
        `The backup is already in place (the database was kept as ${restored}): start the app again to open it.`,
      );
    }
    if (options.backupPath === undefined)
      throw new WorkbenchError('invalid_state', 'No backup of the database opens here; nothing was changed.');
    const { holderName: holder, lockSystem } = options.restore ?? {};
    restored = restoreBackup(options.databasePath, options.backupPath, keptKey(options.keys), latestSchemaVersion, options.now(), {
      ...(holder ? { holder } : {}),
      ...(lockSystem ? { lockSystem } : {}),
    });
    const { relaunch } = options;
    // After the answer has reached the window, which then says the app starts again.
    if (relaunch) setTimeout(relaunch, 250);
    return { setAsidePath: restored, relaunching: relaunch !== undefined };
  };
}

/**
 * What the window is told when the core could not start for `error` (`baseInfo` plus why, and the backup that opens),
 * the handlers that then answer, and the error every opening of a path meets.
 */
export function unavailableCore(
  error: unknown,
  options: {
    readonly baseInfo: Omit<AppInfo, 'databaseEncryption' | 'startupError'>;
    readonly databasePath: string;
    readonly keys: DatabaseKeyKeeper | undefined;
    readonly now: () => number;
    readonly relaunch?: (() => void) | undefined;
    readonly restore?: { readonly holderName?: string | undefined; readonly lockSystem?: LockSystem | undefined } | undefined;
  },
): { readonly appInfo: AppInfo; readonly handlers: Handlers; readonly refusal: WorkbenchError } {
  const info: ErrorInfo = error instanceof WorkbenchError ? error.toInfo() : { code: 'store_unavailable', message: String(error) };
  // A backup the person may put back (the newest one that opens, named by the error).
  const backupPath = error instanceof StoreError ? error.backupPath : undefined;
  const appInfo: AppInfo = {
    ...options.baseInfo,
    databaseEncryption: { encrypted: false, description: 'The database could not be opened.' },
    startupError: { ...info, ...(backupPath ? { backupPath, backupTakenAt: takenAtOf(backupPath) } : {}) },
  };
  const restore = backupRestorer({ ...options, backupPath });
  return {
    appInfo,
    handlers: createUnavailableHandlers(appInfo, restore),
    refusal: new WorkbenchError(info.code, `Nothing can be opened: ${info.message}`),
  };
}
