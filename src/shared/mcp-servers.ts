/*
 * MCP servers: each one as the settings configure it (a command to start or a URL), and as it runs.
 */

import { z } from 'zod';
import { httpUrlSchema } from './input-limits';

/**
 * Whether the person trusts a server's own marks on its tools: only then does a tool it marks read-only run as one.
 * A mark is the server's word, not a fact; a tool of a server not trusted is at least a low-risk write.
 */
const mcpTrustedSchema = z.boolean().default(false);

/** One MCP server, as in the common `mcpServers` configuration: a command to start (stdio) or a URL (streamable HTTP). */
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
  /** A folder's own server: the folder and the file (relative to it) that names it. The person's servers have none. */
  source: z.object({ folder: z.string(), file: z.string() }).optional(),
  /** What was done about its tools that the person should know (a name a person's tool has, taken under another). */
  notes: z.array(z.string()).optional(),
});
export type McpServerStatus = z.infer<typeof mcpServerStatusSchema>;
