/*
 * The answer to `app:restoreBackup` while the database cannot be opened: the backup the start-up error named put back
 * once, and the app started again where it can.
 */

import { WorkbenchError } from '../../shared/errors';
import type { DatabaseKeyKeeper } from '../store/database-key';
import { restoreBackup } from '../store/database-restore';
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
    restored = restoreBackup(options.databasePath, options.backupPath, keptKey(options.keys), latestSchemaVersion, options.now());
    const { relaunch } = options;
    // After the answer has reached the window, which then says the app starts again.
    if (relaunch) setTimeout(relaunch, 250);
    return { setAsidePath: restored, relaunching: relaunch !== undefined };
  };
}
