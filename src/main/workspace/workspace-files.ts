/*
 * The workspace's files as the agent's tools reach them: paths checked, names opened one at a time without
 * following links, reads, and writes renamed into place.
 */
import { closeSync, lstatSync, mkdirSync, realpathSync, rmdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { WorkbenchError } from '../../shared/errors';
import { defaultFolderAccess, type FolderAccess, type OpenFolder } from './folder-access';
import { checkFolder, failure, kindOf, makeFolders, openPlainFile, readFound, writeThenRename, type EntryKind } from './found-entry';
import { currentNamingPlatform, PathRefusedError, type NamingPlatform } from './path-text';
import { moveEntry } from './tree-move';
import { notUtf8Error } from './utf8-text';
import { gitFolderReason, protectedReason } from './workspace-paths';
import { WorkspaceReader } from './workspace-reader';
import { WorkspaceWalk, type Found } from './workspace-walk';
import { isWithin } from './path-case';

export type { EntryKind } from './found-entry';

export interface WorkspaceFilesOptions {
  /** Folders no write may touch even when they lie inside the workspace (the app's own data). */
  readonly protectedRoots?: readonly string[];
  /** How names are opened without following links; the platform's best by default, another in tests. */
  readonly access?: FolderAccess;
  readonly platform?: NamingPlatform;
}

/** A file opened for reading; the descriptor is closed when the callback returns. */
export interface OpenedFile {
  readonly fd: number;
  readonly relative: string;
  readonly size: number;
  /** Hard links to it: more than one means another name, perhaps outside the workspace, shares its content. */
  readonly links: number;
}

/** What a write did. */
export interface Replacement {
  readonly relative: string;
  readonly created: boolean;
  /** The old text ('' for a new file), or null when the old file was not UTF-8 text (replaced whole, see `replace`). */
  readonly before: string | null;
  readonly after: string;
  /** Hard links the replaced file had; its other names keep the old content. */
  readonly links: number;
}

/**
 * The workspace's files as the tools touch them: every path is walked from the root without
 * following links (see `WorkspaceWalk`), what was opened is checked to still be inside the
 * workspace, reads go through the opened descriptor, and writes go to a new file in the same
 * folder that is then renamed over the old one, so a hard or symbolic link at the name is
 * replaced, never written through.
 */
export class WorkspaceFiles {
  private readonly walk: WorkspaceWalk;
  private readonly access: FolderAccess;

  constructor(
    root: string,
    private readonly options: WorkspaceFilesOptions = {},
  ) {
    this.access = options.access ?? defaultFolderAccess();
    this.walk = new WorkspaceWalk(root, this.access, options.platform ?? currentNamingPlatform());
  }

  /**
   * Finds a path for one kind of use (see `WalkIntent`); refuses devices, pipes and sockets, and guards writes, removals and
   * restores from the trash. `putBack` puts a checkpoint's files back (a write or a removal the person asked for): a link at
   * the name is itself replaced or removed, never followed.
   */
  private find(requested: string, intent: 'read' | 'write' | 'remove' | 'restore' | 'putBack'): Found {
    let found: Found;
    try {
      found = this.walk.find(requested, { followLast: intent === 'read' || intent === 'write' });
    } catch (error) {
      throw failure(requested, error, 'opened');
    }
    try {
      const entry = found.entry;
      if (entry && !entry.isFile() && !entry.isDirectory() && !entry.isSymbolicLink())
        throw new PathRefusedError(requested, 'it is a device, pipe or socket, not a file or folder.');
      if (intent === 'write' || intent === 'remove' || intent === 'restore') this.guard(requested, found, protectedReason);
      // The person's own environment and key files come back with the rest; .git and the app's data never do.
      if (intent === 'putBack') this.guard(requested, found, gitFolderReason);
      return found;
    } catch (error) {
      this.access.close(found.folder);
      throw error;
    }
  }

  /** Refuses writes to the root, to protected names and into protected folders. */
  private guard(requested: string, found: Found, reasonFor: (relative: string) => string | null): void {
    if (found.relative === '.') throw new PathRefusedError(requested, 'the workspace folder itself cannot be replaced.');
    const reason = reasonFor(found.relative) ?? reasonFor(found.asWritten);
    if (reason) throw new PathRefusedError(requested, reason);
    const absolute = join(found.root, ...found.segments);
    for (const protectedRoot of this.options.protectedRoots ?? []) {
      // A protected folder that does not exist yet is compared as given (asked without a throw, which costs more than the call).
      const real = lstatSync(protectedRoot, { throwIfNoEntry: false }) ? realpathSync.native(protectedRoot) : protectedRoot;
      // By the file system's case rules: `.Data/x` is inside `.data` where case is ignored.
      if (isWithin(real, absolute)) throw new PathRefusedError(requested, "it is inside the app's own data folder.");
    }
  }

  /**
   * Where a path leads inside the workspace, as a write (or, `remove`, a removal) of it would find it: links inside
   * followed, relative to the root. Throws as that write or removal would, for a path that leaves the workspace or is
   * protected. Nothing stays open.
   */
  placeOf(requested: string, intent: 'write' | 'remove'): string {
    const found = this.find(requested, intent);
    this.access.close(found.folder);
    return found.relative;
  }

  /** What is at a path (links inside followed), after checking that it lies inside. Nothing stays open. */
  inspect(requested: string): { relative: string; kind: EntryKind } {
    const found = this.find(requested, 'read');
    try {
      const kind = kindOf(found);
      if (kind === 'directory' && found.name !== '') {
        const folder = this.access.openFolder(found.folder, found.name);
        try {
          checkFolder(this.access, requested, found, folder);
        } finally {
          this.access.close(folder);
        }
      } else checkFolder(this.access, requested, found, found.folder);
      return { relative: found.relative, kind };
    } catch (error) {
      throw failure(requested, error, 'read');
    } finally {
      this.access.close(found.folder);
    }
  }

  /** Opens a file for reading and hands its descriptor to `use`; folders, missing files and special files are refused. */
  async withFile<T>(requested: string, use: (file: OpenedFile) => Promise<T>): Promise<T> {
    const found = this.find(requested, 'read');
    try {
      if (!found.entry) throw new WorkbenchError('invalid_input', `${requested} does not exist.`);
      if (found.entry.isDirectory()) throw new WorkbenchError('invalid_input', `${requested} is a folder; use list_files.`);
      const opened = openPlainFile(this.access, requested, found);
      try {
        const where = this.access.whereIsFile(opened.fd, join(found.folder.absolute, found.name));
        WorkspaceWalk.checkInside(requested, found.root, where);
        return await use({ fd: opened.fd, relative: found.relative, size: opened.info.size, links: opened.info.nlink });
      } finally {
        closeSync(opened.fd);
      }
    } finally {
      this.access.close(found.folder);
    }
  }

  /**
   * The text of a file as a write would replace it, for previews: empty when missing, null when it
   * is not UTF-8 text or (`tooLarge`) has more than `maxBytes`, which are then not read.
   */
  currentText(
    requested: string,
    maxBytes = Number.POSITIVE_INFINITY,
  ): { relative: string; kind: EntryKind; text: string | null; size: number; tooLarge: boolean } {
    const found = this.find(requested, 'write');
    try {
      const kind = kindOf(found);
      if (kind === 'directory') throw new WorkbenchError('invalid_input', `${found.relative} is a folder, not a file.`);
      const old = kind === 'file' ? readFound(this.access, requested, found, maxBytes) : { text: '', size: 0, tooLarge: false };
      // Shown to the person before anything is written, so the folder it came from is checked first.
      checkFolder(this.access, requested, found, found.folder);
      return { relative: found.relative, kind, text: old.text, size: old.size, tooLarge: old.tooLarge };
    } catch (error) {
      throw failure(requested, error, 'read');
    } finally {
      this.access.close(found.folder);
    }
  }

  /**
   * Replaces a file's content with what `produce` makes of the old text (null when the file is
   * new), creating missing folders on the way. The new content goes to a temporary file in the
   * same folder (created exclusively, never through a link, with the old file's permission bits)
   * that is renamed over the name, so readers see the old or the new file whole, and a link at the
   * name is replaced rather than written through. When `produce` throws, nothing is created.
   * Setuid, setgid and sticky bits are not kept: the new file belongs to the app's user, and a
   * write(2) into the old file would have cleared them too.
   *
   * An old file that is not UTF-8 text is refused (`notUtf8Error`), since its decoded text would
   * have lost bytes, unless `replacesWhole` says the new content does not come from the old
   * (`produce` then gets '' and `before` is null).
   */
  replace(
    requested: string,
    produce: (before: string | null, relative: string) => string,
    options: { replacesWhole?: boolean } = {},
  ): Replacement {
    const found = this.find(requested, 'write');
    const opened: OpenFolder[] = [];
    try {
      if (found.entry?.isDirectory()) throw new WorkbenchError('invalid_input', `${requested} is a folder.`);
      const old = found.entry ? readFound(this.access, requested, found) : null;
      if (old && old.text === null && !options.replacesWhole) throw notUtf8Error(found.relative);
      const after = produce(old ? (old.text ?? '') : null, found.relative);
      const folder = makeFolders(this.access, found, opened);
      writeThenRename(this.access, requested, found, folder, Buffer.from(after, 'utf8'), old?.mode ?? null);
      return { relative: found.relative, created: old === null, before: old ? old.text : '', after, links: old?.links ?? 1 };
    } catch (error) {
      throw failure(requested, error, 'written');
    } finally {
      for (const folder of opened.reverse()) this.access.close(folder);
      this.access.close(found.folder);
    }
  }

  /**
   * Puts `data` at a path as a plain file with `mode`, as a restore of saved files does: missing
   * folders are made, the data goes through a temporary file renamed over the name, and a link at
   * the name is replaced (the saved state had a file there), while one on the way may only lead inside.
   */
  put(requested: string, data: Buffer, mode: number): { relative: string } {
    const found = this.find(requested, 'putBack');
    const opened: OpenFolder[] = [];
    try {
      if (found.entry?.isDirectory()) throw new WorkbenchError('invalid_input', `${requested} is a folder.`);
      writeThenRename(this.access, requested, found, makeFolders(this.access, found, opened), data, mode);
      return { relative: found.relative };
    } catch (error) {
      throw failure(requested, error, 'written');
    } finally {
      for (const folder of opened.reverse()) this.access.close(folder);
      this.access.close(found.folder);
    }
  }

  /**
   * Unlinks a plain file through its open folder, as a restore of saved files does (guarded as `put`);
   * false when nothing is there. A folder, or a link now at the name, is refused.
   */
  removeFile(requested: string): boolean {
    const found = this.find(requested, 'putBack');
    try {
      if (!found.entry) return false;
      if (!found.entry.isFile()) throw new PathRefusedError(requested, 'it is no longer a plain file.');
      checkFolder(this.access, requested, found, found.folder);
      unlinkSync(this.access.pathOf(found.folder, found.name));
      return true;
    } catch (error) {
      throw failure(requested, error, 'deleted');
    } finally {
      this.access.close(found.folder);
    }
  }

  /** Makes a folder and the missing ones above it (guarded as `put`); false when a folder is there already. */
  putFolder(requested: string): boolean {
    const found = this.find(requested, 'putBack');
    const opened: OpenFolder[] = [];
    try {
      // A link at the name is the person's: left as it is.
      if (found.entry?.isDirectory() || found.entry?.isSymbolicLink()) return false;
      if (found.entry) throw new PathRefusedError(requested, 'a file is in the way.');
      const folder = makeFolders(this.access, found, opened);
      checkFolder(this.access, requested, found, folder);
      mkdirSync(this.access.pathOf(folder, found.name));
      return true;
    } catch (error) {
      throw failure(requested, error, 'made');
    } finally {
      for (const folder of opened.reverse()) this.access.close(folder);
      this.access.close(found.folder);
    }
  }

  /** Removes a folder that is empty (guarded as `put`); false when it is gone or still holds something. */
  removeEmptyFolder(requested: string): boolean {
    const found = this.find(requested, 'putBack');
    try {
      if (!found.entry) return false;
      if (!found.entry.isDirectory()) throw new PathRefusedError(requested, 'it is no longer a folder.');
      checkFolder(this.access, requested, found, found.folder);
      rmdirSync(this.access.pathOf(found.folder, found.name));
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
      throw failure(requested, error, 'deleted');
    } finally {
      this.access.close(found.folder);
    }
  }

  /**
   * Moves an entry out of the workspace (a link itself, not what it leads to) to the path
   * `prepare` answers, renaming it through its open folder.
   */
  async moveOut(
    requested: string,
    prepare: (entry: { relative: string; absolute: string; directory: boolean }) => Promise<string>,
  ): Promise<{ relative: string; directory: boolean }> {
    const found = this.find(requested, 'remove');
    try {
      if (!found.entry) throw new WorkbenchError('invalid_input', `${requested} does not exist.`);
      checkFolder(this.access, requested, found, found.folder);
      const directory = found.entry.isDirectory();
      const destination = await prepare({ relative: found.relative, absolute: join(found.root, ...found.segments), directory });
      checkFolder(this.access, requested, found, found.folder);
      moveEntry(this.access, { folder: found.folder, name: found.name }, destination, 'out');
      return { relative: found.relative, directory };
    } catch (error) {
      throw failure(requested, error, 'deleted');
    } finally {
      this.access.close(found.folder);
    }
  }

  /** Puts an entry from outside back at a workspace path; false when something is there now. */
  moveIn(requested: string, from: string): boolean {
    const found = this.find(requested, 'restore');
    const opened: OpenFolder[] = [];
    try {
      if (found.entry) return false;
      const folder = makeFolders(this.access, found, opened);
      checkFolder(this.access, requested, found, folder);
      moveEntry(this.access, { folder, name: found.name }, from, 'in');
      return true;
    } catch (error) {
      throw failure(requested, error, 'restored');
    } finally {
      for (const folder of opened.reverse()) this.access.close(folder);
      this.access.close(found.folder);
    }
  }

  /** A reader for walks and searches that opens every folder and file from the root without following links. */
  reader(): WorkspaceReader {
    return new WorkspaceReader(this.walk.realRoot(), this.access);
  }
}
