/*
 * An MCP server's tool as a tool of the app's registry: its name under the server's, its risk from the server's hints,
 * and its call.
 */

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RiskLevel } from '../../shared/domain';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { TransientToolError } from '../agent/turn/tool-retry';
import { canonicalJson, type Tool, type ToolOutcome } from '../agent/ports/tools';

export interface McpToolDescription {
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputSchema: Record<string, unknown>;
  readonly annotations?: { readonly readOnlyHint?: boolean | undefined; readonly destructiveHint?: boolean | undefined } | undefined;
}

/** The name a server's tool has in the registry: namespaced by server, in the characters model APIs accept. */
export function namespacedName(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

/**
 * Risk of an MCP tool: write_high unless the server says it only reads; destructive if it says so. A read-only mark
 * counts only for a server the person trusts: otherwise such a tool is a low-risk write (asked for at L1, never tried
 * twice), since the mark is the server's own word.
 */
export function mcpRisk(annotations: McpToolDescription['annotations'], trusted: boolean): RiskLevel {
  if (annotations?.destructiveHint === true) return 'destructive';
  if (annotations?.readOnlyHint === true) return trusted ? 'read_only' : 'write_low';
  return 'write_high';
}

function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((part: { type?: string; text?: string; uri?: string; resource?: { uri?: string; text?: string }; mimeType?: string }) => {
      if (part.type === 'text') return part.text ?? '';
      if (part.type === 'resource') return part.resource?.text ?? `[resource ${part.resource?.uri ?? ''}]`;
      if (part.type === 'resource_link') return `[resource ${part.uri ?? ''}]`;
      return `[${part.type ?? 'content'}${part.mimeType ? ` ${part.mimeType}` : ''}]`;
    })
    .join('\n');
}

/** Where a server comes from: the person's settings, or a folder's own configuration file. */
export interface McpToolOrigin {
  /** Whether the person trusts the server's marks (a folder's own server never is by the folder's word). */
  readonly trusted?: boolean;
  /** A folder's own server: only that folder's sessions are offered its tools, and it is named as the folder's. */
  readonly folder?: { readonly path: string; readonly file: string };
  /** The tool's name in the registry, when not the namespaced one (a folder's tool whose name a person's tool has). */
  readonly name?: string;
}

/** An MCP server's tool as a tool of the registry. Its input is checked by the server, against its own schema. */
export function mcpTool(server: string, description: McpToolDescription, client: () => Client | null, origin: McpToolOrigin = {}): Tool {
  const name = origin.name ?? namespacedName(server, description.name);
  const risk = mcpRisk(description.annotations, origin.trusted === true);
  const folder = origin.folder;
  return {
    name,
    group: server,
    ...(folder ? { workspace: folder.path } : {}),
    description: `${description.description ?? description.name} (MCP server ${server}${folder ? ` of this folder's ${folder.file}` : ''})`,
    baseRisk: risk,
    inputJsonSchema: description.inputSchema,
    parse: (raw) =>
      raw !== null && typeof raw === 'object' && !Array.isArray(raw)
        ? { ok: true, input: raw }
        : { ok: false, message: `The arguments of ${name} must be a JSON object.` },
    assess: () => ({
      level: risk,
      reason:
        risk === 'read_only'
          ? `${server} marks ${description.name} read-only, and you trust its marks`
          : risk === 'write_low'
            ? `${server} marks ${description.name} read-only, but its marks are not trusted (Settings → MCP servers)`
            : `${description.name} is a tool of the MCP server ${server}`,
    }),
    trustPattern: (input) => ({ kind: 'exact', arguments: canonicalJson(input) }),
    exactPattern: (input) => ({ kind: 'exact', arguments: canonicalJson(input) }),
    covers: (pattern, input) => pattern.kind === 'exact' && pattern.arguments === canonicalJson(input),
    // Its arguments are the server's to read: no folder of the workspace is known to hold what it acts on.
    grantFolders: () => [],
    summarize: (input) => `${server}: ${description.name} ${canonicalJson(input).slice(0, 160)}`,
    preview: async () => null,
    execute: async (input, context): Promise<ToolOutcome> => {
      const connected = client();
      if (!connected) return { output: `The MCP server ${server} is not running.`, isError: true };
      const result = await connected
        .callTool({ name: description.name, arguments: input as Record<string, unknown> }, undefined, {
          signal: context.signal,
          timeout: 10 * 60_000,
        })
        .catch((error: unknown) => {
          // A connection that closed or a request that timed out may pass (the server restarts): a read-only call is tried again.
          if (error instanceof McpError && (error.code === ErrorCode.ConnectionClosed || error.code === ErrorCode.RequestTimeout))
            throw new TransientToolError(`The MCP server ${server} did not answer: ${error.message}`, { cause: error });
          throw error;
        });
      const structured = (result as { structuredContent?: unknown }).structuredContent;
      const text = contentText(result.content) || (structured === undefined ? '' : JSON.stringify(structured));
      return { output: text, isError: result.isError === true };
    },
  };
}
