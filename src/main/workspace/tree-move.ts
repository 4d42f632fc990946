/*
 * Moves a file or folder between the workspace and the app's trash, across file systems too, without following links.
 */

import {
  closeSync,
  constants,
  fstatSync,
  futimesSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  statSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname } from 'node:path';
import { WorkbenchError } from '../../shared/errors';
import { readAllSync, writeAllSync } from './fd-read';
import type { FolderAccess, OpenFolder } from './folder-access';

/** An entry named in an open folder. */
export interface Place {
  readonly folder: OpenFolder;
  readonly name: string;
}

const readFlags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const createFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

/** What a copy took: the original's identity and, for a folder, what was copied from it by name. */
interface Copied {
  readonly dev: number;
  readonly ino: number;
  readonly children: Map<string, Copied> | null;
}

/**
 * A move across file systems copied everything but could not remove all of the original: the copy
 * is whole, and what was not removed is still at the old place.
 */
export class PartialMoveError extends WorkbenchError {
  constructor(
    /** Why the removal stopped, for the person. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super('invalid_state', `it was copied whole, but not all of the original could be removed: ${reason}.`, options);
  }
}

/**
 * Copies an entry, and a folder's contents, from one open folder into another, every name opened
 * without following links on both sides (links are copied as links, devices and pipes skipped),
 * so a folder swapped for a link halfway cannot make the copy read or write elsewhere. Copies keep
 * the permission bits but not setuid, setgid or sticky: the copy is the app's user's, and a set-id
 * program of that user is not what the original was. Answers what was copied (null when nothing was).
 */
function copyTree(access: FolderAccess, from: Place, to: Place): Copied | null {
  const info = lstatSync(access.pathOf(from.folder, from.name));
  if (info.isSymbolicLink()) {
    symlinkSync(readlinkSync(access.pathOf(from.folder, from.name)), access.pathOf(to.folder, to.name));
    return { dev: info.dev, ino: info.ino, children: null };
  }
  if (info.isFile()) {
    const source = access.openEntry(from.folder, from.name, readFlags);
    try {
      const opened = fstatSync(source);
      if (!opened.isFile()) return null;
      const target = access.openEntry(to.folder, to.name, createFlags, opened.mode & 0o777);
      try {
        writeAllSync(target, readAllSync(source, Number.POSITIVE_INFINITY));
        futimesSync(target, opened.atime, opened.mtime);
      } finally {
        closeSync(target);
      }
      return { dev: opened.dev, ino: opened.ino, children: null };
    } finally {
      closeSync(source);
    }
  }
  if (!info.isDirectory()) return null;
  mkdirSync(access.pathOf(to.folder, to.name), { mode: info.mode & 0o777 });
  const source = access.openFolder(from.folder, from.name);
  try {
    const children = new Map<string, Copied>();
    const target = access.openFolder(to.folder, to.name);
    try {
      for (const name of readdirSync(access.folderPath(source))) {
        const copied = copyTree(access, { folder: source, name }, { folder: target, name });
        if (copied) children.set(name, copied);
      }
    } finally {
      access.close(target);
    }
    const opened = statSync(access.folderPath(source));
    return { dev: opened.dev, ino: opened.ino, children };
  } finally {
    access.close(source);
  }
}

/**
 * Removes what `copyTree` copied and nothing else, opening each folder without following links:
 * an entry that is no longer the one copied, or that appeared since, stays (its name goes to
 * `left`), and so does the folder holding it.
 */
function removeCopied(access: FolderAccess, place: Place, copied: Copied, shown: string, left: string[]): void {
  const path = access.pathOf(place.folder, place.name);
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (!info) return;
  if (info.dev !== copied.dev || info.ino !== copied.ino || info.isDirectory() !== (copied.children !== null)) {
    left.push(shown);
    return;
  }
  if (!copied.children) {
    unlinkSync(path);
    return;
  }
  // A link swapped in for the folder fails to open here, and the removal stops.
  const folder = access.openFolder(place.folder, place.name);
  const leftBefore = left.length;
  try {
    for (const name of readdirSync(access.folderPath(folder))) {
      const child = copied.children.get(name);
      if (child) removeCopied(access, { folder, name }, child, `${shown}/${name}`, left);
      else left.push(`${shown}/${name}`);
    }
    if (left.length > leftBefore) return;
    try {
      rmdirSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      // Something was made in it after it was listed.
      for (const name of readdirSync(access.folderPath(folder))) left.push(`${shown}/${name}`);
    }
  } finally {
    access.close(folder);
  }
}

/** Opens the folder holding an absolute path of the app's own (the trash), for a copy in or out. */
function placeOf(access: FolderAccess, absolute: string): Place {
  return { folder: access.openRoot(realpathSync.native(dirname(absolute))), name: basename(absolute) };
}

/**
 * Moves an entry between a workspace folder and a path of the app's own: a rename through the open
 * folder, or across file systems (where a rename cannot go) a copy and then a removal of what was
 * copied, both without following links. A removal that stops part way throws `PartialMoveError`:
 * the copy is whole and must be kept.
 */
export function moveEntry(access: FolderAccess, entry: Place, other: string, direction: 'out' | 'in'): void {
  const there = placeOf(access, other);
  try {
    const [from, to] = direction === 'out' ? [entry, there] : [there, entry];
    try {
      renameSync(access.pathOf(from.folder, from.name), access.pathOf(to.folder, to.name));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    }
    const copied = copyTree(access, from, to);
    if (!copied) return;
    // From here on the copy is whole: a failure must leave it, and the caller must say what is left.
    const left: string[] = [];
    try {
      removeCopied(access, from, copied, from.name, left);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new PartialMoveError(code ? `the system refused (${code})` : String(error), { cause: error });
    }
    if (left.length > 0)
      throw new PartialMoveError(`${left.slice(0, 5).join(', ')}${left.length > 5 ? ' and more' : ''} changed or appeared meanwhile`);
  } finally {
    access.close(there.folder);
  }
}
