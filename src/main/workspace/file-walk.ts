/*
 * Walks a folder breadth first, honouring every .gitignore and following no link; and tells whether a file looks
 * binary.
 */

import { open, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

export interface WalkOptions {
  /** Absolute folder to walk. */
  readonly start: string;
  /** The workspace root: .gitignore files from here down apply. */
  readonly root: string;
  readonly includeIgnored?: boolean;
  readonly maxEntries: number;
  /** Levels below `start` to enter; 0 lists `start` only. Unlimited by default. */
  readonly maxDepth?: number;
  readonly signal?: AbortSignal;
  /** How folders and .gitignore files are read; by path under `root` when absent. */
  readonly reader?: FolderReader;
}

/** How a walk reads the tree; paths are relative to the workspace root, '' being the root. */
export interface FolderReader {
  /** The names in a folder, each with whether it is a folder (a link is not). Throws when it cannot be read. */
  list(relative: string): Promise<Array<{ name: string; directory: boolean }>>;
  /** A text file, or null when there is none to read. */
  readText(relative: string): Promise<string | null>;
}

/** Reads by path: what the walk did before readers existed, and what callers without a workspace guard use. */
function pathReader(root: string): FolderReader {
  return {
    list: async (relative) =>
      (await readdir(join(root, relative), { withFileTypes: true })).map((entry) => ({ name: entry.name, directory: entry.isDirectory() })),
    readText: async (relative) => {
      try {
        return await readFile(join(root, relative), 'utf8');
      } catch {
        return null;
      }
    },
  };
}

export interface WalkEntry {
  /** Relative to the workspace root, `/` separated; folders end with `/`. */
  readonly path: string;
  readonly directory: boolean;
}

interface Frame {
  readonly relative: string;
  readonly depth: number;
  readonly rules: ReadonlyArray<{ base: string; matcher: Ignore }>;
}

async function rulesIn(reader: FolderReader, relative: string): Promise<Ignore | null> {
  const text = await reader.readText(relative === '' ? '.gitignore' : `${relative}/.gitignore`);
  return text === null ? null : ignore().add(text);
}

function ignored(rules: Frame['rules'], relativePath: string, directory: boolean): boolean {
  let result = false;
  for (const { base, matcher } of rules) {
    const local = base === '' ? relativePath : relativePath.slice(base.length + 1);
    if (local.length === 0) continue;
    const test = matcher.test(directory ? `${local}/` : local);
    if (test.ignored) result = true;
    if (test.unignored) result = false;
  }
  return result;
}

/**
 * Walks a folder breadth first, in name order, honouring every .gitignore on the way (as git
 * does) and never entering .git. Links are listed but not followed, so a walk cannot leave the
 * workspace or loop. Stops at `maxEntries` and says so.
 */
export async function walk(options: WalkOptions): Promise<{ entries: WalkEntry[]; truncated: boolean }> {
  const entries: WalkEntry[] = [];
  const startRelative =
    options.start === options.root
      ? ''
      : options.start
          .slice(options.root.length + 1)
          .split('\\')
          .join('/');
  const reader = options.reader ?? pathReader(options.root);
  const rootRules = await rulesIn(reader, '');
  const queue: Frame[] = [{ relative: startRelative, depth: 0, rules: rootRules ? [{ base: '', matcher: rootRules }] : [] }];
  while (queue.length > 0) {
    if (options.signal?.aborted) break;
    const frame = queue.shift() as Frame;
    let rules = frame.rules;
    if (frame.relative !== '' && !options.includeIgnored) {
      const local = await rulesIn(reader, frame.relative);
      if (local) rules = [...rules, { base: frame.relative, matcher: local }];
    }
    let children;
    try {
      children = await reader.list(frame.relative);
    } catch {
      continue;
    }
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      if (child.name === '.git') continue;
      const relativePath = frame.relative === '' ? child.name : `${frame.relative}/${child.name}`;
      const directory = child.directory;
      if (!options.includeIgnored && ignored(rules, relativePath, directory)) continue;
      if (entries.length >= options.maxEntries) return { entries, truncated: true };
      entries.push({ path: directory ? `${relativePath}/` : relativePath, directory });
      if (directory && frame.depth < (options.maxDepth ?? Number.POSITIVE_INFINITY))
        queue.push({ relative: relativePath, depth: frame.depth + 1, rules });
    }
  }
  return { entries, truncated: false };
}

/** Whether a file looks binary: a NUL byte in its first 8 KB, as git and ripgrep judge. */
export async function looksBinary(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const sample = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(sample, 0, sample.length, 0);
    return sample.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}
