import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { BugError, NotFoundError, WorkbenchError } from '../../shared/errors';
import { trashEntrySchema } from '../../shared/ipc/contract';
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
   * which renames it via its opened folder; on failure nothing is left in the trash.
   */
  async put(files: WorkspaceFiles, requested: string, details: { id: string; workspacePath: string; now: number }): Promise<TrashEntry> {
    const target = join(this.folder, details.id);
    let manifest: TrashEntry | null = null;
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
    if (!files.moveIn(entry.relativePath, join(this.folder, id, 'item')))
      throw new WorkbenchError('invalid_input', `${entry.relativePath} exists again; move it aside before restoring.`);
    await rm(join(this.folder, id), { recursive: true, force: true });
    return entry;
  }
}
