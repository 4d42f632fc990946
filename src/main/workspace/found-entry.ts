/*
 * What is done with an entry the workspace walk found, through the folder it was found in and never by its path:
 * opening it as the plain file the walk saw, reading its old content, making the folders missing above it, and writing
 * it through a temporary file renamed over it. Also the words a file system error becomes for the person.
 */

import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fstatSync, mkdirSync, renameSync, unlinkSync, type Stats } from 'node:fs';
import { WorkbenchError } from '../../shared/errors';
import { readAllSync, writeAllSync } from './fd-read';
import { isLinkRefusal, type FolderAccess, type OpenFolder } from './folder-access';
import { PathRefusedError } from './path-text';
import { losslessText } from './utf8-text';
import { WorkspaceWalk, type Found } from './workspace-walk';

export type EntryKind = 'file' | 'directory' | 'missing';

const readFlags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const createFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

/** What the walk found at a name: a file (or a link to one), a folder, or nothing. */
export function kindOf(found: Found): EntryKind {
  if (!found.entry) return 'missing';
  return found.entry.isDirectory() ? 'directory' : 'file';
}

/** A temporary name next to the file, unique, short enough for any file system. */
function temporaryName(name: string): string {
  return `.${Array.from(name).slice(0, 40).join('')}.${randomBytes(6).toString('hex')}.tmp`;
}

const fsWords: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EBUSY: 'it is in use',
  EISDIR: 'a folder is in the way',
};

/** Turns a file system error into the app's error, without the internal paths it names; anything else passes as it is. */
export function failure(requested: string, error: unknown, doing: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (error instanceof WorkbenchError || typeof code !== 'string') return error;
  if (code === 'EREPARSE')
    return new PathRefusedError(requested, 'a name on it is a mount point or another reparse point that leads out of its folder.');
  if (isLinkRefusal(error) || code === 'ENOENT')
    return new PathRefusedError(requested, `it changed while it was being ${doing} (${code}); nothing was ${doing}. Try again.`);
  return new WorkbenchError('invalid_input', `${requested} could not be ${doing}: ${fsWords[code] ?? 'the system refused'} (${code}).`, {
    cause: error,
  });
}

/** Checks that an open folder still lies inside the workspace the entry was found in. */
export function checkFolder(access: FolderAccess, requested: string, found: Found, folder: OpenFolder): void {
  WorkspaceWalk.checkInside(requested, found.root, access.whereIsFolder(folder));
}

/**
 * Opens the found entry with O_NONBLOCK (a pipe swapped in cannot hang the read) and checks it is the plain file the
 * walk saw; a failure comes back as the tool's error for `requested`.
 */
export function openPlainFile(access: FolderAccess, requested: string, found: Found): { fd: number; info: Stats } {
  let fd: number;
  try {
    fd = access.openEntry(found.folder, found.name, readFlags);
  } catch (error) {
    throw failure(requested, error, 'read');
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new PathRefusedError(requested, 'it is a device, pipe or socket, not a file or folder.');
    if (found.entry && info.ino !== found.entry.ino) throw Object.assign(new Error('replaced while opening'), { code: 'EMOVED' });
    return { fd, info };
  } catch (error) {
    closeSync(fd);
    throw failure(requested, error, 'read');
  }
}

/** The old content of a found file, with what a write keeps of it: null text when not UTF-8 or (`tooLarge`) past `maxBytes`. */
export interface OldContent {
  readonly text: string | null;
  readonly size: number;
  readonly tooLarge: boolean;
  readonly mode: number;
  readonly links: number;
}

/**
 * The old content for a write. Its folder is checked to be inside right before the rename, and a
 * write refused there shows nothing of what was read.
 */
export function readFound(access: FolderAccess, requested: string, found: Found, maxBytes = Number.POSITIVE_INFINITY): OldContent {
  const opened = openPlainFile(access, requested, found);
  try {
    const kept = { mode: opened.info.mode & 0o777, links: opened.info.nlink };
    if (opened.info.size > maxBytes) return { text: null, size: opened.info.size, tooLarge: true, ...kept };
    const data = readAllSync(opened.fd, Number.POSITIVE_INFINITY);
    return { text: losslessText(data), size: data.length, tooLarge: false, ...kept };
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * Makes the missing folders one by one from the deepest open one, opening each without following a link; each opened
 * folder is added to `opened`, for the caller to close.
 */
export function makeFolders(access: FolderAccess, found: Found, opened: OpenFolder[]): OpenFolder {
  let folder = found.folder;
  for (const name of found.missing) {
    try {
      mkdirSync(access.pathOf(folder, name));
    } catch (error) {
      // Made meanwhile by someone else: fine, as long as it opens as a folder below.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    folder = access.openFolder(folder, name);
    opened.push(folder);
  }
  return folder;
}

/**
 * Writes `data` to a temporary file in `folder` (created exclusively, with `mode`, or the default bits when null) and
 * renames it over the found name; the temporary file is removed when anything fails.
 */
export function writeThenRename(
  access: FolderAccess,
  requested: string,
  found: Found,
  folder: OpenFolder,
  data: Buffer,
  mode: number | null,
): void {
  const temporary = temporaryName(found.name);
  const fd = access.openEntry(folder, temporary, createFlags, mode === null ? 0o666 : 0o600);
  let renamed = false;
  try {
    try {
      writeAllSync(fd, data);
      if (mode !== null) fchmodSync(fd, mode);
    } finally {
      closeSync(fd);
    }
    // Checked last, right before the rename, so a folder moved away meanwhile receives nothing.
    checkFolder(access, requested, found, folder);
    renameSync(access.pathOf(folder, temporary), access.pathOf(folder, found.name));
    renamed = true;
  } finally {
    if (!renamed) {
      try {
        unlinkSync(access.pathOf(folder, temporary));
      } catch {
        // Already gone with its folder.
      }
    }
  }
}
