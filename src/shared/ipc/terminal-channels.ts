/*
 * The IPC channels and events of the person's own terminals: a shell in the session's folder, typed in from the
 * Terminal tab.
 */

import { z } from 'zod';
import { idSchema } from '../domain';

const terminalRef = { terminalId: z.string().min(1).max(100) };
const size = { cols: z.number().int().min(2).max(1000), rows: z.number().int().min(1).max(500) };

/** The channels of the person's terminals, spread into the contract (`channels`). */
export const terminalChannels = {
  /** Starts a shell in the session's folder, as the person, outside the sandbox; refused for a session with no folder. */
  'terminal:open': { input: z.object({ sessionId: idSchema, ...size }).strict(), output: z.object({ terminalId: z.string() }) },
  /** What the person typed (or pasted). */
  'terminal:input': { input: z.object({ ...terminalRef, data: z.string().max(64 * 1024) }).strict(), output: z.object({}) },
  'terminal:resize': { input: z.object({ ...terminalRef, ...size }).strict(), output: z.object({}) },
  'terminal:close': { input: z.object(terminalRef).strict(), output: z.object({}) },
} as const;

/** The events of the person's terminals, spread into the contract (`events`). */
export const terminalEvents = {
  /** A terminal's output, gathered over a frame. */
  'terminal:data': z.object({ ...terminalRef, data: z.string() }),
  /** A terminal's shell ended. */
  'terminal:exit': z.object({ ...terminalRef, exitCode: z.number().int() }),
} as const;
