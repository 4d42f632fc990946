/*
 * How each platform opens names inside a workspace folder without following links: `/proc/self/fd` on Linux,
 * `O_NOFOLLOW_ANY` on macOS, checked paths elsewhere.
 */

import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A folder of the workspace reached by a walk that followed no link. */
export interface OpenFolder {
  /** Its descriptor, or null where the platform cannot hold a folder open (Windows). */
  readonly fd: number | null;
  /** Its absolute path when it was opened, every name on the way checked not to be a link. */
  readonly absolute: string;
}

/**
 * How one platform opens names inside a folder without following links. The walk in
 * `workspace-files.ts` opens one name at a time through this, so which guarantee holds depends
 * on the implementation:
 *
 * - `proc-fd` (Linux): every call names the entry as `/proc/self/fd/<folder fd>/<name>`. The kernel
 *   resolves the magic link to the folder already open, whatever has been renamed or swapped
 *   since, so each call acts on that folder like `openat`/`mkdirat`/`renameat` would, and
 *   `O_NOFOLLOW` refuses a link at `name`. Where a descriptor is now is read back from
 *   `/proc/self/fd/<fd>`. Nothing here can be redirected by a link swapped in mid-call.
 * - `nofollow-any` (macOS): `O_NOFOLLOW_ANY` makes an open fail if any name on the full path is a
 *   link, so an open never follows one; afterwards the descriptor is compared (device and inode)
 *   with the real path. `mkdir`, `rename` and `unlink` still take full paths, so a folder swapped
 *   for a link between the check and such a call could redirect it; the window is a few
 *   microseconds and the tools check again right before renaming.
 * - `checked-paths` (Windows and the rest): names are checked with `lstat` (links and junctions are
 *   seen as links) and opened by path, then compared with the real path. This narrows a swap to
 *   the moment between the check and the use but does not close it; Windows has no `O_NOFOLLOW`.
 */
export interface FolderAccess {
  readonly kind: 'proc-fd' | 'nofollow-any' | 'checked-paths';
  /** Opens the workspace root itself (already a real path). */
  openRoot(realRoot: string): OpenFolder;
  /** Opens the folder `name` in `folder`; a link at `name` fails with ELOOP or ENOTDIR. */
  openFolder(folder: OpenFolder, name: string): OpenFolder;
  /** Opens the entry `name` in `folder` with `flags` (and `mode` when creating); never follows a link at `name`. */
  openEntry(folder: OpenFolder, name: string, flags: number, mode?: number): number;
  /** A path for `name` in `folder`, for calls that take a path and do not follow a link at their last name (lstat, readlink, mkdir, rename, unlink). */
  pathOf(folder: OpenFolder, name: string): string;
  /** A path for the folder itself (readdir). */
  folderPath(folder: OpenFolder): string;
  /** Where the folder is now; throws when that cannot be confirmed. */
  whereIsFolder(folder: OpenFolder): string;
  /** Where an open file is now, given the path it was opened by; throws when that cannot be confirmed. */
  whereIsFile(fd: number, openedAs: string): string;
  close(folder: OpenFolder): void;
}

const noFollow = constants.O_NOFOLLOW ?? 0;
const directoryFlag = constants.O_DIRECTORY ?? 0;
/** macOS: fail if any name on the path is a link (sys/fcntl.h); Node does not export it. */
const noFollowAny = 0x20000000;

class MovedError extends Error {
  readonly code = 'EMOVED';
}

/** Throws unless `fd` is the same file as the one now at `path`; answers that file's real path. */
function sameAsRealPath(fd: number, path: string): string {
  const real = realpathSync.native(path);
  const opened = fstatSync(fd);
  const there = statSync(real);
  if (opened.dev !== there.dev || opened.ino !== there.ino) throw new MovedError(`${path} changed while it was opened.`);
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
      if (real !== folder.absolute) throw new MovedError(`${folder.absolute} now leads to ${real}.`);
      return real;
    },
    whereIsFile: (fd, openedAs) => sameAsRealPath(fd, openedAs),
    close: (folder) => {
      if (folder.fd !== null) closeSync(folder.fd);
    },
  };
}

let procAvailable: boolean | undefined;

/** The best access this machine offers: `/proc/self/fd` on Linux, `O_NOFOLLOW_ANY` on macOS, checked paths elsewhere. */
export function defaultFolderAccess(platform: NodeJS.Platform = process.platform): FolderAccess {
  if (platform === 'linux') {
    procAvailable ??= lstatSync('/proc/self/fd', { throwIfNoEntry: false })?.isDirectory() ?? false;
    // Without /proc mounted (a rare container), the checked-paths walk is what is left.
    if (procAvailable) return procFdAccess;
  }
  if (platform === 'darwin') return pathAccess({ noFollowAny: true, holdFolders: true });
  return pathAccess({ noFollowAny: false, holdFolders: platform !== 'win32' });
}

/** Whether an error means "that name is a link" (or changed under the walk). */
export function isLinkRefusal(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ELOOP' || code === 'ENOTDIR' || code === 'EMLINK' || code === 'EMOVED';
}
