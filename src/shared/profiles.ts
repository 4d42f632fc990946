/*
 * Agent profiles: the agent's instructions, its model and fallback, sampling, starting autonomy, tool groups and
 * budgets. Versioned: editing makes a new version, and every turn records the version it used. Also the built-in
 * profiles, and a profile as a file to export and import.
 */

import { z } from 'zod';
import { autonomySchema, idSchema, limits, modelChoiceSchema } from './domain';
import { toolGroupSchema } from './tool-groups';
import { budgetSettingsSchema, modelCallsBudgetSchema } from './budgets';

export const maxProfileInstructions = 20_000;
/** The version of the exported file's shape; a file from a newer one is refused, not half read. */
export const profileFileVersion = 1;
export const profileFileFormat = 'agent-workbench-profile';

/** What a person sets on a profile: everything but its identity and version. */
export const profileSettingsSchema = z
  .object({
    name: z.string().trim().min(1, 'A profile needs a name.').max(80, 'A profile name holds at most 80 characters.'),
    description: z.string().trim().max(300).default(''),
    instructions: z
      .string()
      .trim()
      .min(1, 'A profile needs instructions: say who the agent is and how it works.')
      .max(maxProfileInstructions, `Instructions hold at most ${maxProfileInstructions} characters.`),
    model: modelChoiceSchema.strict().nullable().default(null),
    /** Used for the rest of a turn when the first model cannot be reached or is overloaded. */
    fallbackModel: modelChoiceSchema.strict().nullable().default(null),
    temperature: z.number().min(0).max(2).nullable().default(null),
    maxAnswerTokens: z.number().int().min(256).max(128_000).nullable().default(null),
    /** The autonomy a new session with this profile starts at; the settings' default when null. */
    autonomy: autonomySchema.nullable().default(null),
    /** Tool groups switched off: the model is not offered their tools, and a call to one is refused. */
    toolGroupsOff: z.array(toolGroupSchema).max(100).default([]),
    /**
     * Budgets of this profile's turns and sessions, each in place of the one in Settings: a number, or null for none.
     * A budget left out is the one in Settings.
     */
    limits: budgetSettingsSchema.extend({ modelCalls: modelCallsBudgetSchema }).partial().strict().default({}),
  })
  .strict();
export type ProfileSettings = z.infer<typeof profileSettingsSchema>;

export const profileScopeSchema = z.enum(['builtin', 'global', 'workspace']);
export type ProfileScope = z.infer<typeof profileScopeSchema>;

export const profileSchema = profileSettingsSchema.extend({
  id: z.string().min(1).max(100),
  version: z.number().int().positive(),
  scope: profileScopeSchema,
  /** The workspace a `workspace` profile belongs to. */
  workspacePath: z.string().max(limits.pathLength).nullable(),
  createdAt: z.number().int(),
});
export type Profile = z.infer<typeof profileSchema>;

/** A profile as a file: its settings and a schema version, nothing of where it was made. */
export const profileFileSchema = z
  .object({
    format: z.literal(profileFileFormat),
    schemaVersion: z.number().int().positive(),
    profile: profileSettingsSchema,
  })
  .strict();

/** A session's profile and its own tool switches (null: the profile's). */
export const sessionProfileSchema = z.object({
  sessionId: idSchema,
  profileId: z.string().min(1).max(100),
  toolGroupsOff: z.array(toolGroupSchema).max(100).nullable(),
});
export type SessionProfile = z.infer<typeof sessionProfileSchema>;

export const defaultProfileId = 'builtin:code';

const builtIn = (id: string, settings: z.input<typeof profileSettingsSchema>): Profile => ({
  ...profileSettingsSchema.parse(settings),
  id,
  version: 1,
  scope: 'builtin',
  workspacePath: null,
  createdAt: 0,
});

/** The profiles to start from: they cannot be changed, only copied. */
export const builtInProfiles: readonly Profile[] = [
  builtIn(defaultProfileId, {
    name: 'Code',
    description: 'Reads, changes and runs: the whole toolbox.',
    instructions: [
      'You are a careful assistant working with a person on a folder of their own.',
      'Read before you change: look at the files involved first, then make the smallest change that does what was asked.',
      'Use the tools when they help, say what you did and why, and ask when you are not sure what the person wants. Answer in Markdown.',
    ].join(' '),
  }),
  builtIn('builtin:ask', {
    name: 'Ask',
    description: 'Answers questions about the folder: reads only, changes nothing.',
    instructions: [
      'You answer questions about the person’s folder. You can read and search files but not change them or run commands.',
      'Quote the lines your answer rests on, with their paths, and say plainly when the files do not tell.',
    ].join(' '),
    // Memory too: `remember` writes what later sessions are told.
    toolGroupsOff: ['files_write', 'shell', 'memory'],
  }),
  builtIn('builtin:review', {
    name: 'Review',
    description: 'Reviews the code and runs its checks; changes no file.',
    instructions: [
      'You review the person’s code as a careful senior engineer. Read the changes and what they touch, run the tests and',
      'linters when there are some, and report findings most serious first, each with its path and line, why it matters and',
      'a suggested fix. Do not change files.',
    ].join(' '),
    toolGroupsOff: ['files_write'],
  }),
];

/** Reads an exported profile, saying exactly why one is refused: a newer schema, unknown fields, a missing one. */
export function readProfileFile(text: string): { ok: true; settings: ProfileSettings } | { ok: false; message: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, message: 'This is not a profile file: it is not JSON.' };
  }
  const head = z.object({ format: z.unknown(), schemaVersion: z.unknown() }).safeParse(data);
  if (!head.success || head.data.format !== profileFileFormat)
    return { ok: false, message: 'This is not a profile file: it does not say it is one ("format": "agent-workbench-profile").' };
  if (typeof head.data.schemaVersion === 'number' && head.data.schemaVersion > profileFileVersion)
    return {
      ok: false,
      message: `This profile was made by a newer version of the app (profile schema ${head.data.schemaVersion}; this one reads ${profileFileVersion}). Update the app to import it.`,
    };
  const parsed = profileFileSchema.safeParse(data);
  if (parsed.success) return { ok: true, settings: parsed.data.profile };
  const issue = parsed.error.issues[0];
  const where = issue?.path.map(String).join('.') ?? '';
  const unknown = issue?.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
  return {
    ok: false,
    message: `This profile file cannot be imported: ${where ? `${where}: ` : ''}${issue?.message ?? 'it is not valid'}${unknown}.`,
  };
}

/** An exported profile's text. */
export function profileFileText(profile: Profile): string {
  const { id: _id, version: _version, scope: _scope, workspacePath: _workspace, createdAt: _created, ...settings } = profile;
  return `${JSON.stringify({ format: profileFileFormat, schemaVersion: profileFileVersion, profile: settings }, null, 2)}\n`;
}
