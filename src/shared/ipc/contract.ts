/*
 * The IPC contract: every channel between the window and the main process, each declared once with its input and
 * output schemas, and the events main sends.
 */
import { z } from 'zod';
import {
  mcpServersSchema,
  mcpServerStatusSchema,
  mcpServerNameSchema,
  approvalDecisionSchema,
  autonomySchema,
  branchSchema,
  trustGrantSchema,
  idSchema,
  limits,
  sessionModelSchema,
  modelCheckSchema,
  riskLevelSchema,
  sessionSchema,
} from '../domain';
import { errorInfoSchema } from '../errors';
import { branchPointSchema, sessionTreeNodeSchema } from '../branches';
import { filePreviewSchema, filesRestoredSchema, restoreModeSchema } from '../file-history';
import { changeSetSchema, fileDiffSchema } from '../changes';
import { journalEntrySchema, toolCallDraftEventSchema } from '../events';
import { resultReviewDecisionSchema } from '../guardrails';
import { customCommandListSchema } from '../custom-commands';
import { attachmentRequestSchema, attachmentsPerMessage, filePeekSchema } from '../attachments';
import { memoryChannels } from './memory-channels';
import { providerChannels } from './provider-channels';
import { settingsChannels } from './settings-channels';
import { profileChannels } from './profile-channels';
import { budgetChannels } from './budget-channels';
import { gitChannels } from './git-channels';
import { archiveChannels, archiveEntrySchema } from './archive-channels';
import { localModelChannels, localModelEvents } from './local-model-channels';
import { terminalChannels, terminalEvents } from './terminal-channels';
import { folderTrustChannels, folderTrustEvents } from './folder-trust-channels';
import { appChannels, appEvents } from './app-channels';
import { trashChannels } from './trash-channels';

/**
 * The IPC contract, declared once. Main validates every input against it, the preload builds its
 * bridge from its keys, and the renderer's client type is derived from it. Inputs are strict
 * objects: unknown fields are refused, not ignored.
 */

const noInput = z.object({}).strict();
const titleSchema = z.string().trim().min(1).max(limits.titleLength);
const pathSchema = z
  .string()
  .min(1)
  .max(limits.pathLength)
  .refine((value) => !value.includes('\0'), 'must not contain NUL bytes');
const sessionRef = { sessionId: idSchema };

export {
  connectionTestResultSchema,
  discoveredEndpointSchema,
  discoveryResultSchema,
  missedEndpointSchema,
  providerViewSchema,
  type ConnectionTestResult,
  type DiscoveredEndpoint,
  type DiscoveryResult,
  type MissedEndpoint,
  type ProviderView,
} from './provider-channels';

/** A folder sessions worked in, newest first; `exists` is false when it was moved or deleted since. */
export const recentFolderSchema = z.object({ path: z.string(), exists: z.boolean() });
export type RecentFolder = z.infer<typeof recentFolderSchema>;

export const sessionTotalsSchema = z.object({
  modelCalls: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  modelMs: z.number(),
  largestPromptTokens: z.number().int(),
  /** Of the input tokens, those the servers said they read from their prompt caches, and wrote to a billed one. */
  cacheReadTokens: z.number().int(),
  cacheWriteTokens: z.number().int(),
  /** Null when some call's price is unknown; `pricedCostUsd` is then what the calls with a price cost. */
  costUsd: z.number().nullable(),
  pricedCostUsd: z.number(),
  /** Model calls with no known price. */
  unpricedCalls: z.number().int(),
  toolCalls: z.number().int(),
  toolFailures: z.number().int(),
  toolMs: z.number(),
});
export type SessionTotalsView = z.infer<typeof sessionTotalsSchema>;

const reasonSchema = z.string().trim().min(1).max(4_000);

/** A tool as Settings lists it. */
export const toolInfoSchema = z.object({
  name: z.string(),
  description: z.string(),
  /** The MCP server it comes from; null for a built-in tool. */
  server: z.string().nullable(),
  /** The folder whose own MCP server it comes from (offered in that folder's sessions only); absent otherwise. */
  folder: z.string().optional(),
  risk: riskLevelSchema,
});
export type ToolInfo = z.infer<typeof toolInfoSchema>;

export const appInfoSchema = z.object({
  version: z.string(),
  dataDir: z.string(),
  databasePath: z.string(),
  secretsEncrypted: z.boolean(),
  /** Whether shell commands run in an OS sandbox, said plainly. */
  sandbox: z.object({ available: z.boolean(), description: z.string() }),
  /** The shell the agent's commands run in, or, where there is none (Windows without Git for Windows), how to get one. */
  commandShell: z.object({ available: z.boolean(), description: z.string() }),
  /** Whether the database is encrypted at rest, said plainly ("not encrypted: this system offers no keychain"). */
  databaseEncryption: z.object({ encrypted: z.boolean(), description: z.string() }),
  /** Why the app could not start; with the newest backup of the database that opens now, and when it was taken. */
  startupError: errorInfoSchema.extend({ backupPath: z.string().optional(), backupTakenAt: z.number().optional() }).nullable(),
});
export type AppInfo = z.infer<typeof appInfoSchema>;

export const channels = {
  'app:info': { input: noInput, output: appInfoSchema },
  ...appChannels,

  'session:list': { input: noInput, output: z.array(sessionSchema) },
  'session:create': {
    /** No workspacePath: the last folder used, if it still exists; null: no folder. */
    input: z.object({ title: titleSchema.optional(), workspacePath: pathSchema.nullable().optional() }).strict(),
    output: sessionSchema,
  },
  'session:rename': { input: z.object({ ...sessionRef, title: titleSchema }).strict(), output: sessionSchema },
  /** Archives the session (see `archive:list`): it leaves the list and is kept, restorable, until it is purged. */
  'session:delete': { input: z.object(sessionRef).strict(), output: archiveEntrySchema },
  'session:open': {
    // `recentTurns`: only the last turns, for a first paint of a long session; the whole line follows.
    input: z.object({ ...sessionRef, recentTurns: z.number().int().min(1).max(1_000).optional() }).strict(),
    // The shown branch's line (whole, or its last turns), and the places on it where other versions exist.
    output: z.object({
      session: sessionSchema,
      entries: z.array(journalEntrySchema),
      complete: z.boolean(),
      branchPoints: z.array(branchPointSchema),
    }),
  },
  /** Goes on with the turn the app stopped in the middle of, from its last checkpoint. */
  'session:resume': { input: z.object(sessionRef).strict(), output: z.object({ turnId: idSchema.nullable() }) },
  /** Ends an interrupted turn without going on; a queued message is handed back for the composer. */
  'session:discard': { input: z.object(sessionRef).strict(), output: z.object({ queued: z.string().nullable() }) },
  'session:tree': { input: z.object(sessionRef).strict(), output: sessionTreeNodeSchema.nullable() },
  /** The whole session, every branch included, as a versioned JSON document. */
  /**
   * What looks like a secret (API keys, tokens, private keys, `.env` values) is redacted unless `raw` is asked for;
   * `redacted` counts what was.
   */
  'session:export': {
    input: z.object({ ...sessionRef, raw: z.boolean().optional() }).strict(),
    output: z.object({ fileName: z.string(), document: z.string(), redacted: z.number().int().min(0) }),
  },
  'session:import': { input: z.object({ document: z.string().min(2).max(limits.importLength) }).strict(), output: sessionSchema },

  /**
   * Runs a sent message again with new text, on a new branch; the old one stays. `filesBack`: the files are first put
   * back as they were when the message was sent (what the person changed since is kept unless `overwriteConflicts`);
   * undoing that restore shows the version before the edit again.
   */
  'message:edit': {
    input: z
      .object({
        ...sessionRef,
        messageId: idSchema,
        text: z.string().trim().min(1).max(limits.messageLength),
        filesBack: z.boolean().optional(),
        overwriteConflicts: z.boolean().optional(),
      })
      .strict(),
    output: z.object({ turnId: idSchema, branchId: idSchema, files: filesRestoredSchema.nullable() }),
  },
  /**
   * Summarizes the older part of the conversation now, so the model sees less of it from here on
   * (the journal keeps it all); `instructions` say what the summary should keep.
   */
  'session:compact': {
    input: z.object({ ...sessionRef, instructions: z.string().max(2_000).optional() }).strict(),
    output: z.object({ turnId: idSchema }),
  },
  /** Answers a turn's message again, on a new branch. */
  'turn:retry': {
    input: z.object({ ...sessionRef, turnId: idSchema }).strict(),
    output: z.object({ turnId: idSchema, branchId: idSchema }),
  },
  'branch:list': {
    input: z.object(sessionRef).strict(),
    output: z.object({ activeBranchId: idSchema, branches: z.array(branchSchema), points: z.array(branchPointSchema) }),
  },
  'branch:switch': { input: z.object({ ...sessionRef, branchId: idSchema }).strict(), output: branchSchema },

  /** What restoring a checkpoint's files would change, before anything is. */
  'checkpoint:preview': { input: z.object({ ...sessionRef, checkpointId: idSchema }).strict(), output: filePreviewSchema },
  'checkpoint:restore': {
    input: z
      .object({ ...sessionRef, checkpointId: idSchema, mode: restoreModeSchema, overwriteConflicts: z.boolean().optional() })
      .strict(),
    output: z.object({ branchId: idSchema.nullable(), recovered: z.boolean(), files: filesRestoredSchema.nullable() }),
  },
  'checkpoint:undoRestore': { input: z.object({ ...sessionRef, restoreId: idSchema }).strict(), output: filesRestoredSchema },

  /** What the agent created, changed or deleted over the session, or over one turn when `turnId` is given. */
  'changes:list': { input: z.object({ ...sessionRef, turnId: idSchema.optional() }).strict(), output: changeSetSchema },
  'changes:diff': {
    input: z.object({ ...sessionRef, turnId: idSchema.optional(), path: z.string().min(1).max(limits.pathLength) }).strict(),
    output: fileDiffSchema,
  },
  /** Takes one path's change back out of the workspace (all of it, or the hunks listed); undone with `checkpoint:undoRestore`. */
  'changes:revert': {
    input: z
      .object({
        ...sessionRef,
        turnId: idSchema.optional(),
        path: z.string().min(1).max(limits.pathLength),
        hunks: z.array(z.number().int().nonnegative()).min(1).max(10_000).optional(),
      })
      .strict(),
    output: filesRestoredSchema,
  },
  /** An empty model name picks only the endpoint; the session then waits for a model before it can send. */
  'session:setModel': { input: z.object({ ...sessionRef, model: sessionModelSchema.strict() }).strict(), output: sessionSchema },
  'session:setAutonomy': { input: z.object({ ...sessionRef, autonomy: autonomySchema }).strict(), output: sessionSchema },
  'session:stats': { input: z.object(sessionRef).strict(), output: sessionTotalsSchema },
  /** The sub-agents a session's calls started (each a session of its own, with the call it answers), oldest first. */
  'session:subAgents': { input: z.object(sessionRef).strict(), output: z.array(sessionSchema) },

  'workspace:set': { input: z.object({ ...sessionRef, path: pathSchema }).strict(), output: sessionSchema },
  /** One folder of the session's workspace, as the file tree shows it: ignored files left out, folders first. */
  'workspace:list': {
    input: z.object({ ...sessionRef, path: z.string().max(limits.pathLength).default('.') }).strict(),
    output: z.object({
      entries: z.array(z.object({ path: z.string(), name: z.string(), directory: z.boolean() })),
      truncated: z.boolean(),
    }),
  },
  'workspace:pick': { input: z.object(sessionRef).strict(), output: sessionSchema.nullable() },
  /** The folders of the latest sessions (at most 3, newest first), each said to exist still or not. */
  'workspace:recent': { input: noInput, output: z.array(recentFolderSchema) },
  /** Files and folders of the workspace whose path holds `query` (ignored files left out), best first; bounded in count and time. */
  'workspace:find': {
    input: z
      .object({ ...sessionRef, query: z.string().max(limits.pathLength), limit: z.number().int().min(1).max(100).default(30) })
      .strict(),
    output: z.object({ entries: z.array(z.object({ path: z.string(), directory: z.boolean() })), truncated: z.boolean() }),
  },
  /** A file of the workspace for the read-only preview, read through the link-safe reader and bounded. */
  'workspace:read': { input: z.object({ ...sessionRef, path: pathSchema }).strict(), output: filePeekSchema },
  /**
   * The person's own `/` commands for a session: its workspace's (`.agents/commands`, `.claude/commands`), then the data
   * folder's; files left out are said in `notes`.
   */
  'commands:list': { input: z.object(sessionRef).strict(), output: customCommandListSchema },

  'run:send': {
    input: z
      .object({
        ...sessionRef,
        text: z.string().trim().min(1).max(limits.messageLength),
        /** Files to attach; main reads and checks each before anything is written. */
        attachments: z.array(attachmentRequestSchema).max(attachmentsPerMessage).optional(),
      })
      .strict(),
    // A message sent while a turn runs is queued (a newer one replaces it) and runs when the turn ends.
    output: z.object({ turnId: idSchema.nullable(), queued: z.boolean() }),
  },
  'run:cancel': { input: z.object(sessionRef).strict(), output: z.object({ cancelled: z.boolean() }) },
  'run:clearQueue': { input: z.object(sessionRef).strict(), output: z.object({ cleared: z.boolean() }) },

  'approval:answer': {
    input: z
      .object({
        approvalId: idSchema,
        decision: approvalDecisionSchema,
        reason: reasonSchema.optional(),
        // At a gate whose call asks for more than the sandbox: the timed or session grant covers that escalation too.
        trustEscalation: z.literal(true).optional(),
        // A folder the gate offered: the timed or session grant covers the tool on any path in it.
        folder: z.string().max(limits.pathLength).optional(),
        // A write's or an edit's content as the person changed it at the gate: what runs instead of the model's.
        content: z.string().max(limits.editedContent).optional(),
      })
      .strict()
      .refine((value) => !value.trustEscalation || !['deny', 'allow_once'].includes(value.decision), {
        message: 'trustEscalation goes with a timed or session answer',
      })
      .refine((value) => value.folder === undefined || !['deny', 'allow_once'].includes(value.decision), {
        message: 'a folder goes with a timed or session answer',
      }),
    output: z.object({ accepted: z.literal(true) }),
  },
  'plan:answer': {
    input: z.object({ planId: idSchema, answer: z.enum(['approve', 'reject', 'refine']), text: reasonSchema.optional() }).strict(),
    output: z.object({ accepted: z.literal(true) }),
  },
  /** Answers a tool result held for review as a possible prompt injection: the model sees it, or a note that it was withheld. */
  'review:answer': {
    input: z.object({ reviewId: idSchema, decision: resultReviewDecisionSchema }).strict(),
    output: z.object({ accepted: z.literal(true) }),
  },
  'trust:list': { input: noInput, output: z.array(trustGrantSchema) },
  'trust:revoke': { input: z.object({ grantId: idSchema }).strict(), output: trustGrantSchema },
  /** Every tool there is (built-in, and those of running MCP servers), for the list in Settings where tools are denied. */
  'tool:list': { input: noInput, output: z.array(toolInfoSchema) },
  'tool:output': {
    input: z.object({ toolCallId: z.string().min(1).max(200) }).strict(),
    output: z.object({ output: z.string(), outputBytes: z.number().int(), truncated: z.boolean() }),
  },

  ...providerChannels,

  ...trashChannels,

  'mcp:list': { input: noInput, output: z.array(mcpServerStatusSchema) },
  /** Replaces the MCP configuration (the `mcpServers` object); servers that changed restart. */
  'mcp:configure': { input: z.object({ mcpServers: mcpServersSchema }).strict(), output: z.array(mcpServerStatusSchema) },
  'mcp:setEnabled': {
    input: z.object({ name: mcpServerNameSchema, enabled: z.boolean() }).strict(),
    output: z.array(mcpServerStatusSchema),
  },

  ...settingsChannels,
  ...memoryChannels,
  ...profileChannels,
  ...archiveChannels,
  ...budgetChannels,
  ...gitChannels,
  ...localModelChannels,
  ...terminalChannels,
  ...folderTrustChannels,
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;

export const events = {
  /**
   * Journal entries of a session as they happen, batched (at most one message per session per frame), and with
   * them the tool calls the model is writing, which are shown live and never journalled.
   */
  'session:events': z.object({
    sessionId: idSchema,
    entries: z.array(journalEntrySchema),
    drafts: z.array(toolCallDraftEventSchema).optional(),
  }),
  /** A session row changed (created, renamed, status) or was deleted. */
  'session:changed': z.union([z.object({ session: sessionSchema }), z.object({ deletedSessionId: idSchema })]),
  /** The state of every MCP server, whenever one changes. */
  'mcp:changed': z.object({ servers: z.array(mcpServerStatusSchema) }),
  /** The active trust grants, whenever one is created or revoked. */
  'trust:changed': z.object({ grants: z.array(trustGrantSchema) }),
  /** How far a workspace's code index is while it is brought up to date: files looked at, of those found. */
  'code-map:progress': z.object({
    workspacePath: z.string(),
    done: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
  }),
  /** A check of a model finished, or a turn found its server refuses tool definitions. */
  'model:checked': z.object({ check: modelCheckSchema }),
  /**
   * A folder or an exported session given to the app from outside (its command line, a file manager, the dock or
   * taskbar icon) was opened as this session, which the window shows; or could not be, and why.
   */
  'launch:opened': z.union([z.object({ session: sessionSchema }), z.object({ path: z.string(), error: errorInfoSchema })]),
  ...localModelEvents,
  ...terminalEvents,
  ...folderTrustEvents,
  ...appEvents,
} as const satisfies Record<string, z.ZodType>;

export type Channels = typeof channels;
export type ChannelName = keyof Channels;
export type ChannelInput<K extends ChannelName> = z.input<Channels[K]['input']>;
export type ParsedInput<K extends ChannelName> = z.output<Channels[K]['input']>;
export type ChannelOutput<K extends ChannelName> = z.output<Channels[K]['output']>;

export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<K extends EventName> = z.output<Events[K]>;

export const channelNames = Object.keys(channels) as ChannelName[];
export const eventNames = Object.keys(events) as EventName[];

/** What every invoke answers: errors cross the bridge as data. */
export const ipcResultSchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: errorInfoSchema }),
]);
export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: z.infer<typeof errorInfoSchema> };
