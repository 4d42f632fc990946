/*
 * The `@path` and `@path#L10-20` references in the message box: finding the one being typed, completing it, and
 * reading them all when the message is sent.
 *
 * Main reads and checks every path again; what is refused here is only what cannot be a file of the workspace at all.
 */

import type { LineRange } from '../../../shared/attachments';

/** A file the message points at. */
export interface FileReference {
  readonly path: string;
  readonly range?: LineRange;
  /** As written, `@` included: what a problem quotes back. */
  readonly written: string;
}

/** The `@…` being typed at the caret: where it starts and ends, and the fragment after `@`. */
export interface TypedReference {
  readonly start: number;
  readonly end: number;
  readonly query: string;
}

/** Punctuation that ends a sentence rather than a path: `see @a.ts, then…` points at `a.ts`. */
const trailing = /[.,;:!?)\]}'"”’]+$/;
/** `@path`, or `@"a path with spaces"` (what follows the closing quote, such as `#L10-20`, goes with it). */
const referencePattern = /(^|\s)@(?:"([^"\n]+)"(\S*)|(\S+))/g;

/**
 * How a path is written after `@`: in quotes when it holds a space or has neither a `/` nor a `.`, since
 * an unquoted `@word` is read as a mention or a decorator (`@alice`, `@property`), not as a file.
 */
export function referenceText(path: string): string {
  return /\s/.test(path) || !/[./]/.test(path) ? `@"${path}"` : `@${path}`;
}

/** Whether `@word` (unquoted) is meant as a path: it has a `/`, a `.` or a line range. */
function looksLikePath(raw: string): boolean {
  return /[./]|#L/i.test(raw);
}
const rangePattern = /^(.*?)#L(\d+)(?:-L?(\d+))?$/;

/** The reference being typed at `caret`, or null when the caret is not in one. */
export function referenceAt(text: string, caret: number): TypedReference | null {
  const before = text.slice(0, caret);
  const match = /(^|\s)@(\S*)$/.exec(before);
  if (!match) return null;
  const start = before.length - (match[2] ?? '').length - 1;
  let end = caret;
  while (end < text.length && !/\s/.test(text.charAt(end))) end += 1;
  return { start, end, query: (match[2] ?? '').replace(/^"/, '') };
}

/** The text with the reference at `typed` replaced by `@path` (a folder keeps the list open inside it), and the caret after it. */
export function completeReference(text: string, typed: TypedReference, path: string, directory: boolean): { text: string; caret: number } {
  const rest = text.slice(typed.end);
  // A folder with a space stays open in its quote, so the list goes on inside it; completing a file closes it.
  const inserted = directory ? (/\s/.test(path) ? `@"${path}/` : `@${path}/`) : referenceText(path);
  const spacer = directory || rest.startsWith(' ') ? '' : ' ';
  return { text: `${text.slice(0, typed.start)}${inserted}${spacer}${rest}`, caret: typed.start + inserted.length + (directory ? 0 : 1) };
}

/** `@path` at the caret: inserted with spaces around it where the text needs them. */
export function insertReference(text: string, caret: number, path: string): { text: string; caret: number } {
  const before = text.slice(0, caret);
  const after = text.slice(caret);
  const lead = before === '' || /\s$/.test(before) ? '' : ' ';
  const inserted = `${lead}${referenceText(path)} `;
  return { text: `${before}${inserted}${after.replace(/^ /, '')}`, caret: caret + inserted.length };
}

/** Why a path written after `@` cannot be a file of the workspace, or null when it may be one. */
function pathProblem(written: string, path: string): string | null {
  if (path === '') return `${written} names no file: write a path after @.`;
  if (/^([A-Za-z]:)?[\\/]/.test(path) || path.startsWith('~'))
    return `${written} is not in the workspace: write a path relative to the workspace folder.`;
  if (path.split(/[\\/]/).includes('..')) return `${written} leaves the workspace: only files inside it can be attached.`;
  return null;
}

/** Every file the text points at, or the first problem with one, in words. */
export function readReferences(text: string): { references: FileReference[]; problem: string | null } {
  const references: FileReference[] = [];
  for (const match of text.matchAll(referencePattern)) {
    const quoted = match[2];
    const raw = quoted === undefined ? (match[4] ?? '').replace(trailing, '') : `${quoted}${(match[3] ?? '').replace(trailing, '')}`;
    // `@alice`, `@property`: a mention or a decorator, left as text. A file without `.` or `/` is written in quotes.
    if (quoted === undefined && !looksLikePath(raw)) continue;
    const written = quoted === undefined ? `@${raw}` : `@"${quoted}"${raw.slice(quoted.length)}`;
    const ranged =
      quoted === undefined ? rangePattern.exec(raw) : rangePattern.exec(`${quoted.replace(/#/g, '\u0000')}${raw.slice(quoted.length)}`);
    if (!ranged && /#L/i.test(raw))
      return { references, problem: `${written} has a line range that cannot be read: write it as #L10 or #L10-20.` };
    const path = quoted ?? (ranged ? (ranged[1] ?? '') : raw);
    const problem = pathProblem(written, path);
    if (problem) return { references, problem };
    if (!ranged) {
      references.push({ path, written });
      continue;
    }
    const start = Number(ranged[2]);
    const end = ranged[3] === undefined ? start : Number(ranged[3]);
    if (start < 1) return { references, problem: `${written}: lines are counted from 1.` };
    if (end < start) return { references, problem: `${written}: the line range ends before it starts.` };
    references.push({ path, range: { start, end }, written });
  }
  return { references, problem: null };
}
