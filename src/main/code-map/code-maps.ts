/*
 * The code index of each workspace the agent works in: made on first use, cached on disk in the app's data folder (sealed
 * where the database is encrypted).
 */

import { createHash } from 'node:crypto';
import { closeSync, openSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BoundedMap } from '../../shared/bounded-map';
import { readAllSync } from '../workspace/fd-read';
import type { WorkspaceFiles } from '../workspace/workspace-files';
import { pathKey } from '../workspace/path-case';
import { CodeIndex } from './code-index';
import { Tagger } from './tagger';
import type { TagSource } from './worker-tagger';
import type { AtRestSeal } from '../secrets/at-rest-seal';

/** Workspaces whose index is kept in memory at once; one used longer ago is read from its cache again. */
const maxOpenIndexes = 8;

export interface CodeMapsOptions {
  /** The app's data folder: each workspace's index is cached under `code-map/` there. Null keeps them in memory. */
  readonly dataDir: string | null;
  /** The workspace files of a folder: how the index reads it, following no link. */
  readonly filesOf: (workspacePath: string) => WorkspaceFiles;
  /** What tags the files: the tagging thread in the app; the main thread's own tagger when absent. */
  readonly tagger?: TagSource;
  /** Hears how far each workspace's index is (by the real path of its root) as it is brought up to date. */
  readonly onProgress?: (root: string, done: number, total: number) => void;
  /** Seals the cached indexes at rest (where the database is encrypted); without one they are kept as JSON. */
  readonly seal?: AtRestSeal | null;
  /** Whether the file system holding a folder ignores letter case; asked of the disk when absent. */
  readonly caseIgnored?: (path: string) => boolean;
}

/** The code indexes of the workspaces in use, one per workspace root, sharing one tagger (its grammars load once). */
export class CodeMaps {
  private readonly tagger: TagSource;
  private readonly indexes = new BoundedMap<string, CodeIndex>({ max: maxOpenIndexes, refreshOnRead: true });

  constructor(private readonly options: CodeMapsOptions) {
    this.tagger = options.tagger ?? new Tagger();
    if (options.seal && options.dataDir !== null) removePlainCaches(join(options.dataDir, 'code-map'), options.seal);
  }

  /** The index of a workspace (by the real path of its root). */
  of(workspacePath: string): CodeIndex {
    const files = this.options.filesOf(workspacePath);
    const root = files.reader();
    const realRoot = root.root;
    root.close();
    // By the file system's case rules: whether realpath gives a folder's names as stored or as asked differs by system.
    const key = pathKey(realRoot, this.options.caseIgnored?.(realRoot));
    let index = this.indexes.get(key);
    if (!index) {
      const { dataDir } = this.options;
      index = new CodeIndex({
        root: realRoot,
        // Read from the root as it was found: a workspace path that is a link pointed elsewhere later is refused, never
        // read into this index.
        reader: () => this.options.filesOf(realRoot).reader(),
        tagger: this.tagger,
        ...(this.options.onProgress
          ? { onProgress: (done: number, total: number) => this.options.onProgress?.(realRoot, done, total) }
          : {}),
        seal: this.options.seal ?? null,
        cacheFile: dataDir === null ? null : join(dataDir, 'code-map', `${this.cacheName(realRoot)}.json`),
      });
      this.indexes.set(key, index);
    }
    return index;
  }

  /** The cache's name for a workspace root: sealed, one that does not tell the root without the key. */
  private cacheName(realRoot: string): string {
    const { seal } = this.options;
    return seal ? seal.nameOf(realRoot) : createHash('sha256').update(realRoot).digest('hex').slice(0, 24);
  }
}

/**
 * Removes the caches kept plain in `folder` (before the database was encrypted): with a seal none of them is read, and
 * none is left readable beside an encrypted database.
 */
function removePlainCaches(folder: string, seal: AtRestSeal): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const file = join(folder, name);
    try {
      const fd = openSync(file, 'r');
      let head: Buffer;
      try {
        head = readAllSync(fd, 16);
      } finally {
        closeSync(fd);
      }
      if (!seal.isSealed(head)) rmSync(file, { force: true });
    } catch (error) {
      console.error(`The plain code map cache ${file} could not be removed:`, error);
    }
  }
}
