/*
 * The IPC channels of updates: what applies and the updater's state, the person's choices, a check, the download and
 * the restart that installs it.
 */

import { z } from 'zod';
import { updateSettingsSchema, updatesViewSchema } from '../updates';

/** Updates' channels, spread into the contract (`channels`). */
export const updateChannels = {
  /** The settings that apply (the policy's in place of the person's), what the policy locks, and the updater's state. */
  'updates:get': { input: z.object({}).strict(), output: updatesViewSchema },
  /** Changes the person's choices; one the policy decides is refused, and nothing is changed. */
  'updates:set': { input: updateSettingsSchema.partial().strict(), output: updatesViewSchema },
  /** Looks for an update now; a feed that cannot be reached is said plainly in the state. */
  'updates:check': { input: z.object({}).strict(), output: updatesViewSchema },
  /** Downloads the update found (when downloads wait to be asked for). */
  'updates:download': { input: z.object({}).strict(), output: updatesViewSchema },
  /** Quits and installs the downloaded update, then starts the app again. */
  'updates:install': { input: z.object({}).strict(), output: z.object({ restarting: z.boolean() }) },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;

/** Sent whenever the state, the settings or the policy of updates changed. */
export const updateEvents = {
  'updates:changed': updatesViewSchema,
} as const;
