/*
 * The app's trash: deleted files and folders kept under the data folder with where they came from, so they can be put
 * back.
 */

import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { BugError, NotFoundError, WorkbenchError } from '../../shared/errors';
import { trashEntrySchema } from '../../shared/ipc/contract';
import { PartialMoveError } from '../workspace/tree-move';
import { WorkspaceFiles } from '../workspace/workspace-files';

const manifestSchema = trashEntrySchema.extend({ version: z.literal(1) });
export type TrashEntry = z.infer<typeof manifestSchema>;

/**
 * The app's trash: a deleted file or folder is moved under the data folder with a manifest that
 * says where it came from, so it can be put back.
 */
export class Trash {
  constructor(
    private readonly folder: string,
    /** Folders a restore may not write into, as for the tools' writes (the app's data folder); the trash itself at least. */
    private readonly protectedRoots: readonly string[] = [folder],
  ) {}

  /**
   * Moves a workspace entry (a link itself, not what it leads to) into the trash through `files`,
   * which renames it via its opened folder; on failure nothing is left in the trash, except after a
   * copy across file systems whose removal stopped part way: then the entry, which holds everything,
   * is kept and the error says so.
   */
  async put(files: WorkspaceFiles, requested: string, details: { id: string; workspacePath: string; now: number }): Promise<TrashEntry> {
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
        await writeFile(join(target, 'manifest.json'), JSON.stringify(manifest));
        return join(target, 'item');
      });
    } catch (error) {
      const kept = written();
      if (error instanceof PartialMoveError && kept !== null) {
        throw new WorkbenchError(
          'invalid_state',
          `${kept.relativePath} was only partly deleted: it was copied whole to the trash (entry ${details.id}), but not all of it could be removed from the workspace (${error.reason}). What is left is still in the workspace; the trash entry keeps the complete copy.`,
          { cause: error },
        );
      }
      await rm(target, { recursive: true, force: true });
      throw error;
    }
    if (manifest === null) throw new BugError('The trash entry was moved without a manifest.');
    return manifest;
  }

  async list(): Promise<TrashEntry[]> {
    let names: string[];
    try {
      names = await readdir(this.folder);
    } catch {
      return [];
    }
    const entries: TrashEntry[] = [];
    for (const name of names) {
      try {
        entries.push(manifestSchema.parse(JSON.parse(await readFile(join(this.folder, name, 'manifest.json'), 'utf8'))));
      } catch {
        // A folder without a readable manifest is not an entry.
      }
    }
    return entries.sort((a, b) => b.deletedAt - a.deletedAt);
  }

  /**
   * Puts an entry back where it was, through the workspace walk (so a link swapped in on the way
   * cannot send it elsewhere) and with the checks a write gets (no .git, no protected folder, even
   * reached through a link inside); refuses when something else is there now.
   */
  async restore(id: string): Promise<TrashEntry> {
    const entry = (await this.list()).find((candidate) => candidate.id === id);
    if (!entry) throw new NotFoundError('Trash entry', id);
    const files = new WorkspaceFiles(entry.workspacePath, { protectedRoots: this.protectedRoots });
    let restored: boolean;
    try {
      restored = files.moveIn(entry.relativePath, join(this.folder, id, 'item'));
    } catch (error) {
      // Copied back whole across file systems; what is left of the trash copy goes with the entry below.
      if (!(error instanceof PartialMoveError)) throw error;
      restored = true;
    }
    if (!restored) throw new WorkbenchError('invalid_input', `${entry.relativePath} exists again; move it aside before restoring.`);
    await rm(join(this.folder, id), { recursive: true, force: true });
    return entry;
  }
}
