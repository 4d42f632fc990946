/*
 * Finds and reads a workspace's instruction files (AGENTS.md, CLAUDE.md, rule folders and the like), nearest first, for
 * the system prompt.
 */

import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, realpathSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { createHash } from 'node:crypto';
import { dirname, join, parse, resolve } from 'node:path';
import { BoundedMap } from '../../shared/bounded-map';
import { screened, type InstructionFile, type InstructionSet } from '../agent/context/system-prompt';
import type { FolderTrustSource } from '../agent/ports/folder-trust';
import { readAllSync } from './fd-read';
import { losslessText } from './utf8-text';
import { WorkspaceFiles } from './workspace-files';
import type { WorkspaceReader } from './workspace-reader';

/**
 * The files other tools read their project instructions from, in the order they are used within one folder. A
 * workspace may have several: each is used, so instructions written for one tool reach this one too.
 */
export const instructionFileNames = [
  'AGENTS.md',
  'AGENT.md',
  'CLAUDE.md',
  'CLAUDE.local.md',
  'GEMINI.md',
  '.github/copilot-instructions.md',
  'CONVENTIONS.md',
  '.cursorrules',
  '.windsurfrules',
  '.clinerules',
] as const;

/** Folders of rule files (each file in them is an instruction file). */
const ruleFolders = ['.cursor/rules', '.clinerules', '.roo/rules', '.windsurf/rules'] as const;
const ruleFile = /\.(md|mdc|txt)$/i;
/** Names read in subfolders of the workspace: they apply to the files under them. */
const nestedNames = ['AGENTS.md', 'CLAUDE.md'] as const;
/** Folders never searched for nested instructions: dependencies and build output, not the person's project. */
const skippedFolders = new Set(['node_modules', 'vendor', 'dist', 'build', 'out', 'target', '__pycache__', 'venv']);
const nestedDepth = 3;
const maxFoldersSearched = 2_000;
/** The most of one file that is read: larger ones are used from their start, and said to be so. */
export const maxInstructionBytes = 64 * 1024;
/** How long the list of files found is trusted; their contents are checked at every use. */
const discoveryMs = 10_000;

interface Candidate {
  /** As shown: relative to the workspace, or `../AGENTS.md` for a folder above it. */
  readonly path: string;
  /** Relative to the workspace root for files in it; absolute for folders above it. */
  readonly location: { readonly inside: true; readonly relative: string } | { readonly inside: false; readonly absolute: string };
  readonly scope?: string;
}

interface Read {
  readonly key: string;
  readonly file: InstructionFile | null;
  readonly note: string | null;
}

const statKey = (info: Stats): string => `${info.ino}:${info.size}:${info.mtimeMs}`;
const kilobytes = (bytes: number): string => `${Math.round(bytes / 1024)} KB`;

/**
 * Finds and reads a workspace's instruction files, nearest first: the workspace's own; then those of the folders above
 * it up to the root of the repository it is in (never above the home folder); then those of its subfolders, each for the
 * files under it. Files in the workspace are read without following links, as every workspace read is. What is found is
 * trusted for a few seconds; a file is read again only when its size or time changes, so a prompt costs a stat per file.
 */
export class InstructionFiles {
  /**
   * The files found per workspace, for the last 32 workspaces searched. Keyed by exact text, as `reads` is: a folder
   * spelled in another case only misses the cache, it never gets another folder's answer.
   */
  private readonly found = new BoundedMap<string, { at: number; candidates: Candidate[] }>({ max: 32 });
  /** Searches under way, one per workspace: a stale list is used meanwhile. */
  private readonly searching = new Map<string, Promise<Candidate[]>>();
  /** What the last 500 files read held, by absolute path, with the stat it was read at. */
  private readonly reads = new BoundedMap<string, Read>({ max: 500 });

  constructor(private readonly now: () => number = Date.now) {}

  async load(workspacePath: string): Promise<InstructionSet> {
    let root: string;
    try {
      root = realpathSync(workspacePath);
    } catch {
      return { files: [], notes: [] };
    }
    const reader = new WorkspaceFiles(root).reader();
    try {
      const files: InstructionFile[] = [];
      const notes: string[] = [];
      for (const candidate of await this.candidates(root, reader)) {
        const read = this.read(root, candidate, reader);
        if (read.file) files.push(read.file);
        if (read.note) notes.push(read.note);
      }
      return { files, notes };
    } finally {
      reader.close();
    }
  }

  /**
   * The files to read. Searching a large tree takes tens of milliseconds, so a list older than `discoveryMs` is still
   * used while a new search runs in the background (yielding as it goes); only the first search of a workspace is
   * waited for.
   */
  private async candidates(root: string, reader: WorkspaceReader): Promise<Candidate[]> {
    const known = this.found.get(root);
    if (known && this.now() - known.at < discoveryMs) return known.candidates;
    let search = this.searching.get(root);
    if (!search) {
      // A search of its own reader: the caller's is closed when its load ends.
      const own = known ? new WorkspaceFiles(root).reader() : reader;
      search = this.search(root, own).finally(() => {
        this.searching.delete(root);
        if (own !== reader) own.close();
      });
      this.searching.set(root, search);
    }
    if (known) {
      search.catch(() => undefined);
      return known.candidates;
    }
    return search;
  }

  private async search(root: string, reader: WorkspaceReader): Promise<Candidate[]> {
    const candidates = [...(await this.inFolder(reader, '')), ...above(root), ...(await this.nested(reader))];
    this.found.set(root, { at: this.now(), candidates });
    return candidates;
  }

  /** The instruction files directly in a folder of the workspace, in the order of `instructionFileNames`, then rule folders. */
  private async inFolder(reader: WorkspaceReader, folder: string, scope?: string): Promise<Candidate[]> {
    const at = (name: string): string => (folder === '' ? name : `${folder}/${name}`);
    const names = new Set((await entries(reader, folder)).map((entry) => entry.name));
    const out: Candidate[] = [];
    const add = (relative: string): void =>
      void out.push({ path: relative, location: { inside: true, relative }, ...(scope ? { scope } : {}) });
    for (const name of scope ? nestedNames : instructionFileNames) {
      const [first, second] = name.split('/');
      if (!first || !names.has(first)) continue;
      if (second === undefined) add(at(first));
      else if ((await entries(reader, at(first))).some((entry) => entry.name === second && !entry.directory)) add(at(name));
    }
    if (scope) return out;
    for (const rules of ruleFolders) {
      const [first] = rules.split('/');
      if (!first || !names.has(first)) continue;
      for (const entry of (await entries(reader, rules)).sort((a, b) => a.name.localeCompare(b.name)))
        if (!entry.directory && ruleFile.test(entry.name)) add(`${rules}/${entry.name}`);
    }
    return out;
  }

  /** Instruction files of subfolders, shallowest first, for the files under each. */
  private async nested(reader: WorkspaceReader): Promise<Candidate[]> {
    const out: Candidate[] = [];
    let level = [''];
    let searched = 0;
    let slice = performance.now();
    for (let depth = 1; depth <= nestedDepth && level.length > 0; depth += 1) {
      const next: string[] = [];
      for (const folder of level) {
        // The main process answers the window meanwhile: a few milliseconds of listing, then a turn of the event loop.
        if (performance.now() - slice > 4) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          slice = performance.now();
        }
        for (const entry of (await entries(reader, folder)).sort((a, b) => a.name.localeCompare(b.name))) {
          if (!entry.directory || entry.name.startsWith('.') || skippedFolders.has(entry.name)) continue;
          if ((searched += 1) > maxFoldersSearched) return out;
          const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
          out.push(...(await this.inFolder(reader, path, `for files under ${path}/`)));
          next.push(path);
        }
      }
      level = next;
    }
    return out;
  }

  private read(root: string, candidate: Candidate, reader: WorkspaceReader): Read {
    const { location, path } = candidate;
    const absolute = location.inside ? join(root, location.relative) : location.absolute;
    let info: Stats;
    try {
      info = lstatSync(absolute);
    } catch {
      return { key: '', file: null, note: null };
    }
    if (info.isSymbolicLink()) return { key: '', file: null, note: `${path} is a link: instruction files are not read through links.` };
    if (!info.isFile()) return { key: '', file: null, note: null };
    const key = statKey(info);
    const cached = this.reads.get(absolute);
    if (cached && cached.key === key) return cached;
    const read = this.readNow(candidate, absolute, key, reader);
    this.reads.set(absolute, read);
    return read;
  }

  private readNow(candidate: Candidate, absolute: string, key: string, reader: WorkspaceReader): Read {
    const { path } = candidate;
    let data: { bytes: Buffer; size: number } | null;
    try {
      const take = (fd: number, info: Stats): { bytes: Buffer; size: number } => ({
        bytes: readAllSync(fd, maxInstructionBytes),
        size: info.size,
      });
      data = candidate.location.inside ? reader.withPlainFile(candidate.location.relative, take) : readOutside(absolute, take);
    } catch (error) {
      const why = error instanceof Error && 'code' in error ? String(error.code) : 'it could not be read';
      return { key, file: null, note: `${path} was not used: ${why === 'EACCES' ? 'no permission to read it' : why}.` };
    }
    if (!data) return { key, file: null, note: `${path} was not used: it could not be opened as a plain file.` };
    const text = data.bytes.includes(0) ? null : losslessText(trimPartial(data.bytes, data.size));
    if (text === null) return { key, file: null, note: `${path} was not used: it is not text (binary, or not UTF-8).` };
    const file = { path, text, ...(candidate.scope ? { scope: candidate.scope } : {}) };
    if (data.size <= maxInstructionBytes) return { key, file, note: null };
    return { key, file, note: `${path} is ${kilobytes(data.size)}: only its first ${kilobytes(maxInstructionBytes)} were read.` };
  }
}

/** A file's start without the last character when the read cut it in two (the file goes on past it). */
function trimPartial(bytes: Buffer, size: number): Buffer {
  if (size <= bytes.length) return bytes;
  let start = bytes.length - 1;
  while (start > 0 && bytes.length - start < 4 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start -= 1;
  const lead = bytes[start] ?? 0;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return bytes.length - start < length ? bytes.subarray(0, start) : bytes;
}

/** A folder's entries, or none when it is missing or cannot be listed (a link, no permission). */
async function entries(reader: WorkspaceReader, folder: string): Promise<Array<{ name: string; directory: boolean }>> {
  try {
    return await reader.list(folder);
  } catch {
    return [];
  }
}

function readOutside<T>(absolute: string, use: (fd: number, info: Stats) => T): T | null {
  // Never through a link: not the file's name (O_NOFOLLOW), and not a folder on its way (its real path is its path).
  if (realpathSync(absolute) !== absolute) return null;
  const fd = openSync(absolute, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const info = fstatSync(fd);
    return info.isFile() ? use(fd, info) : null;
  } finally {
    closeSync(fd);
  }
}

/**
 * The instruction files of the folders above the workspace, nearest first, up to the root of the repository the
 * workspace is in. A workspace that is a repository of its own, or is in none, has none: folders above it belong to
 * other projects. The home folder and the file system's root are never searched.
 */
function above(root: string): Candidate[] {
  if (existsSync(join(root, '.git'))) return [];
  let home = homedir();
  try {
    home = realpathSync(home);
  } catch {
    // A home folder that cannot be resolved is compared as it is named.
  }
  const folders: string[] = [];
  let repository = false;
  for (
    let folder = dirname(root), depth = 1;
    folder !== parse(folder).root && folder !== home && depth <= 10;
    folder = dirname(folder), depth += 1
  ) {
    folders.push(folder);
    if (existsSync(join(folder, '.git'))) {
      repository = true;
      break;
    }
  }
  if (!repository) return [];
  const out: Candidate[] = [];
  folders.forEach((folder, index) => {
    const up = '../'.repeat(index + 1);
    for (const name of instructionFileNames) {
      const absolute = join(folder, name);
      if (existsSync(absolute)) out.push({ path: `${up}${name}`, location: { inside: false, absolute } });
    }
  });
  return out;
}

/**
 * The instructions of a folder the person does not trust: none given to the model, each file named in a note so the
 * prompt view says what was held back and why.
 */
export function withheldInstructions(set: InstructionSet): InstructionSet {
  if (set.files.length === 0) return set;
  const names = set.files.map((file) => file.path);
  const shown = names.length > 4 ? `${names.slice(0, 4).join(', ')} and ${names.length - 4} more` : names.join(', ');
  return {
    files: [],
    notes: [
      ...set.notes,
      `The project's instruction files (${shown}) were not given to the model: this folder is not trusted (restricted mode). Trust it to use them.`,
    ],
  };
}

/** An instruction file's content, as a release names it: a change to the file holds it back again. */
export const instructionDigest = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Where an instruction file shown as `path` (`AGENTS.md`, `../AGENTS.md`) of a workspace is. */
export function instructionFilePath(workspacePath: string, path: string): string {
  let root = workspacePath;
  try {
    root = realpathSync(workspacePath);
  } catch {
    // A folder gone: the path as given.
  }
  return resolve(root, path);
}

/**
 * Marks the files the person let the model have as they are now, though they carry the signs of a prompt injection;
 * the others stay as they were, for the prompt's screening to hold back.
 */
export function withReleases(set: InstructionSet, workspacePath: string, trust: Pick<FolderTrustSource, 'isReleased'>): InstructionSet {
  const files = set.files.map((file) =>
    screened(file.text).length > 0 && trust.isReleased(instructionFilePath(workspacePath, file.path), instructionDigest(file.text))
      ? { ...file, released: true }
      : file,
  );
  return { ...set, files };
}
