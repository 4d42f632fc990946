/*
 * The JSON document a session is exported as and imported from: every branch, the whole journal and the checkpoints,
 * its sub-agents' too.
 */

import { z } from 'zod';
import { autonomySchema, branchSchema, idSchema, modelChoiceSchema, sessionStatusSchema, subAgentLinkSchema } from './domain';

/**
 * A session as a JSON document: every branch, the whole journal, and the checkpoints. Bump
 * `sessionExportVersion` when the shape changes, and keep a document of the old version as a test
 * fixture that must still import.
 */
export const sessionExportFormat = 'agent-workbench/session';
export const sessionExportVersion = 1;
/** How an exported session's file name ends; the packaged app registers it with the system (electron-builder.config.cjs). */
export const sessionFileSuffix = '.workbench-session.json';

/** The most sub-agents one export carries (a tree of them, at every depth). */
export const maxExportedSubAgents = 1_000;

/** One session's part of an export: the session, its branches, its journal and its checkpoints. */
const sessionPartSchema = z.object({
  session: z.object({
    id: idSchema,
    title: z.string().min(1).max(200),
    workspacePath: z.string().max(4_096).nullable(),
    model: modelChoiceSchema.nullable(),
    autonomy: autonomySchema,
    status: sessionStatusSchema,
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
    /** A sub-agent's link to the session its work is for (by its id in the export) and the call that started it. */
    subAgent: subAgentLinkSchema.optional(),
  }),
  activeBranchId: idSchema,
  branches: z.array(branchSchema).min(1),
  journal: z.array(
    z.object({
      seq: z.number().int().nonnegative(),
      at: z.number().int(),
      branchId: idSchema,
      /** The event format the row was written in; checked against the app's before the event is read. */
      format: z.number().int().positive(),
      event: z.unknown(),
    }),
  ),
  checkpoints: z.array(
    z.object({
      id: idSchema,
      parentId: idSchema.nullable(),
      seq: z.number().int().nonnegative(),
      createdAt: z.number().int(),
      metadata: z.object({
        source: z.enum(['input', 'model', 'tool', 'approval', 'compaction', 'restore', 'other']),
        step: z.number().int(),
        note: z.string().optional(),
      }),
      appended: z.array(z.unknown()),
      state: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
});
export type SessionExportPart = z.infer<typeof sessionPartSchema>;

export const sessionExportSchema = sessionPartSchema.extend({
  format: z.literal(sessionExportFormat),
  version: z.number().int().positive(),
  exportedAt: z.number().int(),
  appVersion: z.string().max(100).optional(),
  /**
   * The sub-agents the session's calls started and theirs, each after the session it works for. Absent in exports
   * written before sub-agents, and read by older apps as if absent.
   */
  subAgents: z.array(sessionPartSchema).max(maxExportedSubAgents).optional(),
});
export type SessionExport = z.infer<typeof sessionExportSchema>;
