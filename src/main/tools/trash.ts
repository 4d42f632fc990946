/*
 * The app's trash: deleted files and folders kept under the data folder with where they came from, so they can be put
 * back; sealed at rest where the database is encrypted.
 */

import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { BugError, NotFoundError, WorkbenchError, toErrorInfo, type ErrorInfo } from '../../shared/errors';
import { trashEntrySchema } from '../../shared/ipc/trash-channels';
import { isSealed, type AtRestSeal } from '../secrets/at-rest-seal';
import { PartialMoveError } from '../workspace/tree-move';
import { WorkspaceFiles } from '../workspace/workspace-files';
import { entryParts, isSealedWhole, openContents, removeTree, replaceDurably, sealContents } from './trash-seal';

const manifestSchema = trashEntrySchema.extend({ version: z.literal(1) });
export type TrashEntry = z.infer<typeof manifestSchema>;
/** An entry whose manifest does not open: sealed with another key, or changed since. */
export interface UnreadableTrashEntry {
  readonly id: string;
  readonly error: ErrorInfo;
}
const manifestName = 'manifest.json';

/**
 * The app's trash: a deleted file or folder is moved under the data folder with a manifest that
 * says where it came from, so it can be put back. With a seal (an encrypted database) the manifest
 * and every file of the entry are sealed (see `trash-seal.ts`); without one they are kept as they were.
 */
export class Trash {
  /** What runs on each entry, so that a put, a restore and the sealing of the start never work on one entry at once. */
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    private readonly folder: string,
    /** Folders a restore may not write into, as for the tools' writes (the app's data folder); the trash itself at least. */
    private readonly protectedRoots: readonly string[] = [folder],
    /** Seals entries at rest; null keeps them plain (a plain database, which has no key). */
    private readonly seal: AtRestSeal | null = null,
  ) {}

  /**
   * Moves a workspace entry (a link itself, not what it leads to) into the trash through `files`,
   * which renames it via its opened folder; on failure nothing is left in the trash, except after a
   * copy across file systems whose removal stopped part way: then the entry, which holds everything,
   * is kept and the error says so.
   */
  put(files: WorkspaceFiles, requested: string, details: { id: string; workspacePath: string; now: number }): Promise<TrashEntry> {
    return this.exclusive(details.id, () => this.putNow(files, requested, details));
  }

  private async putNow(
    files: WorkspaceFiles,
    requested: string,
    details: { id: string; workspacePath: string; now: number },
  ): Promise<TrashEntry> {
    const target = join(this.folder, details.id);
    let manifest: TrashEntry | null = null;
    // Set inside the callback, which the compiler's narrowing does not see.
    const written = (): TrashEntry | null => manifest;
    try {
      await files.moveOut(requested, async (entry) => {
        manifest = {
          version: 1,
          id: details.id,
          originalPath: entry.absolute,
          workspacePath: details.workspacePath,
          relativePath: entry.relative,
          deletedAt: details.now,
          directory: entry.directory,
        };
        await mkdir(target, { recursive: true });
        const text = Buffer.from(JSON.stringify(manifest));
        await writeFile(join(target, manifestName), this.seal ? this.seal.seal(text) : text);
        return join(target, entryParts.item);
      });
    } catch (error) {
      const kept = written();
      if (error instanceof PartialMoveError && kept !== null) {
        await this.sealQuietly(details.id);
        throw new WorkbenchError(
          'invalid_state',
          `${kept.relativePath} was only partly deleted: it was copied whole to the trash (entry ${details.id}), but not all of it could be removed from the workspace (${error.reason}). What is left is still in the workspace; the trash entry keeps the complete copy.`,
          { cause: error },
        );
      }
      await removeTree(target);
      throw error;
    }
    if (manifest === null) throw new BugError('The trash entry was moved without a manifest.');
    await this.sealQuietly(details.id);
    return manifest;
  }

  /**
   * Seals an entry's contents; where that fails (a file the app cannot read, a full disk) the entry stays plain and
   * whole, restorable as it is, and the next start tries again.
   */
  private async sealQuietly(id: string): Promise<void> {
    if (!this.seal) return;
    try {
      await sealContents(join(this.folder, id), id, this.seal);
    } catch (error) {
      console.error(`The trash entry ${id} could not be sealed; it stays as it was and is sealed at the next start:`, error);
    }
  }

  /** The entries, newest first, then those whose manifest does not open (each with why). */
  async list(): Promise<Array<TrashEntry | UnreadableTrashEntry>> {
    const entries: TrashEntry[] = [];
    const unreadable: UnreadableTrashEntry[] = [];
    for (const name of await this.names()) {
      try {
        const entry = await this.read(name);
        if (entry) entries.push(entry);
      } catch (error) {
        unreadable.push({ id: name, error: toErrorInfo(error) });
      }
    }
    return [...entries.sort((a, b) => b.deletedAt - a.deletedAt), ...unreadable.sort((a, b) => a.id.localeCompare(b.id))];
  }

  private async names(): Promise<string[]> {
    try {
      return await readdir(this.folder);
    } catch {
      return [];
    }
  }

  /**
   * The manifest of the entry `id`: null where there is none that reads as one (not an entry); throws `invalid_state`
   * where it is sealed and does not open, or was made for another entry.
   */
  private async read(id: string): Promise<TrashEntry | null> {
    let bytes: Buffer;
    try {
      bytes = await readFile(join(this.folder, id, manifestName));
    } catch {
      return null;
    }
    let text: string;
    if (isSealed(bytes)) {
      if (!this.seal)
        throw new WorkbenchError('invalid_state', `Trash entry ${id} is sealed with the database's key, which this start cannot read.`);
      try {
        text = this.seal.open(bytes).toString('utf8');
      } catch (error) {
        throw new WorkbenchError(
          'invalid_state',
          `Trash entry ${id} does not open: it was sealed with another key, or changed since. It is kept as it is.`,
          { cause: error },
        );
      }
    } else text = bytes.toString('utf8');
    let parsed: TrashEntry;
    try {
      parsed = manifestSchema.parse(JSON.parse(text));
    } catch {
      // A folder without a readable manifest is not an entry.
      return null;
    }
    if (parsed.id !== id)
      throw new WorkbenchError('invalid_state', `Trash entry ${id} holds the manifest of another entry. It is kept as it is.`);
    return parsed;
  }

  /**
   * Puts an entry back where it was, through the workspace walk (so a link swapped in on the way
   * cannot send it elsewhere) and with the checks a write gets (no .git, no protected folder, even
   * reached through a link inside); refuses when something else is there now.
   */
  restore(id: string): Promise<TrashEntry> {
    return this.exclusive(id, () => this.restoreNow(id));
  }

  private async restoreNow(id: string): Promise<TrashEntry> {
    const entry = (await this.names()).includes(id) ? await this.read(id) : null;
    if (!entry) throw new NotFoundError('Trash entry', id);
    const folder = join(this.folder, id);
    const from = (await isSealedWhole(folder)) ? await this.opened(entry) : join(folder, entryParts.item);
    const files = new WorkspaceFiles(entry.workspacePath, { protectedRoots: this.protectedRoots });
    let restored: boolean;
    try {
      restored = files.moveIn(entry.relativePath, from);
    } catch (error) {
      // Copied back whole across file systems; what is left of the trash copy goes with the entry below.
      if (!(error instanceof PartialMoveError)) throw error;
      restored = true;
    } finally {
      // A staging not moved in holds plain what the entry holds sealed.
      if (from !== join(folder, entryParts.item)) await removeTree(from);
    }
    if (!restored) throw new WorkbenchError('invalid_input', `${entry.relativePath} exists again; move it aside before restoring.`);
    await removeTree(folder);
    return entry;
  }

  /** The sealed entry opened whole into its staging, or a typed error that changed nothing. */
  private async opened(entry: TrashEntry): Promise<string> {
    if (!this.seal)
      throw new WorkbenchError(
        'invalid_state',
        `${entry.relativePath} is sealed in the trash with the database's key, which this start cannot read.`,
      );
    try {
      return await openContents(join(this.folder, entry.id), entry.id, this.seal);
    } catch (error) {
      throw new WorkbenchError(
        'invalid_state',
        `${entry.relativePath} does not open from the trash (entry ${entry.id}): ${toErrorInfo(error).message.replace(/\.?$/, '.')} Nothing was restored or removed.`,
        { cause: error },
      );
    }
  }

  /**
   * Brings every entry to how this start keeps them: a restore's staging left by a stop is removed, and with a seal
   * every plain entry (made before the database was encrypted, or whose sealing stopped) is sealed, its manifest too.
   * An entry that cannot be sealed stays as it is, restorable, and is tried again at the next start.
   */
  async sealPending(): Promise<void> {
    for (const id of await this.names()) {
      await this.exclusive(id, async () => {
        const folder = join(this.folder, id);
        await removeTree(join(folder, entryParts.restoring));
        if (!this.seal) return;
        try {
          const manifest = await readFile(join(folder, manifestName));
          if (!isSealed(manifest)) await replaceDurably(join(folder, manifestName), this.seal.seal(manifest));
        } catch (error) {
          console.error(`The manifest of trash entry ${id} could not be sealed:`, error);
          return;
        }
        await this.sealQuietly(id);
      }).catch((error: unknown) => console.error(`Trash entry ${id} could not be brought up to date:`, error));
    }
  }

  private exclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
    const result = (this.running.get(id) ?? Promise.resolve()).catch(() => undefined).then(work);
    const settled = result.catch(() => undefined);
    this.running.set(id, settled);
    void settled.then(() => {
      if (this.running.get(id) === settled) this.running.delete(id);
    });
    return result;
  }
}
