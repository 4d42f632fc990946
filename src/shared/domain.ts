/*
 * The app's core types: sessions and branches, risk and autonomy, trust grants, model endpoints, and the settings with
 * their defaults.
 */

import { z } from 'zod';
import { defaultHeldToolGroups, heldToolGroupsSchema } from './guardrails';
import { budgetSettingsSchema, defaultBudgetSettings } from './budgets';
import { archiveRetentionSchema, defaultArchiveRetention } from './retention';
import { commandLimitsSchema, defaultCommandLimits } from './command-limits';
import { priceFiguresSchema } from './model-prices';
import { checkCommandSchema, defaultDiagnosticsSettings, diagnosticsSettingsSchema } from './diagnostics';

// The command limits have a file of their own; they are part of the settings, so they are named here too.
export * from './command-limits';

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
  /** An exported session document, in characters. */
  importLength: 100_000_000,
  /** A write's or an edit's content as the person changes it at the gate (the write tools' own limit is checked after). */
  editedContent: 10_000_000,
} as const;

export const idSchema = z
  .string()
  .min(1)
  .max(limits.idLength)
  .regex(/^[A-Za-z0-9_-]+$/, 'ids are letters, digits, - and _');

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

/** Risk of a tool call, lowest first (design section 3). */
export const riskLevelSchema = z.enum(['read_only', 'write_low', 'write_high', 'destructive']);
export type RiskLevel = z.infer<typeof riskLevelSchema>;
export const riskOrder: readonly RiskLevel[] = riskLevelSchema.options;
export const riskRank = (level: RiskLevel): number => riskOrder.indexOf(level);
export const maxRisk = (levels: readonly RiskLevel[]): RiskLevel =>
  levels.reduce<RiskLevel>((top, level) => (riskRank(level) > riskRank(top) ? level : top), 'read_only');

/** How much the agent may do without asking: L0 observe .. L3 supervised. */
export const autonomySchema = z.enum(['L0', 'L1', 'L2', 'L3']);
export type Autonomy = z.infer<typeof autonomySchema>;

/** The answers an approval gate offers. Timed and session answers create trust grants. */
export const approvalDecisionSchema = z.enum(['deny', 'allow_once', 'allow_5m', 'allow_30m', 'allow_1h', 'allow_5h', 'allow_session']);
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;

/** How long each timed answer trusts, in milliseconds. */
export const grantDurationsMs: Readonly<Record<'allow_5m' | 'allow_30m' | 'allow_1h' | 'allow_5h', number>> = {
  allow_5m: 5 * 60_000,
  allow_30m: 30 * 60_000,
  allow_1h: 60 * 60_000,
  allow_5h: 5 * 60 * 60_000,
};

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
 * What a call asks for beyond what its tool may do by default: a command run with the network, or outside the OS sandbox.
 * Ordered by reach: `no_sandbox` includes everything `network` allows.
 */
export const escalationKindSchema = z.enum(['network', 'no_sandbox']);
export type EscalationKind = z.infer<typeof escalationKindSchema>;

/** An escalation a call asks for, and why it matters, as the gate shows it. */
export const escalationSchema = z.object({ kind: escalationKindSchema, reason: z.string() });
export type Escalation = z.infer<typeof escalationSchema>;

/** Whether a grant made for `granted` (none when absent) reaches as far as `asked`: the network never covers no sandbox. */
export function escalationCovers(granted: EscalationKind | undefined, asked: EscalationKind | undefined): boolean {
  const reach = (kind: EscalationKind | undefined): number => (kind === undefined ? 0 : escalationKindSchema.options.indexOf(kind) + 1);
  return reach(granted) >= reach(asked);
}

/**
 * What a trust grant covers: these exact arguments, a pattern derived from them that cannot widen, or (chosen by the
 * person at the gate) the same tool on any path in a folder of the workspace that holds the approved call's path: `folder`
 * is relative, ends with `/`, or is empty for the whole workspace.
 */
export const grantPatternSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('exact'), arguments: z.string() }),
  z.object({ kind: z.literal('command_prefix'), words: z.array(z.string()).min(1) }),
  z.object({
    kind: z.literal('path_prefix'),
    folder: z
      .string()
      .max(4096)
      .refine((folder) => folder === '' || (folder.endsWith('/') && !folder.startsWith('/') && !folder.split('/').includes('..')), {
        message: 'a folder of the workspace, relative, ending with /',
      }),
  }),
]);
export type GrantPattern = z.infer<typeof grantPatternSchema>;

export const trustGrantSchema = z.object({
  id: idSchema,
  tool: z.string(),
  pattern: grantPatternSchema,
  workspacePath: z.string().nullable(),
  maxRisk: riskLevelSchema,
  /** Set for "this session" grants, which cover that session only. */
  sessionId: idSchema.nullable(),
  createdAt: z.number().int(),
  /** Null for session grants: they last as long as the session. */
  expiresAt: z.number().int().nullable(),
  revokedAt: z.number().int().nullable(),
  description: z.string(),
  /**
   * The escalation the person trusted explicitly at an escalation gate ("trust network access for this command"); absent
   * for a grant made at an ordinary gate, which never covers a call that asks for one.
   */
  escalation: escalationKindSchema.optional(),
});
export type TrustGrant = z.infer<typeof trustGrantSchema>;

/** `local` is the app's own runtime ("This computer"): models run in a process of the app's, with no server. */
export const providerKindSchema = z.enum(['openai-compatible', 'ollama', 'anthropic', 'local']);
export type ProviderKind = z.infer<typeof providerKindSchema>;

export const modelChoiceSchema = z.object({
  providerId: idSchema,
  model: z.string().min(1).max(limits.modelNameLength),
});
export type ModelChoice = z.infer<typeof modelChoiceSchema>;

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
  }, 'it must start with http:// or https://, such as http://127.0.0.1:11434');

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

/** One MCP server, as in the common `mcpServers` configuration: a command to start (stdio) or a URL (streamable HTTP). */
/**
 * Whether the person trusts a server's own marks on its tools: only then does a tool it marks read-only run as one.
 * A mark is the server's word, not a fact; a tool of a server not trusted is at least a low-risk write.
 */
const mcpTrustedSchema = z.boolean().default(false);

export const mcpServerConfigSchema = z.union([
  z
    .object({
      command: z.string().min(1).max(1000),
      args: z.array(z.string().max(4000)).max(100).default([]),
      env: z.record(z.string(), z.string().max(10_000)).default({}),
      cwd: z.string().max(4096).optional(),
      disabled: z.boolean().default(false),
      trusted: mcpTrustedSchema,
    })
    .strict(),
  z
    .object({
      url: httpUrlSchema,
      headers: z.record(z.string(), z.string().max(10_000)).default({}),
      disabled: z.boolean().default(false),
      trusted: mcpTrustedSchema,
    })
    .strict(),
]);
export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;
export const mcpServerNameSchema = z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'server names are 1 to 40 letters, digits, - and _');
export const mcpServersSchema = z
  .record(mcpServerNameSchema, mcpServerConfigSchema)
  .refine((servers) => Object.keys(servers).length <= 50, 'at most 50 servers');

export const mcpServerStatusSchema = z.object({
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  state: z.enum(['starting', 'running', 'restarting', 'failed', 'disabled', 'stopped']),
  tools: z.array(z.string()),
  error: z.string().nullable(),
  restarts: z.number().int().nonnegative(),
});
export type McpServerStatus = z.infer<typeof mcpServerStatusSchema>;

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
};
