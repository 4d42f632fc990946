/*
 * The MCP server form's draft: its fields as typed (a name, then a command with its arguments, environment and folder,
 * or a URL with its headers), made from a server's configuration, and read into one with a message for each field
 * that is wrong.
 */

import { mcpServerConfigSchema, mcpServerNameSchema, type McpServerConfig } from '../../../shared/domain';

/** One row of names and values: an environment variable, or an HTTP header. */
export interface KeyValueRow {
  readonly key: string;
  readonly value: string;
}

/** The form as typed. Both transports' fields are kept, so switching between them loses nothing. */
export interface McpDraft {
  readonly name: string;
  readonly transport: 'stdio' | 'http';
  readonly command: string;
  readonly args: readonly string[];
  readonly env: readonly KeyValueRow[];
  readonly cwd: string;
  readonly url: string;
  readonly headers: readonly KeyValueRow[];
  /** The person trusts the server's marks on its tools (a tool marked read-only then runs as one). */
  readonly trusted: boolean;
}

/** An empty form: a command, with one empty argument to fill. */
export const emptyMcpDraft: McpDraft = {
  name: '',
  transport: 'stdio',
  command: '',
  args: [''],
  env: [],
  cwd: '',
  url: '',
  headers: [],
  trusted: false,
};

/**
 * Where a problem is: `name`, `command`, `cwd`, `url`, `args.<row>`, or `env.<row>.key`, `env.<row>.value`,
 * `headers.<row>.key`, `headers.<row>.value` (rows counted from 0).
 */
export type McpDraftProblems = Readonly<Record<string, string>>;

/** What the form reads as: a server to save, or what is wrong, field by field. */
export type McpDraftReading =
  | { readonly ok: true; readonly name: string; readonly config: McpServerConfig }
  | { readonly ok: false; readonly problems: McpDraftProblems };

const rows = (record: Readonly<Record<string, string>>): KeyValueRow[] => Object.entries(record).map(([key, value]) => ({ key, value }));

/** The form showing a server already set up, to change it. */
export function draftOfServer(name: string, config: McpServerConfig): McpDraft {
  if ('url' in config)
    return { ...emptyMcpDraft, name, transport: 'http', url: config.url, headers: rows(config.headers), trusted: config.trusted };
  return {
    ...emptyMcpDraft,
    name,
    trusted: config.trusted,
    command: config.command,
    args: config.args.length > 0 ? config.args : [''],
    env: rows(config.env),
    cwd: config.cwd ?? '',
  };
}

/** Environment variable names as shells take them. */
const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** HTTP header names (RFC 9110 tokens). */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Reads rows of names and values into a record, noting each row that is wrong; rows left empty are skipped. */
function readRows(field: 'env' | 'headers', list: readonly KeyValueRow[], problems: Record<string, string>): Record<string, string> {
  const record: Record<string, string> = {};
  list.forEach((row, index) => {
    const key = row.key.trim();
    if (key === '' && row.value === '') return;
    const at = `${field}.${index}`;
    if (key === '') problems[`${at}.key`] = field === 'env' ? 'Name the variable.' : 'Name the header.';
    else if (field === 'env' && !variableName.test(key))
      problems[`${at}.key`] = 'A variable’s name is letters, digits and _, not starting with a digit.';
    else if (field === 'headers' && !headerName.test(key))
      problems[`${at}.key`] = 'A header’s name has no spaces or punctuation other than - and _.';
    else if (Object.hasOwn(record, key)) problems[`${at}.key`] = `“${key}” is set twice.`;
    else if (row.value.length > 10_000) problems[`${at}.value`] = 'At most 10,000 characters.';
    else record[key] = row.value;
  });
  return record;
}

/**
 * Reads the form. `taken` are the names of the servers set up already, other than the one being changed. Every field
 * that is wrong gets its message; the server read is checked against the schema main checks it with, so what the form
 * saves is what the same JSON would.
 */
export function readMcpDraft(draft: McpDraft, taken: readonly string[]): McpDraftReading {
  const problems: Record<string, string> = {};
  const name = draft.name.trim();
  if (name === '') problems['name'] = 'Name the server: its tools are called name__tool.';
  else if (!mcpServerNameSchema.safeParse(name).success) problems['name'] = 'A name is 1 to 40 letters, digits, - and _.';
  else if (taken.includes(name)) problems['name'] = `There is a server named “${name}” already.`;

  let config: unknown;
  if (draft.transport === 'stdio') {
    const command = draft.command.trim();
    if (command === '') problems['command'] = 'Enter the command that starts the server, such as npx or uvx.';
    else if (command.length > 1000) problems['command'] = 'At most 1,000 characters.';
    const args = draft.args.filter((arg) => arg !== '');
    draft.args.forEach((arg, index) => {
      if (arg.length > 4000) problems[`args.${index}`] = 'At most 4,000 characters.';
    });
    const env = readRows('env', draft.env, problems);
    const cwd = draft.cwd.trim();
    config = { command, args, env, ...(cwd === '' ? {} : { cwd }), trusted: draft.trusted };
  } else {
    const url = draft.url.trim();
    if (url === '') problems['url'] = 'Enter the server’s address, such as https://example.com/mcp.';
    else if (!mcpServerConfigSchema.safeParse({ url }).success) problems['url'] = 'The address must start with http:// or https://.';
    config = { url, headers: readRows('headers', draft.headers, problems), trusted: draft.trusted };
  }
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  const parsed = mcpServerConfigSchema.safeParse(config);
  if (!parsed.success) return { ok: false, problems: { form: parsed.error.issues[0]?.message ?? 'This server cannot be saved.' } };
  return { ok: true, name, config: parsed.data };
}

/** A server's launch (what runs, or where it is reached), without the switches: trust in its marks is trust in it. */
function launchOf(config: McpServerConfig): string {
  const { disabled: _disabled, trusted: _trusted, ...launch } = config;
  return JSON.stringify(launch);
}

/**
 * Servers saved as JSON keep a trust in their marks only where it was already given to the same server (the same
 * command or URL): a pasted snippet cannot make its own server trusted, which only the form's switch does. Returns the
 * servers to save and the names whose trust was not taken.
 */
export function keepGrantedTrust(
  next: Readonly<Record<string, McpServerConfig>>,
  current: Readonly<Record<string, McpServerConfig>>,
): { servers: Record<string, McpServerConfig>; untrusted: string[] } {
  const servers: Record<string, McpServerConfig> = {};
  const untrusted: string[] = [];
  for (const [name, config] of Object.entries(next)) {
    const before = current[name];
    const granted = before !== undefined && before.trusted && launchOf(before) === launchOf(config);
    if (config.trusted && !granted) untrusted.push(name);
    servers[name] = { ...config, trusted: config.trusted && granted };
  }
  return { servers, untrusted };
}
