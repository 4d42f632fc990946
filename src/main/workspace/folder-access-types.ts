/*
 * What a way of opening names inside a workspace folder without following links offers the walk, whatever the
 * platform (implementations in `folder-access.ts` and `checked-open.ts`).
 */

/** A folder of the workspace reached by a walk that followed no link. */
export interface OpenFolder {
  /** Its descriptor, or null where the platform cannot hold a folder open (Windows). */
  readonly fd: number | null;
  /** Its absolute path when it was opened, every name on the way checked not to be a link. */
  readonly absolute: string;
  /** Where no descriptor is kept (Windows): the volume and file index it had when it was opened and checked. */
  readonly identity?: { readonly dev: bigint; readonly ino: bigint };
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
 * - `open-then-check` (Windows): every name is opened by its full path first, then what was opened
 *   is checked to be the plain entry at that name, reached through no link, junction or other
 *   reparse point (see `checked-open.ts`), so a swap between a check and the open is caught.
 *   `mkdir`, `rename` and `unlink` take full paths, as on macOS.
 * - `checked-paths` (the rest): names are checked with `lstat` and opened by path, then compared
 *   with the real path. This narrows a swap to the moment between the check and the use but does
 *   not close it.
 */
export interface FolderAccess {
  readonly kind: 'proc-fd' | 'nofollow-any' | 'open-then-check' | 'checked-paths';
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
