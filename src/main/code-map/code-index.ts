/*
 * A workspace's definitions and references, file by file, kept current by reading again only the files that changed,
 * and cached on disk between runs of the app.
 */

import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { z } from 'zod';
import { CancelledError, WorkbenchError } from '../../shared/errors';
import { readAllSync } from '../workspace/fd-read';
import { walk } from '../workspace/file-walk';
import type { WorkspaceReader } from '../workspace/workspace-reader';
import { codeLanguages, languageOf, type DefinitionType } from './languages';
import { CodeGraph } from './map-rank';
import { GrammarError, maxTaggedBytes, type IndexedFile, type Tag } from './tagger';
import type { TagSource } from './worker-tagger';
import type { AtRestSeal } from '../secrets/at-rest-seal';

export type { IndexedFile } from './tagger';

/** A tag with the file it is in. */
export interface PlacedTag extends Tag {
  readonly path: string;
}

/** What a refresh did: files read again, files kept as they were, files gone, and what could not be read. */
export interface IndexRefresh {
  readonly read: number;
  readonly kept: number;
  readonly removed: number;
  readonly files: number;
  /** More files than the index holds: the rest, in walk order, are left out. */
  readonly truncated: boolean;
  readonly notes: readonly string[];
}

export interface CodeIndexOptions {
  /** The workspace root, a real path. */
  readonly root: string;
  /** A reader of the workspace that follows no link; a new one for each refresh, closed after it. */
  readonly reader: () => WorkspaceReader;
  readonly tagger: TagSource;
  /** Where the index is kept between runs; null keeps it in memory only. */
  readonly cacheFile: string | null;
  /** Seals the kept index at rest (where the database is encrypted); without one it is kept as JSON. */
  readonly seal?: AtRestSeal | null;
  /** The most files indexed. */
  readonly maxFiles?: number;
  /** Hears how far every refresh is: files looked at, of those found. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** The cache file's shape; one of another version is read as empty. */
const cacheVersion = 1;
const tagSchema = z.object({
  name: z.string(),
  defines: z.enum(['function', 'method', 'class', 'interface', 'type', 'module', 'constant']).optional(),
  line: z.number().int().positive(),
  endLine: z.number().int().positive(),
  text: z.string(),
});
const cacheSchema = z.object({
  version: z.literal(cacheVersion),
  /** The queries and grammars the tags were read with: tags read with others are read again. */
  grammars: z.string(),
  root: z.string(),
  files: z.record(
    z.string(),
    z.object({
      size: z.number().int().nonnegative(),
      mtimeMs: z.number(),
      ctimeMs: z.number(),
      ino: z.number(),
      language: z.string(),
      tags: z.array(tagSchema),
      parseErrors: z.boolean(),
    }),
  ),
});

const defaultMaxFiles = 20_000;

/** What the tags depend on besides the files: the queries, and the grammars' package. */
let grammars: string | null = null;
function grammarsKey(): string {
  if (grammars === null) {
    const require = createRequire(import.meta.url);
    const version = (require('@vscode/tree-sitter-wasm/package.json') as { version?: string }).version ?? '';
    grammars = createHash('sha256')
      .update(`${version}\u0000${JSON.stringify(codeLanguages)}`)
      .digest('hex')
      .slice(0, 32);
  }
  return grammars;
}

/** Waits for `promise`, or rejects with `CancelledError` as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new CancelledError());
  return new Promise<T>((resolve, reject) => {
    const stop = (): void => reject(new CancelledError());
    signal.addEventListener('abort', stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}
/** Files tagged between two yields to the event loop, so a first index of a large tree does not hold the app up. */
const filesPerSlice = 25;

/**
 * The definitions and references of a workspace's source files (ignored, binary and huge files left out). A refresh
 * walks the tree and reads again only the files whose size or change time differ from what the index holds, so an
 * unchanged file is never read twice; `update` reads named files at once (after an edit). The index is written to its
 * cache file after a refresh that changed it, and read from there the first time.
 */
export class CodeIndex {
  private readonly files = new Map<string, IndexedFile>();
  /** The graph of the files as they are now, made when first asked for after a change. */
  private graphNow: CodeGraph | null = null;
  private cacheRead = false;
  /** Whether the index has held the whole workspace once (a walk to its end, or a cache of one), if not every change since. */
  private wholeOnce = false;
  private refreshing: Promise<IndexRefresh> | null = null;
  private readonly listeners = new Set<(done: number, total: number) => void>();

  constructor(private readonly options: CodeIndexOptions) {}

  /** The workspace root, a real path: the index's paths are relative to it. */
  get root(): string {
    return this.options.root;
  }

  /**
   * Whether the index has held the whole workspace at some point: a walk ran to its end, or its cache was read. What it
   * holds may lag behind the files while a refresh runs, but it is no first index's part.
   */
  get whole(): boolean {
    return this.wholeOnce;
  }

  /** How many files the index holds. */
  get size(): number {
    return this.files.size;
  }

  /**
   * Brings the index up to the files on disk. Refreshes asked for while one runs share it. `onProgress` hears how many
   * of the files found have been looked at.
   */
  async refresh(signal?: AbortSignal, onProgress?: (done: number, total: number) => void): Promise<IndexRefresh> {
    if (onProgress) this.listeners.add(onProgress);
    try {
      // One walk for every caller, run to its end whoever stops waiting: a caller's Stop ends its own wait only.
      this.refreshing ??= this.walkAndRead().finally(() => (this.refreshing = null));
      return await untilAborted(this.refreshing, signal);
    } finally {
      if (onProgress) this.listeners.delete(onProgress);
    }
  }

  /** Reads named files again now (root-relative paths), whatever their size and times say. */
  async update(paths: readonly string[]): Promise<void> {
    this.readCache();
    const reader = this.options.reader();
    try {
      for (const path of paths) {
        if (languageOf(path) === null) continue;
        const outcome = await this.readOne(reader, path, true);
        if (outcome === 'gone') this.forget(path);
      }
    } finally {
      reader.close();
    }
  }

  /** A file's definitions, in order; null when the index does not hold the file. */
  outline(path: string): PlacedTag[] | null {
    const file = this.files.get(path);
    if (!file) return null;
    return file.tags.filter((tag) => tag.defines !== undefined).map((tag) => ({ ...tag, path }));
  }

  /** Whether the index read a file with syntax errors (its tags are those it could read). */
  hasParseErrors(path: string): boolean {
    return this.files.get(path)?.parseErrors === true;
  }

  /** Where a name is defined, optionally of one type: exact matches, or, when none, matches in any letter case. */
  definitions(name: string, type?: DefinitionType): PlacedTag[] {
    return this.find((tag) => tag.defines !== undefined && (type === undefined || tag.defines === type), name);
  }

  /** Where a name is used (called, constructed, named as a type): exact matches, or, when none, in any letter case. */
  references(name: string): PlacedTag[] {
    return this.find((tag) => tag.defines === undefined, name);
  }

  /** Defined names like `name` (containing it, in any letter case), for a name that is not defined: at most `limit`. */
  similarNames(name: string, limit: number): string[] {
    const wanted = name.toLowerCase();
    const names = new Set<string>();
    for (const file of this.files.values())
      for (const tag of file.tags) {
        if (tag.defines === undefined || !tag.name.toLowerCase().includes(wanted)) continue;
        names.add(tag.name);
        if (names.size >= limit) return [...names];
      }
    return [...names];
  }

  /** The files as a graph for ranking the map, made again only after the index changed. */
  graph(): CodeGraph {
    this.graphNow ??= new CodeGraph(this.entries());
    return this.graphNow;
  }

  /** Every file the index holds, with its tags, in path order. */
  entries(): Array<[string, IndexedFile]> {
    return [...this.files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  private forget(path: string): void {
    if (this.files.delete(path)) this.graphNow = null;
  }

  private find(kind: (tag: Tag) => boolean, name: string): PlacedTag[] {
    const exact: PlacedTag[] = [];
    const loose: PlacedTag[] = [];
    const lower = name.toLowerCase();
    for (const [path, file] of this.entries())
      for (const tag of file.tags) {
        if (!kind(tag)) continue;
        if (tag.name === name) exact.push({ ...tag, path });
        else if (exact.length === 0 && tag.name.toLowerCase() === lower) loose.push({ ...tag, path });
      }
    return exact.length > 0 ? exact : loose;
  }

  private async walkAndRead(): Promise<IndexRefresh> {
    const onProgress = (done: number, total: number): void => {
      this.options.onProgress?.(done, total);
      for (const listener of this.listeners) listener(done, total);
    };
    this.readCache();
    const { root } = this.options;
    const maxFiles = this.options.maxFiles ?? defaultMaxFiles;
    const reader = this.options.reader();
    const notes = new Set<string>();
    let read = 0;
    let kept = 0;
    let removed = 0;
    let truncated: boolean;
    try {
      if (reader.root !== root) throw new WorkbenchError('invalid_state', `The workspace folder is no longer ${root}.`);
      const walked = await walk({ start: root, root, maxEntries: maxFiles * 4, reader });
      const paths = walked.entries.filter((entry) => !entry.directory && languageOf(entry.path) !== null).map((entry) => entry.path);
      truncated = walked.truncated || paths.length > maxFiles;
      const wanted = paths.slice(0, maxFiles);
      for (let index = 0; index < wanted.length; index += 1) {
        const path = wanted[index] ?? '';
        try {
          const outcome = await this.readOne(reader, path, false);
          if (outcome === 'read') read += 1;
          else if (outcome === 'kept') kept += 1;
          else if (outcome === 'gone') this.forget(path);
        } catch (error) {
          if (!(error instanceof GrammarError)) throw error;
          notes.add(error.message);
        }
        if ((index + 1) % filesPerSlice === 0) {
          onProgress(index + 1, wanted.length);
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      const present = new Set(wanted);
      for (const path of [...this.files.keys()])
        if (!present.has(path)) {
          this.forget(path);
          removed += 1;
        }
    } finally {
      reader.close();
      // Said at the end whatever happened, so nothing waits on a refresh that failed.
      onProgress(1, 1);
    }
    if (read > 0 || removed > 0) this.writeCache(notes);
    this.wholeOnce = true;
    return { read, kept, removed, files: this.files.size, truncated, notes: [...notes] };
  }

  /**
   * Reads one file when it changed since the index read it (or always, with `force`): tagged, kept as it was, or gone
   * (missing, a link, not a plain file, binary, or too large to map).
   */
  private async readOne(reader: WorkspaceReader, path: string, force: boolean): Promise<'read' | 'kept' | 'gone'> {
    const known = this.files.get(path);
    const looked = reader.withPlainFile(path, (fd, info) => {
      // A file written again in place changes its size or times; one replaced (written beside, then renamed) its inode.
      const same =
        known !== undefined &&
        known.size === info.size &&
        known.mtimeMs === info.mtimeMs &&
        known.ctimeMs === info.ctimeMs &&
        known.ino === info.ino;
      if (!force && same) return { kept: true as const };
      if (info.size > maxTaggedBytes) return null;
      const bytes = readAllSync(fd, maxTaggedBytes);
      if (bytes.subarray(0, 8192).includes(0)) return null;
      return {
        kept: false as const,
        text: bytes.toString('utf8'),
        size: info.size,
        mtimeMs: info.mtimeMs,
        ctimeMs: info.ctimeMs,
        ino: info.ino,
      };
    });
    if (looked === null) return 'gone';
    if (looked.kept) return 'kept';
    const tagged = await this.options.tagger.tag(path, looked.text);
    if (!tagged) return 'gone';
    this.graphNow = null;
    this.files.set(path, {
      size: looked.size,
      mtimeMs: looked.mtimeMs,
      ctimeMs: looked.ctimeMs,
      ino: looked.ino,
      language: tagged.language,
      tags: tagged.tags,
      parseErrors: tagged.parseErrors,
    });
    return 'read';
  }

  private readCache(): void {
    if (this.cacheRead) return;
    this.cacheRead = true;
    const { cacheFile, root, seal } = this.options;
    if (!cacheFile) return;
    let raw: unknown;
    try {
      const bytes = readFileSync(cacheFile);
      // With a seal only a sealed cache that opens is read (one written plain, or changed, is none); without one, only
      // a plain one.
      raw = JSON.parse((seal ? seal.open(bytes) : bytes).toString('utf8'));
    } catch {
      return;
    }
    // A cache of another version, another folder or a damaged one is read as empty: the walk reads every file again.
    const parsed = cacheSchema.safeParse(raw);
    if (!parsed.success || parsed.data.root !== root || parsed.data.grammars !== grammarsKey()) return;
    for (const [path, file] of Object.entries(parsed.data.files)) this.files.set(path, file);
    this.graphNow = null;
    this.wholeOnce = true;
  }

  /** Writes the cache whole to a file beside it, then moves it in place: a stop of the app leaves the old one or the new. */
  private writeCache(notes: Set<string>): void {
    const { cacheFile, root, seal } = this.options;
    if (!cacheFile) return;
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    try {
      mkdirSync(dirname(cacheFile), { recursive: true });
      const fd = openSync(temporary, 'w', 0o600);
      try {
        const json = Buffer.from(
          JSON.stringify({ version: cacheVersion, grammars: grammarsKey(), root, files: Object.fromEntries(this.files) }),
        );
        writeSync(fd, seal ? seal.seal(json) : json);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, cacheFile);
    } catch (error) {
      rmSync(temporary, { force: true });
      notes.add(`The code map could not be saved for the next start: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
