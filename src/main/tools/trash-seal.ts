/*
 * The contents of a trash entry sealed at rest (where the database is encrypted): each file's bytes sealed apart, a
 * chunk at a time, and the entry's tree (names, folders, links, modes) in one sealed index; and opened back.
 */

import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, readFile, readdir, readlink, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { WorkbenchError } from '../../shared/errors';
import type { AtRestSeal } from '../secrets/at-rest-seal';

/** The parts of an entry's folder: the tree as moved in, the sealed files, the sealed index, and a restore's staging. */
export const entryParts = {
  /** The entry as it was moved out of the workspace, in plain; gone once the index is written. */
  item: 'item',
  /** One sealed file per regular file of the item, named by number. */
  blobs: 'blobs',
  /** The sealed index of the item's tree; its presence means the entry is sealed whole. */
  contents: 'contents',
  /** Where a restore opens a sealed entry before moving it into the workspace; left only by a stop part way. */
  restoring: 'restoring',
} as const;

const nameSchema = z
  .string()
  .min(1)
  .refine((name) => name !== '.' && name !== '..' && !/[/\\\0]/.test(name), 'not a file name');

type ContentNode =
  | { kind: 'file'; mode: number; mtimeMs: number; blob: string; tag: string }
  | { kind: 'folder'; mode: number; mtimeMs: number; children: Array<[string, ContentNode]> }
  | { kind: 'link'; target: string };

const modeSchema = z.number().int().min(0).max(0o777);
const nodeSchema: z.ZodType<ContentNode> = z.lazy(() =>
  z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('file'),
      mode: modeSchema,
      mtimeMs: z.number(),
      blob: z.string().regex(/^\d+$/),
      tag: z.string().regex(/^[0-9a-f]{32}$/),
    }),
    z.object({ kind: z.literal('folder'), mode: modeSchema, mtimeMs: z.number(), children: z.array(z.tuple([nameSchema, nodeSchema])) }),
    z.object({ kind: z.literal('link'), target: z.string().min(1) }),
  ]),
);
const contentsSchema = z.object({ version: z.literal(1), id: z.string(), root: nodeSchema });

const readFlags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

/** Flushes a folder's names to disk (where the system can: not on Windows). */
async function syncFolder(path: string): Promise<void> {
  if (process.platform === 'win32') return;
  const folder = await open(path, constants.O_RDONLY);
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/** Writes a file whole or not at all: to a temporary name, flushed, then renamed over `path`. */
export async function replaceDurably(path: string, data: Buffer): Promise<void> {
  const partial = `${path}.partial`;
  await writeFile(partial, data, { mode: 0o600 });
  const handle = await open(partial, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(partial, path);
}

/** Removes a tree the app made, read-only folders in it too (a deleted folder keeps its modes). */
export async function removeTree(path: string): Promise<void> {
  const info = await lstat(path).catch(() => null);
  if (!info) return;
  if (info.isDirectory()) {
    await chmod(path, 0o700);
    for (const name of await readdir(path)) await removeTree(join(path, name));
  }
  await rm(path, { recursive: true, force: true });
}

/** Seals one entry of the item's tree into `blobs`, numbering files from `counter`; null for what holds no content. */
async function sealNode(path: string, blobs: string, counter: { next: number }, seal: AtRestSeal): Promise<ContentNode | null> {
  const info = await lstat(path);
  if (info.isSymbolicLink()) return { kind: 'link', target: await readlink(path) };
  if (info.isDirectory()) {
    const children: Array<[string, ContentNode]> = [];
    for (const name of (await readdir(path)).sort()) {
      const child = await sealNode(join(path, name), blobs, counter, seal);
      if (child) children.push([name, child]);
    }
    return { kind: 'folder', mode: info.mode & 0o777, mtimeMs: info.mtimeMs, children };
  }
  // Devices, pipes and sockets hold no content; a move across file systems leaves them out too.
  if (!info.isFile()) return null;
  const blob = String(counter.next++);
  const from = await open(path, readFlags);
  try {
    const opened = await from.stat();
    const to = await open(join(blobs, blob), 'wx', 0o600);
    let tag: string;
    try {
      tag = await seal.sealFile(from, to);
      await to.sync();
    } finally {
      await to.close();
    }
    // Permission bits as a copy keeps them: not setuid, setgid or sticky.
    return { kind: 'file', mode: opened.mode & 0o777, mtimeMs: opened.mtimeMs, blob, tag };
  } finally {
    await from.close();
  }
}

/**
 * Seals the item of the entry in `folder`: every regular file into `blobs`, then the index, then the plain item goes.
 * Until the index is in place the item is whole (a stop part way leaves a plain entry, sealed again from the start);
 * once it is, the blobs are whole and flushed, and what is left of the item is only removed.
 */
export async function sealContents(folder: string, id: string, seal: AtRestSeal): Promise<void> {
  const item = join(folder, entryParts.item);
  const contents = join(folder, entryParts.contents);
  if (!(await lstat(contents).catch(() => null))) {
    if (!(await lstat(item).catch(() => null))) return;
    const blobs = join(folder, entryParts.blobs);
    await removeTree(blobs);
    await mkdir(blobs, { mode: 0o700 });
    const root = await sealNode(item, blobs, { next: 0 }, seal);
    if (!root) return;
    await syncFolder(blobs);
    await replaceDurably(contents, seal.seal(Buffer.from(JSON.stringify({ version: 1, id, root }))));
    await syncFolder(folder);
  }
  await removeTree(item);
}

/** Whether the entry in `folder` is sealed whole (its index written). */
export async function isSealedWhole(folder: string): Promise<boolean> {
  return (await lstat(join(folder, entryParts.contents)).catch(() => null)) !== null;
}

/** Opens one node of the index at `path`, files from their blobs, checked against the tags the index recorded. */
async function openNode(node: ContentNode, path: string, blobs: string, seal: AtRestSeal): Promise<void> {
  switch (node.kind) {
    case 'link':
      await symlink(node.target, path);
      return;
    case 'file': {
      const from = await open(join(blobs, node.blob), readFlags);
      try {
        const to = await open(path, 'wx', 0o600);
        try {
          const tag = await seal.openFile(from, to);
          if (tag !== node.tag) throw new WorkbenchError('invalid_state', 'A sealed file of the entry was swapped for another.');
          // The entry goes once its contents are back: they must be on disk by then.
          await to.sync();
        } finally {
          await to.close();
        }
      } finally {
        await from.close();
      }
      await chmod(path, node.mode);
      await utimes(path, new Date(), node.mtimeMs / 1000);
      return;
    }
    case 'folder':
      await mkdir(path, { mode: 0o700 });
      for (const [name, child] of node.children) await openNode(child, join(path, name), blobs, seal);
      // Last, as a read-only folder could not be filled after.
      await chmod(path, node.mode);
      await utimes(path, new Date(), node.mtimeMs / 1000);
      return;
    default: {
      const never: never = node;
      throw new Error(`Unknown node ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Opens the sealed entry in `folder` into its `restoring` staging, whole and checked: the exact bytes, permission bits
 * and modification times, links as links. Answers the staging's path. Throws `invalid_state` when the index or a file
 * does not open (another key, changed bytes, a file swapped); the staging is then removed and the entry left as it is.
 */
export async function openContents(folder: string, id: string, seal: AtRestSeal): Promise<string> {
  const staging = join(folder, entryParts.restoring);
  await removeTree(staging);
  try {
    const parsed = contentsSchema.safeParse(JSON.parse(seal.open(await readFile(join(folder, entryParts.contents))).toString('utf8')));
    if (!parsed.success || parsed.data.id !== id)
      throw new WorkbenchError('invalid_state', 'The index of the entry is not the one it was sealed with.');
    await openNode(parsed.data.root, staging, join(folder, entryParts.blobs), seal);
    return staging;
  } catch (error) {
    await removeTree(staging);
    throw error;
  }
}
