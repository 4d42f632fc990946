/*
 * Updates from a feed the person (or their organization's policy) sets: the settings, off by default, the policy file's
 * format, and the state of the updater as the window shows it.
 */

import { z } from 'zod';

/** Hosts a feed may be served from over plain http: this computer only, for testing a feed before it is published. */
export const loopbackHosts: readonly string[] = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * Whether an address may be an update feed: https, or http on this computer. A feed on another host over plain http
 * could be changed on the way by anyone on the network; the sha512 it gives for the update would change with it.
 */
export function feedUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'it is not an address (it must start with https://)';
  }
  if (url.username !== '' || url.password !== '') return 'it must not carry a user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && loopbackHosts.includes(url.hostname)) return null;
  if (url.protocol === 'http:') return 'it must start with https:// (http:// only for 127.0.0.1 or localhost)';
  return 'it must start with https://';
}

/** An update feed's address: the folder electron-builder's `latest.yml` files are published in. */
export const feedUrlSchema = z
  .string()
  .trim()
  .min(1)
  .max(2_048)
  .superRefine((value, context) => {
    const problem = feedUrlProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

/** How often the app looks for an update while it runs, in hours. */
export const checkIntervalHoursSchema = z
  .number()
  .int()
  .min(1)
  .max(24 * 30);

/** The person's choices about updates. */
export const updateSettingsSchema = z.object({
  /** Off by default: the app asks no server anything about updates until the person (or the policy) turns it on. */
  enabled: z.boolean(),
  /** Where updates are looked for; null until the person sets one. */
  feedUrl: feedUrlSchema.nullable(),
  /** Look at start, and then every `intervalHours` while the app runs; otherwise only when asked. */
  checkAutomatically: z.boolean(),
  intervalHours: checkIntervalHoursSchema,
  /** Download an update found at once, or ask first. */
  download: z.enum(['automatic', 'ask']),
});
export type UpdateSettings = z.infer<typeof updateSettingsSchema>;

export const defaultUpdateSettings: UpdateSettings = {
  enabled: false,
  feedUrl: null,
  checkAutomatically: true,
  intervalHours: 24,
  download: 'ask',
};

/**
 * An organization's policy file (see the README's "Updates"): it may force updates off (or on), and set the feed, which
 * the person then cannot change unless `feedUrlLocked` is false. Unknown fields are refused, so a misspelt one is
 * reported rather than quietly doing nothing.
 */
export const updatePolicySchema = z
  .object({
    version: z.literal(1).optional(),
    updates: z
      .object({
        enabled: z.boolean().optional(),
        feedUrl: feedUrlSchema.optional(),
        feedUrlLocked: z.boolean().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type UpdatePolicy = z.infer<typeof updatePolicySchema>;

/** What the updater is doing, as the window shows it. */
export const updateStateSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('idle') }),
  z.object({ kind: z.literal('checking') }),
  z.object({ kind: z.literal('up_to_date'), version: z.string().max(100) }),
  z.object({ kind: z.literal('available'), version: z.string().max(100) }),
  z.object({ kind: z.literal('downloading'), version: z.string().max(100), percent: z.number().min(0).max(100) }),
  z.object({ kind: z.literal('ready'), version: z.string().max(100) }),
  z.object({ kind: z.literal('error'), message: z.string().max(2_000) }),
]);
export type UpdateState = z.infer<typeof updateStateSchema>;

/** Which of the settings the organization's policy decides: those the window shows and does not let change. */
export const updateLocksSchema = z.object({ enabled: z.boolean(), feedUrl: z.boolean() });
export type UpdateLocks = z.infer<typeof updateLocksSchema>;

/** Updates as Settings shows them: what applies, what the policy decides, and the updater's state. */
export const updatesViewSchema = z.object({
  /** The settings that apply: the person's, with what the policy sets in their place. */
  settings: updateSettingsSchema,
  locked: updateLocksSchema,
  /** Where the policy file is looked for, and what is wrong with it (updates are then off). */
  policyPath: z.string(),
  policyProblem: z.string().nullable(),
  state: updateStateSchema,
  /** Whether the state comes from a check the person asked for (the window then says how it ended, up to date too). */
  asked: z.boolean(),
  /** When the last check ended (ms since the epoch); null before one. */
  lastCheckedAt: z.number().nullable(),
  /** The version running. */
  currentVersion: z.string(),
});
export type UpdatesView = z.infer<typeof updatesViewSchema>;
