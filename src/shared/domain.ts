import { z } from 'zod';

/** Limits shared by the contract and the UI, so both refuse the same inputs. */
export const limits = {
  idLength: 64,
  titleLength: 200,
  messageLength: 200_000,
  pathLength: 4_096,
  urlLength: 2_048,
  nameLength: 100,
  apiKeyLength: 500,
  modelNameLength: 300,
} as const;

export const idSchema = z.string().min(1).max(limits.idLength).regex(/^[A-Za-z0-9_-]+$/, 'ids are letters, digits, - and _');

/** The closed set of session statuses (design section 3). */
export const sessionStatusSchema = z.enum([
  'idle',
  'planning',
  'executing',
  'waiting_approval',
  'completed',
  'completed_with_errors',
  'failed',
  'cancelled',
  'interrupted',
]);
export type SessionStatus = z.infer<typeof sessionStatusSchema>;

/** Statuses in which a turn is in flight. */
export const busyStatuses: ReadonlySet<SessionStatus> = new Set(['planning', 'executing', 'waiting_approval']);

export const providerKindSchema = z.enum(['openai-compatible', 'anthropic']);
export type ProviderKind = z.infer<typeof providerKindSchema>;

export const modelChoiceSchema = z.object({
  providerId: idSchema,
  model: z.string().min(1).max(limits.modelNameLength),
});
export type ModelChoice = z.infer<typeof modelChoiceSchema>;

export const sessionSchema = z.object({
  id: idSchema,
  title: z.string(),
  workspacePath: z.string().nullable(),
  model: modelChoiceSchema.nullable(),
  status: sessionStatusSchema,
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type Session = z.infer<typeof sessionSchema>;

export const httpUrlSchema = z
  .string()
  .max(limits.urlLength)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL');

/** A configured model endpoint. Its API key, if any, lives in the secret store, never here. */
export const providerEndpointSchema = z.object({
  id: idSchema,
  kind: providerKindSchema,
  name: z.string().min(1).max(limits.nameLength),
  baseUrl: httpUrlSchema,
});
export type ProviderEndpoint = z.infer<typeof providerEndpointSchema>;

export const modelInfoSchema = z.object({
  id: z.string(),
  contextLength: z.number().int().positive().optional(),
});
export type ModelInfo = z.infer<typeof modelInfoSchema>;

/** Settings that are not secrets; persisted by the settings store. */
export const settingsSchema = z.object({
  version: z.literal(1),
  providers: z.array(providerEndpointSchema).max(50),
  defaultModel: modelChoiceSchema.nullable(),
  theme: z.enum(['system', 'light', 'dark']),
});
export type Settings = z.infer<typeof settingsSchema>;

export const defaultSettings: Settings = { version: 1, providers: [], defaultModel: null, theme: 'system' };
