/*
 * Searches the workspace's files for a pattern, with ripgrep when it is installed (each match confirmed inside the
 * workspace), else with a built-in search.
 */

import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { looksBinary, walk, type FolderReader } from '../workspace/file-walk';
import { WorkerLineMatcher } from './worker-line-matcher';

/** Reads the workspace without following links (`WorkspaceReader`). */
export interface SearchReader extends FolderReader {
  /** A plain file's bytes (at most `maxBytes`), or null when it is missing, a link or not a plain file. */
  readFile(relative: string, maxBytes?: number): Promise<Buffer | null>;
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
  /** How long the built-in search's pattern may run on one batch of files before it is stopped as too slow. */
  readonly matchDeadlineMs?: number;
  /** `start` names one file rather than a folder. */
  readonly startIsFile?: boolean;
  /**
   * When given, the built-in search reads through it, and a ripgrep match is kept only if the file
   * read through it holds that very line at that line number (see `confirmedInFile`), so a folder
   * swapped for a link while ripgrep walks cannot bring outside text back.
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

/** One line ripgrep printed: its file (root-relative), line number and text as printed. */
interface RipgrepLine {
  readonly path: string;
  readonly number: number;
  readonly text: string;
}

/** What ripgrep prints in place of the rest of a line longer than `--max-columns` (with `--max-columns-preview`). */
const omittedMark = ' [... omitted end of long line]';
/** How much of a matched file is read again to confirm its lines; matches past it are dropped. */
const maxConfirmBytes = 64 * 1024 * 1024;

/** Whether the line ripgrep printed is the line that was read (or, for a preview of a long line, its start). */
function sameLine(read: string | undefined, printed: string): boolean {
  if (read === undefined) return false;
  if (read === printed) return true;
  if (!printed.endsWith(omittedMark)) return false;
  // The preview is cut at a byte count, which may split a character (decoded as U+FFFD).
  const preview = printed.slice(0, -omittedMark.length).replace(/\uFFFD$/, '');
  return read.length > preview.length && read.startsWith(preview);
}

/**
 * Keeps the lines ripgrep printed that are really at that line in the file as `reader` reads it
 * now. ripgrep walks by path, so a folder swapped for a link while it runs can make it read a file
 * outside; a check of the path afterwards cannot tell what it read, but the content can: a line
 * only stays when the same text is inside the workspace at that place.
 */
async function confirmedInFile(reader: SearchReader, path: string, lines: RipgrepLine[]): Promise<RipgrepLine[]> {
  const data = await reader.readFile(path, maxConfirmBytes);
  if (data === null) return [];
  const kept: RipgrepLine[] = [];
  lines.sort((a, b) => a.number - b.number);
  // Walks the bytes line by line and decodes only the lines asked about; ripgrep leaves out a UTF-8 byte order mark.
  let number = 1;
  let start = data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf ? 3 : 0;
  for (const line of lines) {
    while (number < line.number && start <= data.length) {
      const end = data.indexOf(0x0a, start);
      start = end === -1 ? data.length + 1 : end + 1;
      number += 1;
    }
    if (start > data.length) break;
    const end = data.indexOf(0x0a, start);
    if (sameLine(data.toString('utf8', start, end === -1 ? data.length : end), line.text)) kept.push(line);
  }
  return kept;
}

/** Searches with ripgrep: it honours .gitignore itself and skips binary files. */
export function searchWithRipgrep(ripgrep: string, options: SearchOptions): Promise<SearchResult> {
  const args = [
    '--line-number',
    '--no-heading',
    '--color',
    'never',
    '--with-filename',
    // The file name ends at a NUL, so names with ':' or a newline in them are split right.
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
    let printed = 0;
    const kept: RipgrepLine[] = [];
    // ripgrep prints each file's lines together, so a file is confirmed as soon as the next one starts, while ripgrep goes on.
    let group: RipgrepLine[] = [];
    let confirming = Promise.resolve();
    const confirmGroup = (): void => {
      const lines = group;
      group = [];
      const reader = options.reader;
      if (lines.length === 0) return;
      if (!reader) kept.push(...lines);
      else confirming = confirming.then(async () => void kept.push(...(await confirmedInFile(reader, lines[0]?.path ?? '', lines))));
    };
    let buffer = '';
    let stderr = '';
    let truncated = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      // Each line is "path NUL number:text\n". The path may hold a newline, the text never does, so the path ends at the
      // first NUL and the text at the next newline after it.
      let from = 0;
      for (;;) {
        const cut = buffer.indexOf('\0', from);
        const end = cut === -1 ? -1 : buffer.indexOf('\n', cut + 1);
        if (end === -1) break;
        const record = { path: buffer.slice(from, cut), rest: buffer.slice(cut + 1, end) };
        from = end + 1;
        if (printed >= options.maxResults) {
          truncated = true;
          child.kill();
          break;
        }
        const colon = record.rest.indexOf(':');
        const number = Number(record.rest.slice(0, colon));
        if (colon === -1 || !Number.isSafeInteger(number) || number < 1) continue;
        const path = record.path.replace(/^\.\//, '');
        if (group[0] !== undefined && group[0].path !== path) confirmGroup();
        group.push({ path, number, text: record.rest.slice(colon + 1) });
        printed += 1;
      }
      buffer = truncated ? '' : buffer.slice(from);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      // 0: matches, 1: none; a kill after enough results is fine too.
      if (code !== 0 && code !== 1 && !truncated) {
        reject(new Error(stderr.trim() || `ripgrep exited with ${code}`));
        return;
      }
      confirmGroup();
      confirming.then(() => {
        const matches = kept.map((line) => clip(`${line.path}:${line.number}:${line.text}`));
        resolve({ matches: matches.sort(), truncated, engine: 'ripgrep' });
      }, reject);
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

const defaultMatchDeadlineMs = 10_000;
/** Files are sent to the matcher in batches of about this many characters or files. */
const batchChars = 4 * 1024 * 1024;
const batchFiles = 500;

/**
 * The same search in JavaScript, for machines without ripgrep. Files are read here (through the
 * reader) and their lines matched in a worker thread, since a pattern like `(a+)+$` can backtrack
 * for minutes on one line: past the deadline the worker is ended and the search refused with
 * `PatternTooSlowError`, and a Stop ends it at once.
 */
export async function searchBuiltin(options: SearchOptions): Promise<SearchResult> {
  try {
    // Checked here for the message; the lines are matched in a worker (see `WorkerLineMatcher`).
    new RegExp(options.pattern, options.caseSensitive ? 'u' : 'iu');
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
  const flags = options.caseSensitive ? 'u' : 'iu';
  const matcher = new WorkerLineMatcher(options.pattern, flags, options.matchDeadlineMs ?? defaultMatchDeadlineMs);
  let batch: Array<{ path: string; text: string }> = [];
  let batchLength = 0;
  // Answers true when enough matches were found (one more than asked, to know the search was cut short).
  const matchBatch = async (): Promise<boolean> => {
    const found = batch.length === 0 ? [] : await matcher.match(batch, options.maxResults + 1 - matches.length, options.signal);
    batch = [];
    batchLength = 0;
    for (const [path, line, text] of found ?? []) matches.push(clip(`${path}:${line}:${text}`));
    return matches.length > options.maxResults;
  };
  try {
    for (const entry of entries) {
      if (entry.directory || options.signal.aborted) continue;
      if (matchGlob && !matchGlob(entry.path)) continue;
      let text: string | null;
      try {
        text = await readText(options, entry.path);
      } catch {
        // Unreadable files are skipped, as ripgrep does.
        continue;
      }
      if (text === null) continue;
      batch.push({ path: entry.path, text });
      batchLength += text.length;
      if ((batchLength >= batchChars || batch.length >= batchFiles) && (await matchBatch())) break;
    }
    if (matches.length <= options.maxResults) await matchBatch();
  } finally {
    matcher.dispose();
  }
  const truncated = matches.length > options.maxResults;
  return { matches: matches.slice(0, options.maxResults).sort(), truncated, engine: 'builtin' };
}
