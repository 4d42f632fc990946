/*
 * The IPC channels of agent profiles and of each session's profile, spread into the contract.
 */

import { z } from 'zod';
import { idSchema, limits } from '../domain';
import { profileSchema, profileSettingsSchema } from '../profiles';
import { toolGroupSchema } from '../tool-groups';

const profileIdSchema = z.string().min(1).max(100);
const workspacePathSchema = z.string().min(1).max(limits.pathLength).nullable();

/** A session's profile as the session header shows it: which one, at which version, and the tool groups switched off. */
export const sessionProfileViewSchema = z.object({
  profileId: profileIdSchema,
  name: z.string(),
  version: z.number().int().positive(),
  /** What is switched off for the session's next turn: its own switches, or the profile's. */
  toolGroupsOff: z.array(toolGroupSchema),
  /** The session's own switches; null when it uses the profile's. */
  ownToolGroups: z.boolean(),
});
export type SessionProfileView = z.infer<typeof sessionProfileViewSchema>;

/** The channels of agent profiles, spread into the contract (`channels`). */
export const profileChannels = {
  /** The built-in profiles, the global ones and a workspace's own, each at its newest version. */
  'profile:list': { input: z.object({ workspacePath: workspacePathSchema }).strict(), output: z.array(profileSchema) },
  /** Every version of a profile, newest first. */
  'profile:versions': { input: z.object({ profileId: profileIdSchema }).strict(), output: z.array(profileSchema) },
  /** Creates a profile (no id), or saves a new version of one. */
  'profile:save': {
    input: z
      .object({
        profileId: profileIdSchema.optional(),
        scope: z.enum(['global', 'workspace']),
        workspacePath: workspacePathSchema,
        settings: profileSettingsSchema,
      })
      .strict(),
    output: profileSchema,
  },
  'profile:delete': { input: z.object({ profileId: profileIdSchema }).strict(), output: z.object({ deleted: z.literal(true) }) },
  /** A profile as a file to save, with a schema version. */
  'profile:export': {
    input: z.object({ profileId: profileIdSchema, version: z.number().int().positive().optional() }).strict(),
    output: z.object({ fileName: z.string(), document: z.string() }),
  },
  /** A profile file read back: refused whole when it is from a newer version or has fields this one does not know. */
  'profile:import': {
    input: z
      .object({ document: z.string().min(2).max(200_000), scope: z.enum(['global', 'workspace']), workspacePath: workspacePathSchema })
      .strict(),
    output: profileSchema,
  },
  'session:profile': { input: z.object({ sessionId: idSchema }).strict(), output: sessionProfileViewSchema },
  /** Chooses a session's profile (its model and autonomy come with it, where it sets them), and its own tool switches. */
  'session:setProfile': {
    input: z
      .object({ sessionId: idSchema, profileId: profileIdSchema, toolGroupsOff: z.array(toolGroupSchema).max(100).nullable().optional() })
      .strict(),
    output: sessionProfileViewSchema,
  },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;
