/*
 * The MCP servers a folder configures for itself (`.mcp.json` and the files other tools read), as the trust prompt
 * shows them: what each would start or reach.
 */

import { z } from 'zod';
import type { WorkspaceReader } from '../workspace/workspace-reader';

/** The files a folder names its MCP servers in, and the key each keeps them under. */
const configFiles: ReadonlyArray<{ readonly path: string; readonly key: 'mcpServers' | 'servers' }> = [
  { path: '.mcp.json', key: 'mcpServers' },
  { path: '.cursor/mcp.json', key: 'mcpServers' },
  { path: '.roo/mcp.json', key: 'mcpServers' },
  { path: '.vscode/mcp.json', key: 'servers' },
];

const maxConfigBytes = 256 * 1024;
const maxServers = 50;

/** One server entry, read leniently: a command to start, or a URL to reach. */
const entrySchema = z.object({
  command: z.string().max(1000).optional(),
  args: z.array(z.string().max(4000)).max(100).optional(),
  url: z.string().max(2000).optional(),
});

export interface ProjectServer {
  readonly name: string;
  /** The file that names it, relative to the folder. */
  readonly from: string;
  /** The command line it starts, or the URL it reaches. */
  readonly launch: string;
}

/** A word of a command line as a shell would need it written. */
const shown = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/**
 * The MCP servers a folder's own configuration files name, in the order of the files, at most fifty. A file that is
 * not there says nothing; one that cannot be read or parsed is a note.
 */
export async function readProjectServers(reader: WorkspaceReader): Promise<{ servers: ProjectServer[]; notes: string[] }> {
  const servers: ProjectServer[] = [];
  const notes: string[] = [];
  for (const { path, key } of configFiles) {
    const data = await reader.readFile(path, maxConfigBytes + 1).catch(() => null);
    if (data === null) continue;
    if (data.length > maxConfigBytes) {
      notes.push(`${path} is larger than ${maxConfigBytes / 1024} KB and was not read.`);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.toString('utf8'));
    } catch {
      notes.push(`${path} is not valid JSON.`);
      continue;
    }
    const entries = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)[key] : undefined;
    if (typeof entries !== 'object' || entries === null) continue;
    for (const [name, raw] of Object.entries(entries)) {
      if (servers.length >= maxServers) break;
      const entry = entrySchema.safeParse(raw);
      if (!entry.success || (entry.data.command === undefined && entry.data.url === undefined)) {
        notes.push(`${path}: the server ${JSON.stringify(name.slice(0, 60))} is not one the app can read.`);
        continue;
      }
      const { command, args, url } = entry.data;
      const launch = command !== undefined ? [command, ...(args ?? [])].map(shown).join(' ') : (url ?? '');
      servers.push({ name: name.slice(0, 100), from: path, launch });
    }
  }
  return { servers, notes };
}
