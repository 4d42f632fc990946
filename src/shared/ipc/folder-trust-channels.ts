/*
 * The IPC channels of folder trust: what a session's folder would bring, the person's decision, and the decisions kept.
 */

import { z } from 'zod';
import {
  folderSurveySchema,
  folderTrustDecisionSchema,
  folderTrustEntrySchema,
  folderTrustListSchema,
  folderTrustStateSchema,
} from '../folder-trust';

const sessionIdSchema = z.string().min(1).max(100);

/** Folder trust's channels, spread into the contract (`channels`). */
export const folderTrustChannels = {
  /** Whether a session's folder is trusted, and what it would bring; both null for a session without a folder. */
  'folder-trust:get': {
    input: z.object({ sessionId: sessionIdSchema }).strict(),
    output: z.object({ state: folderTrustStateSchema.nullable(), survey: folderSurveySchema.nullable() }),
  },
  /** The person's answer for a session's folder: trust it, trust its parent (and every folder under it), or keep it restricted. */
  'folder-trust:decide': {
    input: z.object({ sessionId: sessionIdSchema, decision: folderTrustDecisionSchema }).strict(),
    output: folderTrustStateSchema,
  },
  /**
   * Lets the model have one of the folder's instruction files (named as the survey shows it) that carries the signs of a
   * prompt injection, as it is now; the folder as it then is, and what it brings.
   */
  'folder-trust:release': {
    input: z.object({ sessionId: sessionIdSchema, path: z.string().min(1).max(4096), sha256: z.string().regex(/^[0-9a-f]{64}$/) }).strict(),
    output: z.object({ state: folderTrustStateSchema.nullable(), survey: folderSurveySchema.nullable() }),
  },
  /** The decisions kept, for Settings, and what is wrong with the trust file if it could not be used. */
  'folder-trust:list': { input: z.object({}).strict(), output: folderTrustListSchema },
  /** Changes a kept decision (trusted or not) of a folder already in the list. */
  'folder-trust:set': {
    input: folderTrustEntrySchema.pick({ path: true, scope: true, trusted: true }).strict(),
    output: folderTrustListSchema,
  },
  /** Takes a decision back: the folder is asked about again at its next use. */
  'folder-trust:forget': {
    input: folderTrustEntrySchema.pick({ path: true, scope: true }).strict(),
    output: folderTrustListSchema,
  },
  /** Asks the person for a folder (a dialog) and trusts it and every folder under it; the list as it is if they cancel. */
  'folder-trust:pick': { input: z.object({}).strict(), output: folderTrustListSchema },
} as const;

/** Sent when a decision changed (at the prompt, in Settings, from another window). */
export const folderTrustEvents = {
  'folder-trust:changed': folderTrustListSchema,
} as const;
