/*
 * How each platform opens names inside a workspace folder without following links: `/proc/self/fd` on Linux,
 * `O_NOFOLLOW_ANY` on macOS, open-then-check on Windows, checked paths elsewhere.
 */

import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openThenCheckAccess, sameFile } from './checked-open';
import type { FolderAccess, OpenFolder } from './folder-access-types';
import { samePath } from './path-case';

export type { FolderAccess, OpenFolder } from './folder-access-types';

const noFollow = constants.O_NOFOLLOW ?? 0;
const directoryFlag = constants.O_DIRECTORY ?? 0;
/**
 * macOS: fail if any name on the path is a link, `#define O_NOFOLLOW_ANY 0x20000000` in the SDK's sys/fcntl.h (macOS 11
 * and later); Node does not export it.
 */
export const noFollowAny = 0x20000000;

class MovedError extends Error {
  readonly code = 'EMOVED';
}

/**
 * Throws unless `fd` is the same file as the one now at `path`; answers that file's real path. Compared as bigints: a
 * 64-bit inode is exact only below 2^53 as a number.
 */
function sameAsRealPath(fd: number, path: string): string {
  const real = realpathSync.native(path);
  if (!sameFile(fstatSync(fd, { bigint: true }), statSync(real, { bigint: true })))
    throw new MovedError(`${path} changed while it was opened.`);
  return real;
}

function procPath(fd: number | null): string {
  if (fd === null) throw new Error('A folder without a descriptor reached the /proc walk.');
  return `/proc/self/fd/${fd}`;
}

/** Linux: `openat` in effect, through the `/proc/self/fd` magic links. */
export const procFdAccess: FolderAccess = {
  kind: 'proc-fd',
  openRoot: (realRoot) => ({ fd: openSync(realRoot, constants.O_RDONLY | directoryFlag | noFollow), absolute: realRoot }),
  openFolder: (folder, name) => ({
    fd: openSync(`${procPath(folder.fd)}/${name}`, constants.O_RDONLY | directoryFlag | noFollow),
    absolute: join(folder.absolute, name),
  }),
  openEntry: (folder, name, flags, mode) => openSync(`${procPath(folder.fd)}/${name}`, flags | noFollow, mode),
  pathOf: (folder, name) => `${procPath(folder.fd)}/${name}`,
  folderPath: (folder) => procPath(folder.fd),
  whereIsFolder: (folder) => movedCheck(readlinkSync(procPath(folder.fd))),
  whereIsFile: (fd) => movedCheck(readlinkSync(procPath(fd))),
  close: (folder) => {
    if (folder.fd !== null) closeSync(folder.fd);
  },
};

/** The kernel marks a descriptor whose entry was removed; such a folder is no longer anywhere. */
function movedCheck(path: string): string {
  if (path.endsWith(' (deleted)')) throw new MovedError(`${path} was removed while it was open.`);
  return path;
}

/** Refuses a name that is a link now (the check `checked-paths` relies on). */
function notLink(path: string): void {
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (info?.isSymbolicLink()) throw Object.assign(new Error(`${path} is a link`), { code: 'ELOOP' });
}

/** macOS with `O_NOFOLLOW_ANY`, or any other system by full paths with checks (see {@link FolderAccess}). */
export function pathAccess(options: { readonly noFollowAny: boolean; readonly holdFolders: boolean }): FolderAccess {
  const extra = options.noFollowAny ? noFollowAny : 0;
  const openFolderAt = (absolute: string): OpenFolder => {
    notLink(absolute);
    if (!options.holdFolders) {
      const info = lstatSync(absolute);
      if (!info.isDirectory()) throw Object.assign(new Error(`${absolute} is not a folder`), { code: 'ENOTDIR' });
      return { fd: null, absolute };
    }
    return { fd: openSync(absolute, constants.O_RDONLY | directoryFlag | noFollow | extra), absolute };
  };
  return {
    kind: options.noFollowAny ? 'nofollow-any' : 'checked-paths',
    openRoot: (realRoot) => openFolderAt(realRoot),
    openFolder: (folder, name) => openFolderAt(join(folder.absolute, name)),
    openEntry: (folder, name, flags, mode) => {
      const path = join(folder.absolute, name);
      if (!options.noFollowAny) notLink(path);
      return openSync(path, flags | noFollow | extra, mode);
    },
    pathOf: (folder, name) => join(folder.absolute, name),
    folderPath: (folder) => folder.absolute,
    whereIsFolder: (folder) => {
      if (folder.fd !== null) return sameAsRealPath(folder.fd, folder.absolute);
      const real = realpathSync.native(folder.absolute);
      // By the file system's case rules: a name written `SRC` for `src` is the same folder where case is ignored.
      if (!samePath(real, folder.absolute)) throw new MovedError(`${folder.absolute} now leads to ${real}.`);
      return real;
    },
    whereIsFile: (fd, openedAs) => sameAsRealPath(fd, openedAs),
    close: (folder) => {
      if (folder.fd !== null) closeSync(folder.fd);
    },
  };
}

let procAvailable: boolean | undefined;

/**
 * The best access this machine offers: `/proc/self/fd` on Linux, `O_NOFOLLOW_ANY` on macOS, open-then-check on Windows,
 * checked paths elsewhere.
 */
export function defaultFolderAccess(platform: NodeJS.Platform = process.platform): FolderAccess {
  if (platform === 'linux') {
    procAvailable ??= lstatSync('/proc/self/fd', { throwIfNoEntry: false })?.isDirectory() ?? false;
    // Without /proc mounted (a rare container), the checked-paths walk is what is left.
    if (procAvailable) return procFdAccess;
  }
  if (platform === 'darwin') return pathAccess({ noFollowAny: true, holdFolders: true });
  if (platform === 'win32') return openThenCheckAccess();
  return pathAccess({ noFollowAny: false, holdFolders: true });
}

/** Whether an error means "that name is a link" (or changed under the walk). */
export function isLinkRefusal(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  // Not EREPARSE: a mount point on the way is no link the walk could read and follow; it is refused as it is.
  return code === 'ELOOP' || code === 'ENOTDIR' || code === 'EMLINK' || code === 'EMOVED';
}
