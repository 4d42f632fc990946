/*
 * The MCP servers a folder configures for itself (`.mcp.json` and the files other tools read): as the trust prompt
 * shows them (what each would start or reach), and as they start in a folder the person trusts, their `${...}` filled in.
 */

import { basename, sep } from 'node:path';
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

/** What a folder's entry can name in `${...}`, as the tools that read these files fill it in. */
export interface ExpansionContext {
  /** The folder (`${workspaceFolder}`). */
  readonly folder: string;
  /** The variables a folder's servers start with (`${NAME}`, `${env:NAME}`): the app's scrubbed environment. */
  readonly env: Readonly<Record<string, string>>;
  /** The person's home folder (`${userHome}`). */
  readonly home: string;
  /** Whether variable names match whatever their case, as on Windows (where PATH is often spelled `Path`). */
  readonly namesIgnoreCase?: boolean;
}

function variableOf(context: ExpansionContext, name: string): string | undefined {
  const exact = context.env[name];
  if (exact !== undefined || context.namesIgnoreCase !== true) return exact;
  const lower = name.toLowerCase();
  return Object.entries(context.env).find(([key]) => key.toLowerCase() === lower)?.[1];
}

const placeholder = /\$\{([^}]*)\}/g;

/**
 * One string of an entry with its `${...}` filled in: `${workspaceFolder}`, `${workspaceFolderBasename}`,
 * `${userHome}`, `${pathSeparator}` and `${/}` (as VS Code and Cursor have them), `${env:NAME}`, and `${NAME}` or
 * `${NAME:-default}` (as `.mcp.json` has them). A name the servers' environment does not hold, an `${input:...}` the
 * person would be asked for, or any other kind is refused, saying which: the server then does not start, rather than
 * start with the text as it stands or with a secret the app keeps from the folder's programs.
 */
export function expandPlaceholders(text: string, context: ExpansionContext): { text: string } | { problem: string } {
  let problem: string | null = null;
  const expanded = text.replace(placeholder, (whole, inner: string) => {
    const fixed: Record<string, string> = {
      workspaceFolder: context.folder,
      workspaceFolderBasename: basename(context.folder),
      userHome: context.home,
      pathSeparator: sep,
      '/': sep,
    };
    const known = fixed[inner];
    if (known !== undefined) return known;
    const variable = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s.exec(inner);
    if (variable && !(inner.startsWith('env:') && variable[2] !== undefined)) {
      const value = variableOf(context, variable[1] as string);
      // As a shell reads `:-`: the default stands for a name unset or empty.
      if (value !== undefined && (value !== '' || variable[2] === undefined)) return value;
      if (variable[2] !== undefined) return variable[2];
      problem ??= `it uses ${whole}, and ${variable[1]} is not among the variables a folder's servers are given (PATH, HOME, the locale and a few more; never the person's keys or tokens)`;
      return whole;
    }
    problem ??= inner.startsWith('input:')
      ? `it asks for ${whole}, an input the app does not prompt for`
      : `it uses ${whole}, which the app cannot fill in`;
    return whole;
  });
  return problem === null ? { text: expanded } : { problem };
}

/** Every string of an entry expanded, or the first problem met. */
function expandEntry(entry: Entry, context: ExpansionContext): { entry: Entry } | { problem: string } {
  let problem: string | null = null;
  const one = (text: string): string => {
    const result = expandPlaceholders(text, context);
    if ('problem' in result) problem ??= result.problem;
    return 'text' in result ? result.text : text;
  };
  const record = (values: Record<string, string> | undefined) =>
    values === undefined ? undefined : Object.fromEntries(Object.entries(values).map(([name, value]) => [name, one(value)]));
  const expanded: Entry = {
    ...entry,
    ...(entry.command !== undefined ? { command: one(entry.command) } : {}),
    ...(entry.args !== undefined ? { args: entry.args.map(one) } : {}),
    ...(entry.env !== undefined ? { env: record(entry.env) } : {}),
    ...(entry.url !== undefined ? { url: one(entry.url) } : {}),
    ...(entry.headers !== undefined ? { headers: record(entry.headers) } : {}),
  };
  return problem === null ? { entry: expanded } : { problem };
}

/**
 * The servers a folder configures, as they start: a command runs in the folder, with the environment the entry gives
 * over the app's scrubbed one; a URL is reached as given. Each `${...}` is filled in first (`expandPlaceholders`). A server's marks on its tools are never trusted by the
 * folder's word (a `trusted` key in the file counts for nothing). A file that cannot be read, or an entry that is
 * neither a command nor an http(s) URL, is a server that cannot start, saying why; a name given twice is kept once.
 */
export async function readFolderServers(reader: WorkspaceReader, context: ExpansionContext): Promise<FolderServer[]> {
  const { entries, problems } = await readEntries(reader);
  const servers: Array<FolderServer & { readonly at: number }> = problems.map((problem) => ({
    name: problem.name ?? problem.from,
    file: problem.from,
    config: null,
    problem: problem.message,
    at: problem.at,
  }));
  for (const { name, from, entry: written, at } of entries) {
    // An entry turned off starts nothing, so nothing of it needs filling in.
    const expanded = written.disabled === true ? { entry: written } : expandEntry(written, context);
    if ('problem' in expanded) {
      const problem = `${from}: the server ${JSON.stringify(name.slice(0, 60))} was not started: ${expanded.problem}.`;
      const transport = written.command === undefined ? ('http' as const) : ('stdio' as const);
      servers.push({ name, file: from, config: null, problem, transport, at });
      continue;
    }
    const { entry } = expanded;
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
