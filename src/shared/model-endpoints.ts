/*
 * Model endpoints and their models: an endpoint's kind and address, the model chosen, its context window and prices,
 * how it is given its tools and thinks, and what a check of it found.
 */

import { z } from 'zod';
import { httpUrlSchema, idSchema, limits } from './input-limits';
import { priceFiguresSchema } from './model-prices';

/** `local` is the app's own runtime ("This computer"): models run in a process of the app's, with no server. */
export const providerKindSchema = z.enum(['openai-compatible', 'ollama', 'anthropic', 'local']);
export type ProviderKind = z.infer<typeof providerKindSchema>;

export const modelChoiceSchema = z.object({
  providerId: idSchema,
  model: z.string().min(1).max(limits.modelNameLength),
});
export type ModelChoice = z.infer<typeof modelChoiceSchema>;

/**
 * The address an endpoint of kind `local` ("This computer") carries in place of a URL: its models run in the app's own
 * runtime process, not behind a server.
 */
export const localEndpointAddress = 'builtin:this-computer';

/** A configured model endpoint. Its API key, if any, lives in the secret store, never here. */
export const providerEndpointSchema = z.object({
  id: idSchema,
  kind: providerKindSchema,
  name: z.string().min(1).max(limits.nameLength),
  /** The server's URL; for the built-in runtime (kind `local`), `localEndpointAddress`. */
  baseUrl: z.union([httpUrlSchema, z.literal('builtin:this-computer')]),
});
export type ProviderEndpoint = z.infer<typeof providerEndpointSchema>;

export const modelInfoSchema = z.object({
  id: z.string(),
  contextLength: z.number().int().positive().optional(),
});
export type ModelInfo = z.infer<typeof modelInfoSchema>;

/** Where the window a model is budgeted with comes from. */
export const windowSourceSchema = z.enum(['setting', 'server', 'learned', 'default']);
export type WindowSource = z.infer<typeof windowSourceSchema>;

/** The context window the app budgets a model's requests with, and where the figure comes from. */
export const contextWindowSchema = z.object({
  tokens: z.number().int().positive(),
  source: windowSourceSchema,
  /** In words a person can check: "llama.cpp /props", "no server figure: the safe default". */
  detail: z.string(),
  /** The window the model was trained for, when the server says. */
  trained: z.number().int().positive().nullable(),
});
export type ContextWindow = z.infer<typeof contextWindowSchema>;

/** The window used when no setting and no server says otherwise: small enough for any local server. */
export const defaultContextWindow = 8192;

/** A person's own figure for a model's window, which wins over what the server says. */
export const contextWindowOverrideSchema = z.object({
  providerId: idSchema,
  model: z.string().min(1).max(limits.modelNameLength),
  tokens: z.number().int().min(1024).max(10_000_000),
});
export type ContextWindowOverride = z.infer<typeof contextWindowOverrideSchema>;

/** A person's prices for a model's tokens (see `model-prices.ts`), which win over any the app knows. */
export const modelPriceSchema = z.object({
  providerId: idSchema,
  model: z.string().min(1).max(limits.modelNameLength),
  ...priceFiguresSchema.shape,
});
export type ModelPrice = z.infer<typeof modelPriceSchema>;

/**
 * How a model is given its tools: `native` sends tool definitions and reads tool calls the server parsed; `text` writes
 * the tools into the system prompt and reads calls the model writes as tagged blocks in its answer; `auto` follows what
 * the model doctor found (native until it has looked).
 */
export const toolProtocolSchema = z.enum(['auto', 'native', 'text']);
export type ToolProtocol = z.infer<typeof toolProtocolSchema>;

/** Smallest and largest budget of an extended-thinking request, in tokens (the Messages API wants at least 1,024). */
export const thinkingBudgetLimits = { min: 1024, max: 64_000 } as const;

/** What the person chose for one model of one endpoint. */
export const modelSettingSchema = z.object({
  providerId: idSchema,
  model: z.string().min(1).max(limits.modelNameLength),
  toolProtocol: toolProtocolSchema.default('auto'),
  /** Extended thinking (Anthropic): the budget in tokens, or null for none. */
  thinkingBudget: z.number().int().min(thinkingBudgetLimits.min).max(thinkingBudgetLimits.max).nullable().default(null),
});
export type ModelSetting = z.infer<typeof modelSettingSchema>;

/** What a check of one model found (the model doctor). Stored per endpoint and model; on `auto`, it decides the tool protocol. */
export const modelCheckSchema = z.object({
  providerId: idSchema,
  model: z.string().min(1).max(limits.modelNameLength),
  checkedAt: z.number().int(),
  durationMs: z.number().int().nonnegative(),
  /** `doctor`: a whole check; `turn`: only what a turn found (the server refused tool definitions). */
  source: z.enum(['doctor', 'turn']),
  reachable: z.object({ ok: z.boolean(), detail: z.string().max(2000) }),
  window: z.object({
    loaded: z.number().int().nullable(),
    trained: z.number().int().nullable(),
    /** Who said so, in words. */
    detail: z.string().max(2000),
    /** The routes and fields read, for whoever checks. */
    route: z.string().max(2000).optional(),
  }),
  /** Native tool calling: a real request with a small tool, and whether the call came back well-formed. */
  tools: z.object({
    status: z.enum(['works', 'refused', 'malformed', 'not_called', 'failed', 'unchecked']),
    detail: z.string().max(2000),
  }),
  /** How reasoning arrives: a field of its own, `<think>` tags in the answer, or not at all. */
  reasoning: z.enum(['field', 'inline', 'none', 'unchecked']),
  tokensPerSecond: z.number().nonnegative().nullable(),
  /** The protocol `auto` uses for this model. */
  protocol: z.enum(['native', 'text']),
  /** Each problem found, with its fix in plain words. */
  problems: z.array(z.object({ problem: z.string().max(2000), fix: z.string().max(2000) })).max(20),
});
export type ModelCheck = z.infer<typeof modelCheckSchema>;
