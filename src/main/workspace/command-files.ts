/*
 * The person's own `/` commands, read from Markdown files: the workspace's `.agents/commands` and `.claude/commands`,
 * then the app's data folder's `commands` (each with its subfolders), through the reader that follows no link; a file that cannot be used is left
 * out with a note.
 */

import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import {
  builtInCommandNames,
  commandFileLimitBytes,
  commandFilesPerFolder,
  commandNamePattern,
  type CommandSource,
  type CustomCommand,
  type CustomCommandList,
} from '../../shared/custom-commands';
import { readAllSync } from './fd-read';
import { instructionFileNames } from './instruction-files';
import { losslessText } from './utf8-text';
import { WorkspaceFiles } from './workspace-files';
import type { WorkspaceReader } from './workspace-reader';

/** The workspace's folders of command files, the one that wins a name first. */
export const workspaceCommandFolders = ['.agents/commands', '.claude/commands'] as const;
/** The folder of commands for every workspace, in the app's data folder. */
export const dataCommandFolder = 'commands';

/** A command file read as its parts, or why it cannot be used. */
export type ParsedCommandFile =
  | { readonly ok: true; readonly description: string; readonly argumentHint: string; readonly prompt: string }
  | { readonly ok: false; readonly reason: string };

const builtIn = new Set<string>(builtInCommandNames);
const descriptionLength = 300;
const hintLength = 200;

/** A front matter value without the quotes YAML allows around it. */
function unquoted(value: string): string {
  const text = value.trim();
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) return text.slice(1, -1).replace(/\\"/g, '"');
  if (text.length >= 2 && text.startsWith("'") && text.endsWith("'")) return text.slice(1, -1).replace(/''/g, "'");
  return text;
}

const cut = (text: string, length: number): string => (text.length <= length ? text : `${text.slice(0, length - 1)}…`);

/**
 * Reads a command file's text: an optional front matter between `---` lines, of which `description:` and
 * `argument-hint:` are used (other keys, such as Claude Code's `allowed-tools` or `model`, are left alone), then the
 * prompt. Without a description, the prompt's first line says what the command does.
 */
export function parseCommandFile(raw: string): ParsedCommandFile {
  const text = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  let body = text;
  const fields = new Map<string, string>();
  if (/^---[ \t]*(\n|$)/.test(text)) {
    const lines = text.split('\n');
    const end = lines.findIndex((line, index) => index > 0 && /^---[ \t]*$/.test(line));
    if (end === -1) return { ok: false, reason: 'its front matter (from the first “---” line) has no closing “---” line' };
    for (const line of lines.slice(1, end)) {
      const field = /^([A-Za-z][\w-]*)[ \t]*:(.*)$/.exec(line);
      if (field?.[1] && !fields.has(field[1].toLowerCase())) fields.set(field[1].toLowerCase(), unquoted(field[2] ?? ''));
    }
    body = lines.slice(end + 1).join('\n');
  }
  const prompt = body.trim();
  if (prompt === '') return { ok: false, reason: 'it has no prompt' };
  const firstLine = (prompt.split('\n').find((line) => line.trim() !== '') ?? '').replace(/^#+\s*/, '').trim();
  return {
    ok: true,
    description: cut(fields.get('description') || firstLine, descriptionLength),
    argumentHint: cut(fields.get('argument-hint') ?? '', hintLength),
    prompt,
  };
}

/** A folder's entries, or why it is not read: missing (nothing to say), or there but not a plain folder. */
async function listed(
  reader: WorkspaceReader,
  folder: string,
  shown: string,
): Promise<{ entries: Array<{ name: string; directory: boolean }> } | { note: string | null }> {
  const steps = folder.split('/');
  for (let depth = 0; depth < steps.length; depth += 1) {
    const parent = steps.slice(0, depth).join('/');
    let names: Array<{ name: string; directory: boolean }>;
    try {
      names = await reader.list(parent);
    } catch {
      return { note: null };
    }
    const entry = names.find((candidate) => candidate.name === steps[depth]);
    if (!entry) return { note: null };
    // A link is listed as what it is, never entered: its commands would come from wherever it points.
    if (!entry.directory) {
      const place = depth === steps.length - 1 ? shown : `${shown} was not read: ${steps.slice(0, depth + 1).join('/')}`;
      return { note: `${place} is not a plain folder (links are not followed), so its commands are left out.` };
    }
  }
  try {
    return { entries: await reader.list(folder) };
  } catch {
    return { note: `${shown} could not be read: its commands are left out.` };
  }
}

interface FolderPlace {
  readonly reader: WorkspaceReader;
  /** Relative to the reader's root. */
  readonly folder: string;
  readonly source: CommandSource;
  /** The folder as the person is told of it. */
  readonly shown: string;
}

/** How deep command files are read below a commands folder: `frontend/component.md` is `/component`, as in Claude Code. */
const commandFolderDepth = 2;

/**
 * The Markdown files of a commands folder, relative to it: its own in name order, then those of each subfolder in name
 * order, down to `commandFolderDepth` folders. A folder deeper than that is named in a note; links are never entered
 * (they are listed as what they are, not as folders).
 */
async function commandFilesIn(
  reader: WorkspaceReader,
  folder: string,
  entries: ReadonlyArray<{ name: string; directory: boolean }>,
  shown: string,
  notes: string[],
  prefix = '',
): Promise<string[]> {
  const sorted = [...entries].sort((a, b) => a.name.localeCompare(b.name));
  const files = sorted.filter((entry) => !entry.directory && /\.md$/i.test(entry.name)).map((entry) => `${prefix}${entry.name}`);
  const subfolders = sorted.filter((entry) => entry.directory).map((entry) => `${prefix}${entry.name}/`);
  if (subfolders.length > 0 && prefix.split('/').length > commandFolderDepth) {
    notes.push(`Commands more than ${commandFolderDepth} folders deep in ${shown} are not read (${subfolders.join(', ')}).`);
    return files;
  }
  for (const subfolder of subfolders) {
    let inner: Array<{ name: string; directory: boolean }>;
    try {
      inner = await reader.list(`${folder}/${subfolder.slice(0, -1)}`);
    } catch {
      notes.push(`${shown}/${subfolder} could not be read: its commands are left out.`);
      continue;
    }
    files.push(...(await commandFilesIn(reader, folder, inner, shown, notes, subfolder)));
  }
  return files;
}

/**
 * The commands of one folder and its subfolders, its own first and each in name order, and a note for each file left
 * out. A command's name is its file's, wherever it lies; the first of a name wins.
 */
async function readFolder(place: FolderPlace, notes: string[]): Promise<CustomCommand[]> {
  const { reader, folder, source, shown } = place;
  const found = await listed(reader, folder, shown);
  if ('note' in found) {
    if (found.note) notes.push(found.note);
    return [];
  }
  const files = await commandFilesIn(reader, folder, found.entries, shown, notes);
  if (files.length > commandFilesPerFolder)
    notes.push(`${shown} holds ${files.length} command files: only the first ${commandFilesPerFolder} by name are read.`);
  const commands: CustomCommand[] = [];
  const sources = new Map<string, string>();
  for (const fileName of files.slice(0, commandFilesPerFolder)) {
    const shownFile = `${shown}/${fileName}`;
    const leftOut = (why: string): void => void notes.push(`${shownFile} was left out: ${why}.`);
    const name = (fileName.split('/').at(-1) ?? fileName).slice(0, -'.md'.length);
    if (!commandNamePattern.test(name)) {
      leftOut('a command’s name is a letter followed by letters, digits, “-” or “_”');
      continue;
    }
    if (builtIn.has(name.toLowerCase())) {
      leftOut(`/${name.toLowerCase()} is a built-in command, which a file cannot replace`);
      continue;
    }
    const earlier = sources.get(name.toLowerCase());
    if (earlier !== undefined) {
      leftOut(`/${name.toLowerCase()} is ${earlier} already`);
      continue;
    }
    let read: { bytes: Buffer } | { size: number } | null;
    try {
      read = reader.withPlainFile(`${folder}/${fileName}`, (fd, info) =>
        info.size > commandFileLimitBytes ? { size: info.size } : { bytes: readAllSync(fd, commandFileLimitBytes + 1) },
      );
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : 'an error';
      leftOut(`it could not be read (${code === 'EACCES' ? 'no permission to read it' : code})`);
      continue;
    }
    if (read === null) {
      leftOut('it is not a plain file (links are not followed)');
      continue;
    }
    if ('size' in read || read.bytes.length > commandFileLimitBytes) {
      leftOut(`a command file may be at most ${commandFileLimitBytes / 1024} KB`);
      continue;
    }
    const text = read.bytes.includes(0) ? null : losslessText(read.bytes);
    if (text === null) {
      leftOut('it is not text (binary, or not UTF-8)');
      continue;
    }
    const parsed = parseCommandFile(text);
    if (!parsed.ok) {
      leftOut(parsed.reason);
      continue;
    }
    const path = source === 'workspace' ? `${folder}/${fileName}` : join(shown, fileName);
    const { description, argumentHint, prompt } = parsed;
    sources.set(name.toLowerCase(), shownFile);
    commands.push({ name: name.toLowerCase(), description, argumentHint, prompt, source, path });
  }
  return commands;
}

/** A reader of a folder's files from its real path, or null when the folder is not there. */
function readerOf(folder: string): WorkspaceReader | null {
  try {
    return new WorkspaceFiles(realpathSync(folder)).reader();
  } catch {
    return null;
  }
}

/**
 * The `/` commands of a session: those of its workspace (`.agents/commands`, then `.claude/commands`), then those of
 * the data folder's `commands`, for every workspace. The first of a name wins, so a workspace's command is used before
 * the data folder's of the same name. Every file is opened from its folder's root one name at a time without following
 * a link, at most `commandFileLimitBytes` of it; a file that cannot be used is left out with a note, never thrown.
 * Also says which instruction files the workspace's root holds, for `/init`.
 */
export async function loadCustomCommands(where: {
  workspacePath: string | null;
  dataDir: string;
  /** Whether the workspace's own commands are read (not for a folder the person does not trust); true unless said. */
  workspaceCommands?: boolean;
}): Promise<CustomCommandList> {
  const notes: string[] = [];
  const all: CustomCommand[] = [];
  let instructionFiles: string[] | null = null;
  const workspace = where.workspacePath === null ? null : readerOf(where.workspacePath);
  if (where.workspacePath !== null && workspace === null)
    notes.push('The workspace folder could not be opened: its commands are left out.');
  if (workspace) {
    try {
      const rootNames = new Set((await workspace.list('').catch(() => [])).map((entry) => entry.name));
      instructionFiles = instructionFileNames.filter((name) => rootNames.has(name));
      if (where.workspaceCommands !== false)
        for (const folder of workspaceCommandFolders)
          all.push(...(await readFolder({ reader: workspace, folder, source: 'workspace', shown: folder }, notes)));
    } finally {
      workspace.close();
    }
  }
  const data = readerOf(where.dataDir);
  if (data) {
    try {
      const shown = join(where.dataDir, dataCommandFolder);
      all.push(...(await readFolder({ reader: data, folder: dataCommandFolder, source: 'data', shown }, notes)));
    } finally {
      data.close();
    }
  }
  const seen = new Set<string>();
  const commands = all.filter((command) => !seen.has(command.name) && seen.add(command.name));
  return { commands, notes, instructionFiles };
}
