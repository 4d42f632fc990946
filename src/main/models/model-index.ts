/*
 * The model library's index file: read with any damage reported, and written whole so a crash never leaves half of one.
 */

import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { localModelSchema, type LocalModel } from '../../shared/local-models';

/** The library's index file, versioned. */
const indexSchema = z.object({
  version: z.literal(1),
  models: z.array(localModelSchema).max(10_000),
});

/** What reading the index found: its models, or that it was missing or could not be read (and why). */
export type IndexRead = { readonly models: LocalModel[]; readonly problem: string | null };

/** Reads the index; a missing file is an empty library, a damaged one is said so (the caller rebuilds what it can). */
export function readIndex(path: string): IndexRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { models: [], problem: null };
    return { models: [], problem: error instanceof Error ? error.message : String(error) };
  }
  try {
    const parsed = indexSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { models: parsed.data.models, problem: null };
    return { models: [], problem: 'its contents are not a model index' };
  } catch {
    return { models: [], problem: 'it is not valid JSON' };
  }
}

/**
 * Writes the index whole to a temporary file beside it, flushed to disk, then renamed over it: a crash or a full disk
 * in the middle leaves the previous index as it was, never half of a new one.
 */
export function writeIndex(path: string, models: readonly LocalModel[]): void {
  writeJsonAtomic(path, { version: 1, models });
}

/** Writes JSON to a temporary file beside `path`, flushed, then renamed over it. */
export function writeJsonAtomic(path: string, value: unknown): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const text = `${JSON.stringify(value, null, 2)}\n`;
  try {
    const fd = openSync(temporary, 'w');
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
