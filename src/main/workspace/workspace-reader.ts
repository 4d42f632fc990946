/*
 * Reads the workspace's folders and files for a walk or a search, from the root one name at a time, following no link.
 */

import { closeSync, constants, fstatSync, readdirSync, type Stats } from 'node:fs';
import { BoundedMap } from '../../shared/bounded-map';
import { readAllSync } from './fd-read';
import type { FolderReader } from './file-walk';
import type { FolderAccess, OpenFolder } from './folder-access';

/** Open folders kept for a walk: enough for the parents of a wide level, few enough for any descriptor limit. */
const maxOpenFolders = 64;
const readFlags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Names that would not go down one level: '..' from the root (through /proc/self/fd) is the folder above the workspace. */
function steps(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..';
}

/**
 * Reads folders and files of the workspace for a walk or a search, opening each from the root one
 * name at a time without following any link (links are listed, never entered or read), and never
 * by '.', '..' or an empty name, so every path stays below the root. Recently
 * opened folders stay open so a walk does not start from the root for every folder. Call `close`
 * when done.
 */
export class WorkspaceReader implements FolderReader {
  /** Most recently used last, so the folder used longest ago is closed first when one more is opened. */
  private readonly open: BoundedMap<string, OpenFolder>;

  constructor(
    /** The workspace root, a real path. */
    readonly root: string,
    private readonly access: FolderAccess,
  ) {
    this.open = new BoundedMap({ max: maxOpenFolders, refreshOnRead: true, onEvict: (_relative, folder) => access.close(folder) });
  }

  /** The folder at a root-relative path ('' for the root), or null when a name on the way is not a plain folder now. */
  private folder(relative: string): OpenFolder | null {
    const cached = this.open.get(relative);
    if (cached) return cached;
    let opened: OpenFolder;
    try {
      if (relative === '') opened = this.access.openRoot(this.root);
      else {
        const cut = relative.lastIndexOf('/');
        if (!steps(relative.slice(cut + 1))) return null;
        const parent = this.folder(cut === -1 ? '' : relative.slice(0, cut));
        if (!parent) return null;
        opened = this.access.openFolder(parent, relative.slice(cut + 1));
      }
    } catch {
      return null;
    }
    this.open.set(relative, opened);
    return opened;
  }

  async list(relative: string): Promise<Array<{ name: string; directory: boolean }>> {
    const folder = this.folder(relative);
    if (!folder) throw new Error(`${relative || '.'} is not a folder that can be listed.`);
    return readdirSync(this.access.folderPath(folder), { withFileTypes: true }).map((entry) => ({
      name: entry.name,
      directory: entry.isDirectory(),
    }));
  }

  /** A plain file's bytes (at most `maxBytes`), or null when it is missing, a link, or not a plain file. */
  async readFile(relative: string, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer | null> {
    try {
      return this.withPlainFile(relative, (fd) => readAllSync(fd, maxBytes));
    } catch {
      return null;
    }
  }

  /**
   * Opens a plain file (never through a link) and hands `use` its descriptor and what fstat says of
   * it, so what is read is what was looked at; null when it is missing, a link or not a plain file
   * now. The descriptor is closed when `use` returns; what `use` throws passes through.
   */
  withPlainFile<T>(relative: string, use: (fd: number, info: Stats) => T): T | null {
    const cut = relative.lastIndexOf('/');
    if (!steps(relative.slice(cut + 1))) return null;
    const folder = this.folder(cut === -1 ? '' : relative.slice(0, cut));
    if (!folder) return null;
    let fd: number;
    try {
      fd = this.access.openEntry(folder, relative.slice(cut + 1), readFlags);
    } catch {
      return null;
    }
    try {
      const info = fstatSync(fd);
      return info.isFile() ? use(fd, info) : null;
    } finally {
      closeSync(fd);
    }
  }

  async readText(relative: string): Promise<string | null> {
    return (await this.readFile(relative, 1024 * 1024))?.toString('utf8') ?? null;
  }

  close(): void {
    for (const folder of this.open.values()) this.access.close(folder);
    this.open.clear();
  }
}
