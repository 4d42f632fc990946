import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { looksBinary, walk, type FolderReader } from '../workspace/file-walk';

/** Reads the workspace without following links (`WorkspaceReader`). */
export interface SearchReader extends FolderReader {
  /** A plain file's bytes, or null when it is missing, a link or not a plain file. */
  readFile(relative: string): Promise<Buffer | null>;
  /** Whether a plain file (not a link) is at this path now. */
  isPlainFile(relative: string): boolean;
}

export interface SearchOptions {
  readonly root: string;
  /** Absolute folder or file to search in. */
  readonly start: string;
  readonly pattern: string;
  readonly glob?: string;
  readonly caseSensitive: boolean;
  readonly maxResults: number;
  readonly signal: AbortSignal;
  /** `start` names one file rather than a folder. */
  readonly startIsFile?: boolean;
  /**
   * When given, the built-in search reads through it, and a ripgrep match is kept only if its file
   * is a plain file reachable without links when the match arrives, so a folder swapped for a link
   * while ripgrep walks cannot bring outside text back.
   */
  readonly reader?: SearchReader;
}

export interface SearchResult {
  readonly matches: string[];
  readonly truncated: boolean;
  readonly engine: 'ripgrep' | 'builtin';
}

/** The path of ripgrep, or null when it is not installed. */
export function findRipgrep(): string | null {
  const result = spawnSync('rg', ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? 'rg' : null;
}

const maxLineLength = 400;
const clip = (line: string): string => (line.length > maxLineLength ? `${line.slice(0, maxLineLength)}…` : line);

/** Searches with ripgrep: it honours .gitignore itself and skips binary files. */
export function searchWithRipgrep(ripgrep: string, options: SearchOptions): Promise<SearchResult> {
  const args = [
    '--line-number',
    '--no-heading',
    '--color',
    'never',
    '--with-filename',
    // The file name ends at a NUL, so names with ':' in them are split right.
    '--null',
    '--max-columns',
    String(maxLineLength),
    '--max-columns-preview',
    '--regexp',
    options.pattern,
  ];
  if (!options.caseSensitive) args.push('--ignore-case');
  if (options.glob) args.push('--glob', options.glob);
  args.push('--', options.start === options.root ? '.' : options.start.slice(options.root.length + 1));
  return new Promise((resolve, reject) => {
    const child = spawn(ripgrep, args, { cwd: options.root, signal: options.signal, stdio: ['ignore', 'pipe', 'pipe'] });
    const matches: string[] = [];
    let buffer = '';
    let stderr = '';
    let truncated = false;
    const checked = new Map<string, boolean>();
    const plainFile = (path: string): boolean => {
      let known = checked.get(path);
      if (known === undefined) checked.set(path, (known = options.reader?.isPlainFile(path) ?? true));
      return known;
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (matches.length >= options.maxResults) {
          truncated = true;
          child.kill();
          return;
        }
        const cut = line.indexOf('\0');
        const path = line.slice(0, cut).replace(/^\.\//, '');
        if (cut === -1 || (options.reader && !plainFile(path))) continue;
        matches.push(clip(`${path}:${line.slice(cut + 1)}`));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      // 0: matches, 1: none; a kill after enough results is fine too.
      if (code === 0 || code === 1 || truncated) resolve({ matches: matches.sort(), truncated, engine: 'ripgrep' });
      else reject(new Error(stderr.trim() || `ripgrep exited with ${code}`));
    });
  });
}

/** A file's text for the built-in search, or null when it is binary or cannot be read as a plain file. */
async function readText(options: SearchOptions, relative: string): Promise<string | null> {
  if (options.reader) {
    const data = await options.reader.readFile(relative);
    return data === null || data.subarray(0, 8192).includes(0) ? null : data.toString('utf8');
  }
  const absolute = join(options.root, relative);
  return (await looksBinary(absolute)) ? null : readFile(absolute, 'utf8');
}

/** The same search in JavaScript, for machines without ripgrep. */
export async function searchBuiltin(options: SearchOptions): Promise<SearchResult> {
  let regex: RegExp;
  try {
    regex = new RegExp(options.pattern, options.caseSensitive ? 'u' : 'iu');
  } catch (error) {
    throw new Error(`The pattern is not a valid regular expression: ${(error as Error).message}`, { cause: error });
  }
  const matchGlob = options.glob ? picomatch(options.glob, { dot: true, basename: !options.glob.includes('/') }) : null;
  const entries = options.startIsFile
    ? [
        {
          path: options.start
            .slice(options.root.length + 1)
            .split('\\')
            .join('/'),
          directory: false,
        },
      ]
    : (
        await walk({
          start: options.start,
          root: options.root,
          maxEntries: 200_000,
          signal: options.signal,
          ...(options.reader ? { reader: options.reader } : {}),
        })
      ).entries;
  const matches: string[] = [];
  for (const entry of entries) {
    if (entry.directory || options.signal.aborted) continue;
    if (matchGlob && !matchGlob(entry.path)) continue;
    try {
      const text = await readText(options, entry.path);
      if (text === null) continue;
      const lines = text.split('\n');
      for (let index = 0; index < lines.length; index += 1) {
        if (regex.test(lines[index] ?? '')) {
          if (matches.length >= options.maxResults) return { matches: matches.sort(), truncated: true, engine: 'builtin' };
          matches.push(clip(`${entry.path}:${index + 1}:${lines[index] ?? ''}`));
        }
      }
    } catch {
      // Unreadable files are skipped, as ripgrep does.
    }
  }
  return { matches: matches.sort(), truncated: false, engine: 'builtin' };
}
