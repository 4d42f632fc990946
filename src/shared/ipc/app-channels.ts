/*
 * The IPC channels of the app itself when its database could not be opened: putting back the backup it named.
 */

import { z } from 'zod';

/** The app's own channels, spread into the contract (`channels`). */
export const appChannels = {
  /**
   * Puts back the backup of the database that the start-up error named (the newest one that opens now), keeping the
   * database it replaces beside it as it was; the app then starts again where it can (`relaunching`). Refused while the
   * database is open, and where no backup opens.
   */
  'app:restoreBackup': {
    input: z.object({}).strict(),
    output: z.object({
      /** Where the database that could not be opened was kept, untouched. */
      setAsidePath: z.string(),
      /** Whether the app starts again by itself; otherwise the person starts it. */
      relaunching: z.boolean(),
    }),
  },
};
