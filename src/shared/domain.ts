/*
 * The app's core types: sessions and branches, the gates' time limits, and the settings with their defaults. Limits of
 * inputs, risk and autonomy, trust grants, model endpoints and MCP servers have files of their own, named here too.
 */

import { z } from 'zod';
import { defaultHeldToolGroups, heldToolGroupsSchema } from './guardrails';
import { budgetSettingsSchema, defaultBudgetSettings } from './budgets';
import { archiveRetentionSchema, defaultArchiveRetention } from './retention';
import { commandLimitsSchema, defaultCommandLimits } from './command-limits';
import { checkCommandSchema, defaultDiagnosticsSettings, diagnosticsSettingsSchema } from './diagnostics';
import { idSchema, limits } from './input-limits';
import { autonomySchema } from './risk';
import {
  contextWindowOverrideSchema,
  modelChoiceSchema,
  modelPriceSchema,
  modelSettingSchema,
  providerEndpointSchema,
  type ModelSetting,
} from './model-endpoints';
import { mcpServersSchema } from './mcp-servers';
import { defaultUpdateSettings, updateSettingsSchema } from './updates';

// The command limits have a file of their own; they are part of the settings, so they are named here too.
export * from './command-limits';
// Input limits, risk and autonomy, trust grants, model endpoints and MCP servers are named here too, for their importers.
export * from './input-limits';
export * from './risk';
export * from './trust-grants';
export * from './model-endpoints';
export * from './mcp-servers';

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

/**
 * How long an approval gate waits at each autonomy level before it ends unanswered (seconds; null: it waits until
 * answered), and what then happens: the call is denied, or the turn stops. Off by default.
 */
export const gateTimeoutSchema = z.object({
  seconds: z.object({
    L0: z.number().int().min(5).max(86_400).nullable(),
    L1: z.number().int().min(5).max(86_400).nullable(),
    L2: z.number().int().min(5).max(86_400).nullable(),
    L3: z.number().int().min(5).max(86_400).nullable(),
  }),
  action: z.enum(['deny', 'stop']),
});
export type GateTimeout = z.infer<typeof gateTimeoutSchema>;
export const defaultGateTimeout: GateTimeout = { seconds: { L0: null, L1: null, L2: null, L3: null }, action: 'deny' };

/** A gate's time limit as journalled with it: when it ends (steady time, for the app; wall time, to show) and how. */
export const gateDeadlineSchema = z.object({
  seconds: z.number().int().positive(),
  action: z.enum(['deny', 'stop']),
  /** On the app's steady time (see `SteadyClock`): what the gate is held to, across restarts too. */
  steadyAt: z.number(),
  /** On the wall clock when the gate opened: what the window counts down to. */
  wallAt: z.number(),
});
export type GateDeadline = z.infer<typeof gateDeadlineSchema>;

/**
 * A session's endpoint and model. The model is empty while only the endpoint is picked: the pick is saved at once,
 * and the session cannot send until a model is chosen.
 */
export const sessionModelSchema = z.object({
  providerId: idSchema,
  model: z.string().max(limits.modelNameLength),
});
export type SessionModel = z.infer<typeof sessionModelSchema>;

/**
 * What makes a session a sub-agent: the session and tool call that handed it its brief, how deep it is (a session the
 * person started is 0), the tools it may use, and the bounds of its work (model calls, its answer's characters).
 */
export const subAgentLinkSchema = z.object({
  parentSessionId: idSchema,
  toolCallId: z.string().min(1).max(200),
  /** A step of a plan run as a graph (the call's own sub-agents told apart by it); absent for a delegate call's one. */
  stepId: z.string().min(1).max(32).optional(),
  /** The parent's turn that made it. */
  turnId: z.string().min(1).max(200).optional(),
  depth: z.number().int().min(1).max(8),
  tools: z.enum(['read_only', 'read_write']),
  modelCalls: z.number().int().min(1).max(1000),
  answerChars: z.number().int().min(100).max(100_000),
});
export type SubAgentLink = z.infer<typeof subAgentLinkSchema>;

export const sessionSchema = z.object({
  id: idSchema,
  title: z.string(),
  workspacePath: z.string().nullable(),
  model: sessionModelSchema.nullable(),
  autonomy: autonomySchema,
  status: sessionStatusSchema,
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  /** Present on a sub-agent's session: it is not listed with the person's own, and opens from its parent's tool card. */
  subAgent: subAgentLinkSchema.optional(),
});
export type Session = z.infer<typeof sessionSchema>;

/** Why a branch exists: the first one of a session, an edited message, a retried answer, a restored checkpoint, or an import. */
export const branchReasonSchema = z.enum(['start', 'edit', 'retry', 'restore', 'import']);
export type BranchReason = z.infer<typeof branchReasonSchema>;

/**
 * One line of a session's history. A branch shows its parent's journal up to `forkSeq` and then its
 * own; its turns continue from `checkpointId`. Branches are never deleted by switching or editing.
 */
export const branchSchema = z.object({
  id: idSchema,
  parentId: idSchema.nullable(),
  forkSeq: z.number().int().min(-1),
  checkpointId: idSchema.nullable(),
  reason: branchReasonSchema,
  createdAt: z.number().int(),
  activeAt: z.number().int(),
});
export type Branch = z.infer<typeof branchSchema>;

/** Settings that are not secrets; persisted by the settings store. */
/** The share of the window the repository map may take: none, or up to a quarter. */
export const codeMapShareSchema = z.number().min(0).max(0.25);

export const settingsSchema = z.object({
  version: z.literal(1),
  providers: z.array(providerEndpointSchema).max(50),
  defaultModel: modelChoiceSchema.nullable(),
  defaultAutonomy: autonomySchema.default('L1'),
  /** A response with at least this many tool calls is shown as a plan first. */
  planThreshold: z.number().int().min(2).max(50).default(3),
  /** Model calls per turn before the turn waits at a budget gate; null: no limit. */
  maxIterations: z.number().int().min(1).max(1000).nullable().default(25),
  /** The other budgets of a turn and of a session (see `budgets.ts`). */
  budgets: budgetSettingsSchema.default(defaultBudgetSettings),
  /** Tools the person never wants run: a user denial, checked before grants and autonomy. */
  deniedTools: z.array(z.string().min(1).max(200)).max(200).default([]),
  /** Tool groups whose results with signs of a prompt injection wait for the person before the model sees them. */
  heldToolGroups: heldToolGroupsSchema.default([...defaultHeldToolGroups]),
  mcpServers: mcpServersSchema.default({}),
  theme: z.enum(['system', 'light', 'dark']),
  /** The agent's commands run at a lower CPU priority than the app, or at the same. */
  commandPriority: z.enum(['lower', 'normal']).default('lower'),
  /** What one of the agent's commands may use before it is stopped. */
  commandLimits: commandLimitsSchema.default(defaultCommandLimits),
  /** Per model: the window to use instead of what the server reports (for Ollama, the `num_ctx` sent). */
  contextWindows: z.array(contextWindowOverrideSchema).max(200).default([]),
  /** Per model: prices per million tokens, used for the cost of its calls whatever its endpoint. */
  modelPrices: z.array(modelPriceSchema).max(200).default([]),
  /** A request larger than this share of the window is made smaller first. */
  compactAt: z.number().min(0.3).max(0.95).default(0.75),
  /** Room kept for the answer, in tokens (at most a quarter of the window); sent as the request's `max_tokens`. */
  answerTokens: z.number().int().min(256).max(128_000).default(4096),
  /** The share of the window the repository map given with each message may take (at most 4,096 tokens); 0: no map. */
  codeMapShare: codeMapShareSchema.default(0.06),
  /** The checks of changed files by language servers: which languages, how long an edit waits, the servers allowed. */
  diagnostics: diagnosticsSettingsSchema.default(defaultDiagnosticsSettings),
  /** The check command of each workspace the person chose one for. */
  checkCommands: z.array(checkCommandSchema).max(200).default([]),
  /** Per model: the tool protocol and extended thinking. */
  modelSettings: z.array(modelSettingSchema).max(200).default([]),
  /** Days an archived (deleted) session is kept before it is purged; null: until deleted by hand. */
  archiveRetentionDays: archiveRetentionSchema.default(defaultArchiveRetention),
  /** The agent profile new sessions start with (`builtin:code`, or the id of one the person made). */
  defaultProfileId: z.string().min(1).max(100).default('builtin:code'),
  /** How many sub-agents run at once, over every session. */
  subAgentConcurrency: z.number().int().min(1).max(8).default(2),
  /** How deep sub-agents may hand work on: 1, the agent's own sub-agents only; 0, no delegation. */
  subAgentDepth: z.number().int().min(0).max(4).default(2),
  /** How long approval gates wait at each autonomy level, and what happens when one ends unanswered. */
  gateTimeout: gateTimeoutSchema.default(defaultGateTimeout),
  /** Updates from a feed (see `updates.ts`): off by default; an organization's policy may decide in their place. */
  updates: updateSettingsSchema.default(defaultUpdateSettings),
});
export type Settings = z.infer<typeof settingsSchema>;

/**
 * The per-model settings with one model's choice changed: an entry left with nothing but the defaults is dropped, any
 * other stays where it was, and a new one goes last.
 */
export function withModelSetting(
  settings: Pick<Settings, 'modelSettings'>,
  providerId: string,
  model: string,
  change: Partial<Pick<ModelSetting, 'toolProtocol' | 'thinkingBudget'>>,
): ModelSetting[] {
  const item: ModelSetting = { ...modelSettingOf(settings, providerId, model), ...change };
  const same = (other: ModelSetting): boolean => other.providerId === providerId && other.model === model;
  const keep = item.toolProtocol !== 'auto' || item.thinkingBudget !== null;
  if (!settings.modelSettings.some(same)) return [...settings.modelSettings, ...(keep ? [item] : [])];
  return settings.modelSettings.flatMap((other) => (!same(other) ? [other] : keep ? [item] : []));
}

/** What the person chose for a model, or the defaults when they chose nothing. */
export function modelSettingOf(settings: Pick<Settings, 'modelSettings'>, providerId: string, model: string): ModelSetting {
  return (
    settings.modelSettings.find((item) => item.providerId === providerId && item.model === model) ?? {
      providerId,
      model,
      toolProtocol: 'auto',
      thinkingBudget: null,
    }
  );
}

export const defaultSettings: Settings = {
  version: 1,
  providers: [],
  defaultModel: null,
  defaultAutonomy: 'L1',
  planThreshold: 3,
  maxIterations: 25,
  subAgentConcurrency: 2,
  subAgentDepth: 2,
  gateTimeout: defaultGateTimeout,
  budgets: defaultBudgetSettings,
  deniedTools: [],
  heldToolGroups: [...defaultHeldToolGroups],
  mcpServers: {},
  theme: 'system',
  commandPriority: 'lower',
  commandLimits: defaultCommandLimits,
  contextWindows: [],
  modelPrices: [],
  compactAt: 0.75,
  answerTokens: 4096,
  codeMapShare: 0.06,
  diagnostics: defaultDiagnosticsSettings,
  checkCommands: [],
  modelSettings: [],
  archiveRetentionDays: defaultArchiveRetention,
  defaultProfileId: 'builtin:code',
  updates: defaultUpdateSettings,
};
