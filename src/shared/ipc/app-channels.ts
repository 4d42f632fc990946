/*
 * The IPC channels of the app itself: putting back the backup of a database that could not be opened, and its updates
 * (whose channels have a file of their own).
 */

import { z } from 'zod';
import { updateChannels, updateEvents } from './update-channels';

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
  ...updateChannels,
};

/** The app's own events, spread into the contract (`events`). */
export const appEvents = { ...updateEvents };
