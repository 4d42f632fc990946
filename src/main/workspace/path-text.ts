/*
 * A path the model gave, turned into names under the workspace root from its text alone, refusing every text that means
 * another place.
 */

import { WorkbenchError } from '../../shared/errors';
import { modelPathText } from './model-path';

/** A path the tools refuse, with the reason the model is told. */
export class PathRefusedError extends WorkbenchError {
  constructor(requested: string, reason: string) {
    super('path_refused', `Refused ${JSON.stringify(requested.length > 200 ? `${requested.slice(0, 200)}…` : requested)}: ${reason}`);
  }
}

/** The platform whose naming rules apply; Windows adds device names and short names. */
export type NamingPlatform = 'win32' | 'posix';

const maxPathLength = 1024;
const maxSegmentBytes = 255;
const relativeHint = 'paths are relative to the workspace folder (for example src/index.ts).';

/**
 * Characters that look like `.`, `/` or `\\` to a person or to another tool but are not, and
 * characters that cannot be seen at all (zero-width, bidirectional controls, and the code points
 * macOS HFS+ drops from names, so `.g\u200Cit` names `.git` there): a path that contains one is
 * refused rather than guessed at. Combining overlays (a slash drawn over a letter) count too.
 */
const confusables =
  /(?:\u0337|\u0338|\u034F|\u20D2|\u20D3|\u20E5|\u20EB|[\u00AD\u061C\u0660\u06D4\u06F0\u0701\u0702\u180E\u2024\u2025\u2026\u2027\u2219\u22C5\uA60E\u2E3C\uFE52\uFF0E\u3002\uFF61\u2215\u2044\u29F8\uFF0F\u2571\u29F5\u29F9\uFE68\uFF3C\u2216\u2572\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF\uFFF9-\uFFFB])/u;

/** Characters a segment may not gain under NFKC: a name that normalizes into a separator or a dot was made to look like one. */
const meaningful = ['.', '/', '\\', ':', '~', '$', '%'];

const windowsDevices = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$|clock\$)$/i;

function refuse(requested: string, reason: string): never {
  throw new PathRefusedError(requested, reason);
}

function count(text: string, character: string): number {
  return text.split(character).length - 1;
}

/** Checks one name of the path (not `.` or `..`). */
function checkSegment(requested: string, segment: string, platform: NamingPlatform): void {
  if (Buffer.byteLength(segment, 'utf8') > maxSegmentBytes) refuse(requested, `a name in it is longer than ${maxSegmentBytes} bytes.`);
  if (/[. ]$/.test(segment) || segment.startsWith(' '))
    refuse(
      requested,
      `the name ${JSON.stringify(segment)} ends with a dot or a space, or starts with a space; Windows drops those, so it can mean another file.`,
    );
  const normalized = segment.normalize('NFKC');
  if (normalized !== segment && meaningful.some((character) => count(normalized, character) > count(segment, character)))
    refuse(requested, `the name ${JSON.stringify(segment)} turns into another name (with . / \\ : ~ $ or %) when Unicode-normalized.`);
  if (platform === 'win32' && segment.includes(':'))
    refuse(requested, 'a name with ":" followed by a stream name is an NTFS alternate data stream, not a file of its own.');
  if (platform === 'win32') {
    if (windowsDevices.test(segment.split('.')[0]?.trimEnd() ?? '')) refuse(requested, `${segment} names a device on Windows, not a file.`);
    if (/~\d/.test(segment)) refuse(requested, `${segment} looks like a Windows short (8.3) name for another file; use the full name.`);
    if (/[<>"|?*]/.test(segment)) refuse(requested, `${segment} holds a character Windows does not allow in a name (< > " | ? *).`);
  }
}

/**
 * Refusals that apply to the whole text (`text`: the path as `modelPathText` put it), before an absolute path inside the
 * workspace is made relative; the refusal quotes the path as the model gave it.
 */
function checkWhole(text: string, requested: string): void {
  if (typeof text !== 'string' || text.length === 0) refuse(String(requested), 'the path is empty.');
  if (text.length > maxPathLength) refuse(requested, `the path is longer than ${maxPathLength} characters.`);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  if (/[\u0000-\u001f\u007f-\u009f]/.test(text)) refuse(requested, 'the path contains a NUL or control character.');
  if (text.includes('\\')) refuse(requested, 'use / as the separator; \\ is refused.');
  if (text.startsWith('//')) refuse(requested, `//server/share names a network share, not a folder here; ${relativeHint}`);
}

/** Refusals for the part of the path that is relative to the workspace. */
function checkRelative(requested: string, rest: string, platform: NamingPlatform): void {
  if (confusables.test(rest)) refuse(requested, 'the path contains a character that only looks like a dot or a slash, or cannot be seen.');
  if (rest.startsWith('~')) refuse(requested, `~ is not expanded to a home folder; ${relativeHint}`);
  if (rest.includes('::') || rest.includes(':$'))
    refuse(requested, 'a name with ":" followed by a stream name is an NTFS alternate data stream, not a file of its own.');
  if (/\$[A-Za-z_{(]/.test(rest)) refuse(requested, `$VARIABLES, \${…} and $(…) are not expanded; ${relativeHint}`);
  if (rest.includes('`')) refuse(requested, `backticks are not run; ${relativeHint}`);
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(rest) || /^(file|https?|ftp|data|javascript|blob|smb|ssh|sftp):/i.test(rest))
    refuse(requested, `it is a URL, not a path; ${relativeHint}`);
  if (/^[A-Za-z]:/.test(rest)) refuse(requested, `${rest.slice(0, 2)} names a Windows drive, outside the workspace; ${relativeHint}`);
  if (/%[0-9A-Fa-f]{2}/.test(rest)) refuse(requested, 'percent-encodings such as %2e are not decoded; write the characters themselves.');
  for (const segment of rest.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') continue;
    checkSegment(requested, segment, platform);
  }
}

/** `root` with `/` separators and no trailing separator. */
function slashed(root: string, platform: NamingPlatform): string {
  const forward = platform === 'win32' ? root.replace(/\\/g, '/') : root;
  return forward.length > 1 ? forward.replace(/\/+$/, '') : forward;
}

/**
 * The part of an absolute path after one of the roots, or null when it lies under none. Where the root's file system
 * ignores letter case (Windows', and macOS's by default), `/Users/Me/Proj/a` lies under `/Users/me/proj`.
 */
function underRoot(path: string, roots: readonly string[], platform: NamingPlatform, caseIgnored: boolean): string | null {
  const fold = (text: string) => (caseIgnored ? text.toLowerCase() : text);
  for (const root of roots.map((candidate) => slashed(candidate, platform))) {
    if (fold(path) === fold(root)) return '';
    const prefix = root.endsWith('/') ? root : `${root}/`;
    if (fold(path).startsWith(fold(prefix))) return path.slice(prefix.length);
  }
  return null;
}

/** Whether a path is absolute on the platform (a leading `/`, or `C:/` on Windows). */
function isAbsolutePath(path: string, platform: NamingPlatform): boolean {
  return path.startsWith('/') || (platform === 'win32' && /^[A-Za-z]:\//.test(path));
}

/**
 * The names, from the workspace root down, of a path the model gave, worked out from the text
 * alone: `.` dropped, `..` applied, links not looked at. Refuses, with a reason the model can act
 * on, every text that means another place: `..` above the root, absolute paths outside it, `~`,
 * `$VAR`, `$(…)`, backticks, URLs, drive letters, network shares, percent-encodings, control and
 * invisible characters, look-alike dots and slashes, names Windows would shorten or treat as
 * devices or data streams. An absolute path under one of `roots` is taken as relative to it.
 */
export function workspaceSegments(
  requested: string,
  roots: readonly string[],
  platform: NamingPlatform,
  /** Whether the root's file system ignores letter case; Windows' rule unless told. */
  caseIgnored: boolean = platform === 'win32',
): string[] {
  // On Windows `C:\a`, `/c/a` and `\\?\C:\a` are read as `C:/a` first (see `modelPathText`); refusals quote the text as given.
  const text = typeof requested === 'string' ? modelPathText(requested, platform) : requested;
  checkWhole(text, requested);
  let rest = text;
  if (isAbsolutePath(text, platform)) {
    const inside = underRoot(text, roots, platform, caseIgnored);
    // The same words as before these checks existed: the model and the tests know them.
    if (inside === null) refuse(requested, 'it is outside the workspace.');
    rest = inside;
  }
  checkRelative(requested, rest, platform);
  return lexicalSegments(rest.split('/'), []) ?? refuse(requested, 'it is outside the workspace.');
}

/** Applies `.` and `..` to `names` below the folder `base`; null when the result climbs above the root. */
export function lexicalSegments(names: readonly string[], base: readonly string[]): string[] | null {
  const segments = [...base];
  for (const name of names) {
    if (name === '' || name === '.') continue;
    if (name === '..') {
      if (segments.length === 0) return null;
      segments.pop();
    } else segments.push(name);
  }
  return segments;
}

/**
 * Where a link leads, as names from the root, given the folder it sits in (`base`) and its
 * target text; null when that is outside the workspace. The target is read as the file system
 * reads it, not checked like a path the model gave.
 */
export function linkSegments(
  target: string,
  base: readonly string[],
  roots: readonly string[],
  platform: NamingPlatform,
  caseIgnored: boolean = platform === 'win32',
): string[] | null {
  const text = platform === 'win32' ? target.replace(/\\/g, '/') : target;
  if (isAbsolutePath(text, platform)) {
    const inside = underRoot(text, roots, platform, caseIgnored);
    return inside === null ? null : lexicalSegments(inside.split('/'), []);
  }
  if (platform === 'win32' && /^[A-Za-z]:/.test(text)) return null;
  return lexicalSegments(text.split('/'), base);
}

/** The naming rules of the machine the app runs on. */
export function currentNamingPlatform(): NamingPlatform {
  return process.platform === 'win32' ? 'win32' : 'posix';
}

/**
 * Why Windows would take a name in a link's target for another name, or null: a data stream (`:`), a device (`NUL`,
 * `CON.txt`), a short 8.3 name (`GIT~1` for `.git`), a dot or a space it drops at the end. A link's target is read as
 * the file system reads it (`linkSegments`), so these are looked for apart from the checks of the model's own path.
 */
export function windowsNameProblem(segment: string): string | null {
  if (segment.includes(':')) return `${segment} names an NTFS alternate data stream`;
  if (windowsDevices.test(segment.split('.')[0]?.trimEnd() ?? '')) return `${segment} names a device on Windows`;
  if (/~\d/.test(segment)) return `${segment} looks like a Windows short (8.3) name for another file`;
  if (/[. ]$/.test(segment) && segment !== '.' && segment !== '..') return `${segment} ends with a dot or a space, which Windows drops`;
  return null;
}
