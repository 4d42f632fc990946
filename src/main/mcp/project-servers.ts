/*
 * The MCP servers a folder configures for itself (`.mcp.json` and the files other tools read): as the trust prompt
 * shows them (what each would start or reach), and as they start in a folder the person trusts.
 */

import { z } from 'zod';
import { httpUrlSchema } from '../../shared/input-limits';
import type { WorkspaceReader } from '../workspace/workspace-reader';
import type { FolderServer } from './mcp-manager';

/** The files a folder names its MCP servers in, and the key each keeps them under. */
const configFiles: ReadonlyArray<{ readonly path: string; readonly key: 'mcpServers' | 'servers' }> = [
  { path: '.mcp.json', key: 'mcpServers' },
  { path: '.cursor/mcp.json', key: 'mcpServers' },
  { path: '.roo/mcp.json', key: 'mcpServers' },
  { path: '.vscode/mcp.json', key: 'servers' },
];

const maxConfigBytes = 256 * 1024;
const maxServers = 50;

/** One server entry, read leniently: a command to start, or a URL to reach (keys other tools add are passed over). */
const entrySchema = z.object({
  command: z.string().max(1000).optional(),
  args: z.array(z.string().max(4000)).max(100).optional(),
  env: z.record(z.string(), z.string().max(10_000)).optional(),
  url: z.string().max(2000).optional(),
  headers: z.record(z.string(), z.string().max(10_000)).optional(),
  disabled: z.boolean().optional(),
});
type Entry = z.infer<typeof entrySchema>;

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
 * What the folder's files hold: each entry that can be read, and a note for each that cannot (and each file); `at` is
 * where each stands among them all, in the order of the files.
 */
interface ReadEntries {
  readonly entries: Array<{ readonly name: string; readonly from: string; readonly entry: Entry; readonly at: number }>;
  readonly problems: Array<{ readonly name: string | null; readonly from: string; readonly message: string; readonly at: number }>;
}

async function readEntries(reader: WorkspaceReader): Promise<ReadEntries> {
  const found: ReadEntries = { entries: [], problems: [] };
  const at = (): number => found.entries.length + found.problems.length;
  for (const { path, key } of configFiles) {
    const data = await reader.readFile(path, maxConfigBytes + 1).catch(() => null);
    if (data === null) continue;
    if (data.length > maxConfigBytes) {
      found.problems.push({
        name: null,
        from: path,
        message: `${path} is larger than ${maxConfigBytes / 1024} KB and was not read.`,
        at: at(),
      });
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.toString('utf8'));
    } catch {
      found.problems.push({ name: null, from: path, message: `${path} is not valid JSON.`, at: at() });
      continue;
    }
    const entries = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)[key] : undefined;
    if (typeof entries !== 'object' || entries === null) continue;
    for (const [name, raw] of Object.entries(entries)) {
      if (at() >= maxServers) break;
      const entry = entrySchema.safeParse(raw);
      if (!entry.success || (entry.data.command === undefined && entry.data.url === undefined)) {
        const message = `${path}: the server ${JSON.stringify(name.slice(0, 60))} is not one the app can read (it needs a command or a url).`;
        found.problems.push({ name: name.slice(0, 100), from: path, message, at: at() });
        continue;
      }
      found.entries.push({ name: name.slice(0, 100), from: path, entry: entry.data, at: at() });
    }
  }
  return found;
}

/**
 * The MCP servers a folder's own configuration files name, in the order of the files, at most fifty. A file that is
 * not there says nothing; one that cannot be read or parsed is a note.
 */
export async function readProjectServers(reader: WorkspaceReader): Promise<{ servers: ProjectServer[]; notes: string[] }> {
  const { entries, problems } = await readEntries(reader);
  const servers = entries.map(({ name, from, entry }) => {
    const { command, args, url } = entry;
    const launch = command !== undefined ? [command, ...(args ?? [])].map(shown).join(' ') : (url ?? '');
    return { name, from, launch };
  });
  return { servers, notes: problems.map((problem) => problem.message) };
}

/**
 * The servers a folder configures, as they start: a command runs in the folder, with the environment the entry gives
 * over the app's scrubbed one; a URL is reached as given. A server's marks on its tools are never trusted by the
 * folder's word (a `trusted` key in the file counts for nothing). A file that cannot be read, or an entry that is
 * neither a command nor an http(s) URL, is a server that cannot start, saying why; a name given twice is kept once.
 */
export async function readFolderServers(reader: WorkspaceReader): Promise<FolderServer[]> {
  const { entries, problems } = await readEntries(reader);
  const servers: Array<FolderServer & { readonly at: number }> = problems.map((problem) => ({
    name: problem.name ?? problem.from,
    file: problem.from,
    config: null,
    problem: problem.message,
    at: problem.at,
  }));
  for (const { name, from, entry, at } of entries) {
    const disabled = entry.disabled === true;
    if (entry.command !== undefined) {
      const config = { command: entry.command, args: entry.args ?? [], env: entry.env ?? {}, cwd: reader.root, disabled, trusted: false };
      servers.push({ name, file: from, config, at });
      continue;
    }
    const url = httpUrlSchema.safeParse(entry.url);
    servers.push(
      url.success
        ? { name, file: from, config: { url: url.data, headers: entry.headers ?? {}, disabled, trusted: false }, at }
        : {
            name,
            file: from,
            config: null,
            problem: `${from}: the server ${JSON.stringify(name.slice(0, 60))} has a url that is not http(s).`,
            transport: 'http' as const,
            at,
          },
    );
  }
  // In the order of the files; of two of one name, the first.
  const seen = new Set<string>();
  return servers
    .sort((a, b) => a.at - b.at)
    .filter((server) => !seen.has(server.name) && Boolean(seen.add(server.name)))
    .map(({ at: _at, ...server }) => server);
}
