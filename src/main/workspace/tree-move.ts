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
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname } from 'node:path';
import { readAllSync, writeAllSync } from './fd-read';
import type { FolderAccess, OpenFolder } from './folder-access';

/** An entry named in an open folder. */
export interface Place {
  readonly folder: OpenFolder;
  readonly name: string;
}

const readFlags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const createFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

/**
 * Copies an entry, and a folder's contents, from one open folder into another, every name opened
 * without following links on both sides (links are copied as links, devices and pipes skipped),
 * so a folder swapped for a link halfway cannot make the copy read or write elsewhere.
 */
function copyTree(access: FolderAccess, from: Place, to: Place): void {
  const info = lstatSync(access.pathOf(from.folder, from.name));
  if (info.isSymbolicLink()) {
    symlinkSync(readlinkSync(access.pathOf(from.folder, from.name)), access.pathOf(to.folder, to.name));
  } else if (info.isFile()) {
    const source = access.openEntry(from.folder, from.name, readFlags);
    try {
      const opened = fstatSync(source);
      if (!opened.isFile()) return;
      const target = access.openEntry(to.folder, to.name, createFlags, opened.mode & 0o7777);
      try {
        writeAllSync(target, readAllSync(source, Number.POSITIVE_INFINITY));
        futimesSync(target, opened.atime, opened.mtime);
      } finally {
        closeSync(target);
      }
    } finally {
      closeSync(source);
    }
  } else if (info.isDirectory()) {
    mkdirSync(access.pathOf(to.folder, to.name), { mode: info.mode & 0o7777 });
    const source = access.openFolder(from.folder, from.name);
    try {
      const target = access.openFolder(to.folder, to.name);
      try {
        for (const name of readdirSync(access.folderPath(source))) copyTree(access, { folder: source, name }, { folder: target, name });
      } finally {
        access.close(target);
      }
    } finally {
      access.close(source);
    }
  }
}

/** Removes an entry and, for a folder, everything in it, opening each folder without following links. */
function removeTree(access: FolderAccess, place: Place): void {
  const path = access.pathOf(place.folder, place.name);
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (!info) return;
  if (!info.isDirectory()) {
    unlinkSync(path);
    return;
  }
  // A link swapped in for the folder fails to open here, and the removal stops.
  const folder = access.openFolder(place.folder, place.name);
  try {
    for (const name of readdirSync(access.folderPath(folder))) removeTree(access, { folder, name });
  } finally {
    access.close(folder);
  }
  rmdirSync(path);
}

/** Opens the folder holding an absolute path of the app's own (the trash), for a copy in or out. */
function placeOf(access: FolderAccess, absolute: string): Place {
  return { folder: access.openRoot(realpathSync.native(dirname(absolute))), name: basename(absolute) };
}

/**
 * Moves an entry between a workspace folder and a path of the app's own: a rename through the open
 * folder, or across file systems (where a rename cannot go) a copy and then a removal of the
 * original, both without following links.
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
    copyTree(access, from, to);
    removeTree(access, from);
  } finally {
    access.close(there.folder);
  }
}
