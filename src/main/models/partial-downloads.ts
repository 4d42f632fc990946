/*
 * The partial files of downloads, and the sidecar kept beside each so that a download resumes after a pause or a
 * restart of the app: both live in the models folder's `.partial` folder, never beside the models.
 */

import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeJsonAtomic } from './model-index';

/** What is kept beside a partial file, so that a download resumes after a pause or a restart of the app. */
const sidecarSchema = z.object({
  version: z.literal(1),
  id: z.string().min(1).max(100),
  name: z.string().max(200),
  url: z.string().url().max(2_048),
  fileName: z.string().regex(/^[\w.-]+\.gguf$/),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  checksum: z.enum(['catalogue', 'server', 'none']),
  totalBytes: z.number().int().positive().nullable(),
  etag: z.string().max(500).nullable(),
  receivedBytes: z.number().int().nonnegative(),
});
export type Sidecar = z.infer<typeof sidecarSchema>;

/** The `.partial` folder of a models folder: made when missing. */
export class PartialDownloads {
  readonly folder: string;

  constructor(modelsFolder: string) {
    this.folder = join(modelsFolder, '.partial');
    mkdirSync(this.folder, { recursive: true });
  }

  /** Every readable sidecar in the folder; damaged ones are passed over. */
  sidecars(): Sidecar[] {
    const found: Sidecar[] = [];
    for (const file of readdirSync(this.folder)) {
      if (!file.endsWith('.json')) continue;
      const sidecar = readSidecar(join(this.folder, file));
      if (sidecar) found.push(sidecar);
    }
    return found;
  }

  /** Where the bytes that arrived so far are. */
  partPath(sidecar: Sidecar): string {
    return join(this.folder, `${sidecar.fileName}.part`);
  }

  sidecarPath(sidecar: Sidecar): string {
    return join(this.folder, `${sidecar.fileName}.json`);
  }

  save(sidecar: Sidecar): void {
    writeJsonAtomic(this.sidecarPath(sidecar), sidecar);
  }

  /** Removes the partial file and its sidecar. */
  remove(sidecar: Sidecar): void {
    rmSync(this.partPath(sidecar), { force: true });
    rmSync(this.sidecarPath(sidecar), { force: true });
  }
}

function readSidecar(path: string): Sidecar | null {
  try {
    const parsed = sidecarSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
