/*
 * The tool groups a person switches on or off (read files, change files, shell, memory, and one per MCP server), and
 * the group each tool belongs to.
 */

import { z } from 'zod';

/**
 * What a tool does, in the groups a person switches on or off and the system prompt lists tools by: the
 * seed's capability toggles. Each MCP server is a group of its own, `mcp:<server>`.
 */
export const builtInToolGroups = ['files_read', 'files_write', 'shell', 'memory'] as const;
export type BuiltInToolGroup = (typeof builtInToolGroups)[number];
export type ToolGroup = BuiltInToolGroup | `mcp:${string}`;

export const toolGroupSchema = z.union([
  z.enum(builtInToolGroups),
  z.templateLiteral(['mcp:', z.string().min(1).max(200)]),
]) as z.ZodType<ToolGroup>;

export const toolGroupLabels: Readonly<Record<BuiltInToolGroup, string>> = {
  files_read: 'Read files',
  files_write: 'Change files',
  shell: 'Shell commands',
  memory: 'Memory',
};

/** The built-in tools by group; a tool not listed here and from no server goes by its risk. */
const builtInGroupOf: Readonly<Record<string, BuiltInToolGroup>> = {
  list_files: 'files_read',
  read_file: 'files_read',
  search: 'files_read',
  write_file: 'files_write',
  edit_file: 'files_write',
  delete: 'files_write',
  run_command: 'shell',
  remember: 'memory',
  recall: 'memory',
};

/** The group of a tool: its MCP server's, or the built-in one it belongs to. */
export function toolGroupOf(tool: { readonly name: string; readonly group?: string; readonly readOnly: boolean }): ToolGroup {
  if (tool.group !== undefined) return `mcp:${tool.group}`;
  return builtInGroupOf[tool.name] ?? (tool.readOnly ? 'files_read' : 'files_write');
}

/** A group's name for people. */
export function toolGroupLabel(group: ToolGroup): string {
  return group.startsWith('mcp:') ? `MCP server ${group.slice(4)}` : toolGroupLabels[group as BuiltInToolGroup];
}
