import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { looksBinary, walk } from '../workspace/file-walk';

export interface SearchOptions {
  readonly root: string;
  /** Absolute folder or file to search in. */
  readonly start: string;
  readonly pattern: string;
  readonly glob?: string;
  readonly caseSensitive: boolean;
  readonly maxResults: number;
  readonly signal: AbortSignal;
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
        matches.push(clip(line.replace(/^\.\//, '')));
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

/** The same search in JavaScript, for machines without ripgrep. */
export async function searchBuiltin(options: SearchOptions): Promise<SearchResult> {
  let regex: RegExp;
  try {
    regex = new RegExp(options.pattern, options.caseSensitive ? 'u' : 'iu');
  } catch (error) {
    throw new Error(`The pattern is not a valid regular expression: ${(error as Error).message}`, { cause: error });
  }
  const matchGlob = options.glob ? picomatch(options.glob, { dot: true, basename: !options.glob.includes('/') }) : null;
  const { entries } = await walk({ start: options.start, root: options.root, maxEntries: 200_000, signal: options.signal });
  const matches: string[] = [];
  for (const entry of entries) {
    if (entry.directory || options.signal.aborted) continue;
    if (matchGlob && !matchGlob(entry.path)) continue;
    const absolute = join(options.root, entry.path);
    try {
      if (await looksBinary(absolute)) continue;
      const lines = (await readFile(absolute, 'utf8')).split('\n');
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
