/*
 * Windows' way to open names inside a workspace folder: open first, then check that what was opened is the plain
 * entry at that name (not a symbolic link, a junction or another reparse point leading elsewhere), so a swap between
 * a check and the use is caught.
 */

import { closeSync, constants, fstatSync, lstatSync, openSync, realpathSync, statSync, type BigIntStats } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FolderAccess, OpenFolder } from './folder-access-types';
import { ignoresCase, samePath } from './path-case';

/** What is known of a file from a stat: enough to tell it from any other file and to tell links and folders. */
export type FileFacts = Pick<BigIntStats, 'dev' | 'ino' | 'isSymbolicLink' | 'isDirectory'>;

/**
 * The file system calls the open-then-check walk makes, injected so its every branch is tested under Node with a
 * file system that does what Windows does. Stats are bigint: on Windows `ino` is NTFS's 64-bit file index, which a
 * JavaScript number holds exactly only below 2^53, so two files could compare as one without them.
 */
export interface AccessFs {
  /** Opens a path; on Windows a link, junction or mount point at any name on it is followed. */
  open(path: string, flags: number, mode?: number): number;
  close(fd: number): void;
  fstat(fd: number): FileFacts;
  /** What is at the name itself (a link or junction not followed); undefined when nothing is. */
  lstat(path: string): FileFacts | undefined;
  stat(path: string): FileFacts;
  /** The final path, every link and reparse point resolved (libuv asks Windows' GetFinalPathNameByHandleW). */
  realpath(path: string): string;
}

/** Node's own calls. */
export const nodeAccessFs: AccessFs = {
  open: (path, flags, mode) => openSync(path, flags, mode),
  close: (fd) => closeSync(fd),
  fstat: (fd) => fstatSync(fd, { bigint: true }),
  lstat: (path) => lstatSync(path, { bigint: true, throwIfNoEntry: false }),
  stat: (path) => statSync(path, { bigint: true }),
  realpath: (path) => realpathSync.native(path),
};

/** Two stats of one file: same volume and same file index, compared whole. */
export function sameFile(one: Pick<FileFacts, 'dev' | 'ino'>, other: Pick<FileFacts, 'dev' | 'ino'>): boolean {
  return one.dev === other.dev && one.ino === other.ino;
}

function refusal(code: 'ELOOP' | 'ENOTDIR' | 'EMOVED' | 'EREPARSE', message: string): Error {
  return Object.assign(new Error(message), { code });
}

export interface OpenThenCheckOptions {
  readonly fs?: AccessFs;
  /** Whether the file system holding a path ignores letter case; asked of the disk by default. */
  readonly caseIgnored?: (path: string) => boolean;
}

/**
 * Windows has no `O_NOFOLLOW` and Node no `openat` nor GetFinalPathNameByHandle for a descriptor, so every entry is
 * opened by its full path (which follows whatever reparse point is there) and then checked, the descriptor in hand:
 *
 * 1. the name itself is not a link, before the open and again after it (Node's `lstat` reports a symbolic link and a junction to a drive path alike as a
 *    link: libuv's `fs__readlink_handle` reads both tags): refused with ELOOP, and the walk reads the link and follows
 *    it only inside the workspace, as it does everywhere;
 * 2. the descriptor is the file now at the name (volume serial and file index from `fstat`, as bigints): otherwise
 *    the name was swapped between the open and the check;
 * 3. the final path of the name is the path walked (by the file system's case rules): a reparse point libuv does not
 *    report as a link (a volume mount point, another name surrogate) leads elsewhere, and is refused with EREPARSE;
 * 4. the file at that final path is the one opened, so the name was not swapped back meanwhile.
 *
 * A folder is opened and checked this way and closed again, keeping its identity: Windows would keep a folder held
 * open from being removed, and a later check compares the identity instead (`whereIsFolder`).
 */
export function openThenCheckAccess(options: OpenThenCheckOptions = {}): FolderAccess {
  const fs = options.fs ?? nodeAccessFs;
  const caseIgnored = options.caseIgnored ?? ((path: string) => ignoresCase(dirname(path)));
  const directoryFlags = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NONBLOCK ?? 0);

  /** Checks 2 to 4 for a descriptor opened by `path`; answers the final path. */
  const confirm = (fd: number, path: string, opened: FileFacts): string => {
    const real = fs.realpath(path);
    if (!samePath(real, path, caseIgnored(path))) throw refusal('EREPARSE', `${path} leads to ${real} through a reparse point.`);
    if (!sameFile(opened, fs.stat(real))) throw refusal('EMOVED', `${path} changed while it was opened.`);
    return real;
  };

  const openChecked = (path: string, flags: number, mode?: number): { fd: number; facts: FileFacts } => {
    // A link there now is refused before the open, which would already reach where it leads (a share on another
    // machine would be asked for the person's credentials); the checks after the open catch one swapped in meanwhile.
    if (fs.lstat(path)?.isSymbolicLink()) throw refusal('ELOOP', `${path} is a link`);
    const fd = fs.open(path, flags, mode);
    try {
      const here = fs.lstat(path);
      if (here === undefined) throw refusal('EMOVED', `${path} was removed while it was opened.`);
      if (here.isSymbolicLink()) throw refusal('ELOOP', `${path} is a link`);
      const opened = fs.fstat(fd);
      if (!sameFile(opened, here)) throw refusal('EMOVED', `${path} changed while it was opened.`);
      confirm(fd, path, opened);
      return { fd, facts: opened };
    } catch (error) {
      fs.close(fd);
      throw error;
    }
  };

  const openFolderAt = (absolute: string): OpenFolder => {
    const { fd, facts } = openChecked(absolute, directoryFlags);
    fs.close(fd);
    if (!facts.isDirectory()) throw refusal('ENOTDIR', `${absolute} is not a folder`);
    return { fd: null, absolute, identity: { dev: facts.dev, ino: facts.ino } };
  };

  return {
    kind: 'open-then-check',
    openRoot: (realRoot) => openFolderAt(realRoot),
    openFolder: (folder, name) => openFolderAt(join(folder.absolute, name)),
    openEntry: (folder, name, flags, mode) => openChecked(join(folder.absolute, name), flags, mode).fd,
    pathOf: (folder, name) => join(folder.absolute, name),
    folderPath: (folder) => folder.absolute,
    whereIsFolder: (folder) => {
      const real = fs.realpath(folder.absolute);
      if (!samePath(real, folder.absolute, caseIgnored(folder.absolute)))
        throw refusal('EMOVED', `${folder.absolute} now leads to ${real}.`);
      if (folder.identity === undefined || !sameFile(folder.identity, fs.stat(real)))
        throw refusal('EMOVED', `${folder.absolute} is another folder now.`);
      return real;
    },
    whereIsFile: (fd, openedAs) => confirm(fd, openedAs, fs.fstat(fd)),
    close: () => {
      // Nothing is held: folders were closed once checked.
    },
  };
}
