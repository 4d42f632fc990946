import { cp, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { NotFoundError, WorkbenchError } from '../../shared/errors';
import { trashEntrySchema } from '../../shared/ipc/contract';

const manifestSchema = trashEntrySchema.extend({ version: z.literal(1) });
export type TrashEntry = z.infer<typeof manifestSchema>;

async function move(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  try {
    await rename(from, to);
  } catch (error) {
    // Across file systems a rename fails: copy, then remove the original once the copy is whole.
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await cp(from, to, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
    await rm(from, { recursive: true, force: true });
  }
}

/**
 * The app's trash: a deleted file or folder is moved under the data folder with a manifest that
 * says where it came from, so it can be put back.
 */
export class Trash {
  constructor(private readonly folder: string) {}

  async put(entry: { id: string; absolute: string; workspacePath: string; relativePath: string; now: number }): Promise<TrashEntry> {
    const info = await stat(entry.absolute);
    const target = join(this.folder, entry.id);
    const manifest: TrashEntry = {
      version: 1,
      id: entry.id,
      originalPath: entry.absolute,
      workspacePath: entry.workspacePath,
      relativePath: entry.relativePath,
      deletedAt: entry.now,
      directory: info.isDirectory(),
    };
    await mkdir(target, { recursive: true });
    await writeFile(join(target, 'manifest.json'), JSON.stringify(manifest));
    await move(entry.absolute, join(target, 'item'));
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

  /** Puts an entry back where it was; refuses when something else is there now. */
  async restore(id: string): Promise<TrashEntry> {
    const entry = (await this.list()).find((candidate) => candidate.id === id);
    if (!entry) throw new NotFoundError('Trash entry', id);
    try {
      await stat(entry.originalPath);
      throw new WorkbenchError('invalid_input', `${entry.relativePath} exists again; move it aside before restoring.`);
    } catch (error) {
      if (error instanceof WorkbenchError) throw error;
    }
    await move(join(this.folder, id, 'item'), entry.originalPath);
    await rm(join(this.folder, id), { recursive: true, force: true });
    return entry;
  }
}
