/* The channels of model endpoints and their models: the endpoints saved, found and tested, and a model's checks and settings. */

import { z } from 'zod';
import {
  contextWindowSchema,
  httpUrlSchema,
  idSchema,
  limits,
  modelCheckSchema,
  modelChoiceSchema,
  modelInfoSchema,
  providerEndpointSchema,
  providerKindSchema,
  settingsSchema,
  thinkingBudgetLimits,
  toolProtocolSchema,
} from '../domain';
import { errorInfoSchema } from '../errors';

const noInput = z.object({}).strict();

export const providerViewSchema = providerEndpointSchema.extend({ hasKey: z.boolean() });
export type ProviderView = z.infer<typeof providerViewSchema>;

export const connectionTestResultSchema = z.object({
  ok: z.boolean(),
  latencyMs: z.number().nonnegative(),
  models: z.array(modelInfoSchema),
  error: errorInfoSchema.optional(),
});
export type ConnectionTestResult = z.infer<typeof connectionTestResultSchema>;

export const discoveredEndpointSchema = z.object({
  name: z.string(),
  kind: providerKindSchema,
  baseUrl: z.string(),
  models: z.array(modelInfoSchema),
});
export type DiscoveredEndpoint = z.infer<typeof discoveredEndpointSchema>;

/** A usual server that gave no model list, and why: nothing listening, no answer in time, or another failure (in words). */
export const missedEndpointSchema = z.object({
  name: z.string(),
  kind: providerKindSchema,
  baseUrl: z.string(),
  reason: z.enum(['not_running', 'slow', 'failed']),
  message: z.string(),
});
export type MissedEndpoint = z.infer<typeof missedEndpointSchema>;

export const discoveryResultSchema = z.object({
  found: z.array(discoveredEndpointSchema),
  missed: z.array(missedEndpointSchema),
  /** How long each server was given to answer. */
  timeoutMs: z.number().int().positive(),
});
export type DiscoveryResult = z.infer<typeof discoveryResultSchema>;

/** The channels of endpoints and models, spread into the contract (`channels`). */
export const providerChannels = {
  'provider:list': { input: noInput, output: z.array(providerViewSchema) },
  'provider:save': {
    input: z
      .object({
        id: idSchema.optional(),
        kind: providerKindSchema,
        name: z.string().trim().min(1).max(limits.nameLength),
        baseUrl: httpUrlSchema,
        // null removes a stored key; absent keeps it.
        apiKey: z.string().min(1).max(limits.apiKeyLength).nullable().optional(),
      })
      .strict(),
    output: providerViewSchema,
  },
  'provider:remove': { input: z.object({ providerId: idSchema }).strict(), output: z.object({ removed: z.literal(true) }) },
  /** Probes the usual local servers; `timeoutMs` gives each longer to answer (a second try after a slow one). */
  'provider:discover': {
    input: z.object({ timeoutMs: z.number().int().min(100).max(30_000).optional() }).strict(),
    output: discoveryResultSchema,
  },
  'provider:test': {
    input: z
      .object({
        providerId: idSchema.optional(),
        kind: providerKindSchema.optional(),
        baseUrl: httpUrlSchema.optional(),
        apiKey: z.string().min(1).max(limits.apiKeyLength).optional(),
      })
      .strict()
      .refine((value) => value.providerId !== undefined || (value.kind !== undefined && value.baseUrl !== undefined), {
        message: 'give providerId, or kind and baseUrl',
      }),
    output: connectionTestResultSchema,
  },
  'provider:models': { input: z.object({ providerId: idSchema }).strict(), output: z.array(modelInfoSchema) },
  /** The window a model's requests are budgeted with, and where the figure comes from. */
  'provider:window': { input: modelChoiceSchema.strict(), output: contextWindowSchema },
  /** Checks a model now (the model doctor): reachable, window, native tool calls, reasoning, speed, and fixes. */
  'model:check': {
    input: z.object({ providerId: idSchema, model: z.string().min(1).max(limits.modelNameLength) }).strict(),
    output: modelCheckSchema,
  },
  /** Changes one model's own settings (tool calls, extended thinking), keeping the rest; answers the settings. */
  'model:configure': {
    input: z
      .object({
        providerId: idSchema,
        model: z.string().min(1).max(limits.modelNameLength),
        toolProtocol: toolProtocolSchema.optional(),
        thinkingBudget: z.number().int().min(thinkingBudgetLimits.min).max(thinkingBudgetLimits.max).nullable().optional(),
      })
      .strict(),
    output: settingsSchema,
  },
  /** What checks found, for one endpoint's models or all. */
  'model:checks': { input: z.object({ providerId: idSchema.optional() }).strict(), output: z.array(modelCheckSchema) },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;
