/*
 * A workspace file for the read-only preview, and the files whose path holds what the person types after `@`.
 */

import { attachmentImageLimitBytes, attachmentTextLimitBytes, imageTypeOf, type FilePeek } from '../../shared/attachments';
import { WorkbenchError } from '../../shared/errors';
import { looksBinaryFd, readAllSync } from './fd-read';
import { walk, type FolderReader } from './file-walk';
import { losslessText } from './utf8-text';
import type { WorkspaceFiles } from './workspace-files';

/** How many entries a find walks at most, and for how long, so a huge tree answers in time and the composer stays quick. */
export const findLimits = { walkedEntries: 50_000, timeMs: 1_500 } as const;

/** How long a find reads before it lets other work run. */
const yieldEveryMs = 10;

/**
 * A file of the workspace for the read-only preview: its text (at most the attachment limit), an image, or why it is
 * not shown. Read through the link-safe reader, so a path that leaves the workspace is refused.
 */
export async function peekFile(files: WorkspaceFiles, path: string): Promise<FilePeek> {
  const found = files.inspect(path);
  if (found.kind === 'missing') throw new WorkbenchError('not_found', `${path} does not exist in the workspace.`);
  if (found.kind === 'directory') throw new WorkbenchError('invalid_input', `${path} is a folder.`);
  return files.withFile(path, async (file) => {
    const base = { path: file.relative, size: file.size };
    const mediaType = imageTypeOf(file.relative);
    if (mediaType) {
      if (file.size > attachmentImageLimitBytes) return { ...base, content: { kind: 'too_large', limit: attachmentImageLimitBytes } };
      return { ...base, content: { kind: 'image', mediaType, data: readAllSync(file.fd, attachmentImageLimitBytes).toString('base64') } };
    }
    if (looksBinaryFd(file.fd)) return { ...base, content: { kind: 'binary' } };
    if (file.size > attachmentTextLimitBytes) return { ...base, content: { kind: 'too_large', limit: attachmentTextLimitBytes } };
    const text = losslessText(readAllSync(file.fd, attachmentTextLimitBytes));
    return { ...base, content: text === null ? { kind: 'binary' } : { kind: 'text', text } };
  });
}

/** How well a path matches a typed fragment: lower is better, null when it does not match. */
function rank(path: string, query: string): number | null {
  const lower = path.toLowerCase();
  const name = lower.slice(lower.lastIndexOf('/') + 1);
  if (query === '') return path.split('/').length;
  if (lower.startsWith(query)) return 0;
  if (name.startsWith(query)) return 1;
  if (name.includes(query)) return 2;
  if (lower.includes(query)) return 3;
  return null;
}

/**
 * Files and folders of the workspace whose path holds `query` (case-insensitive), ignored files left out as the file
 * tree leaves them out; paths starting with it first, then names starting with it, then any place. The walk is bounded
 * in entries and time, and says when it stopped early.
 */
export async function findInWorkspace(
  files: WorkspaceFiles,
  query: string,
  limit: number,
): Promise<{ entries: Array<{ path: string; directory: boolean }>; truncated: boolean }> {
  const reader = files.reader();
  let walked: Awaited<ReturnType<typeof walk>>;
  // The reads are synchronous: the walk checks the time itself (a timer would never get to fire) and lets the rest
  // of the main process run every few milliseconds.
  const stop = new AbortController();
  const signal = stop.signal;
  const deadline = performance.now() + findLimits.timeMs;
  let since = performance.now();
  const paced: FolderReader = {
    list: async (relative) => {
      if (performance.now() > deadline) stop.abort();
      if (performance.now() - since > yieldEveryMs) {
        await new Promise((resume) => setImmediate(resume));
        since = performance.now();
      }
      return reader.list(relative);
    },
    readText: (relative) => reader.readText(relative),
  };
  try {
    walked = await walk({ start: reader.root, root: reader.root, reader: paced, maxEntries: findLimits.walkedEntries, signal });
  } finally {
    reader.close();
  }
  const wanted = query.trim().toLowerCase().replace(/^\.\//, '');
  const matches: Array<{ path: string; directory: boolean; rank: number }> = [];
  for (const entry of walked.entries) {
    const path = entry.directory ? entry.path.slice(0, -1) : entry.path;
    const score = rank(path, wanted);
    if (score !== null) matches.push({ path, directory: entry.directory, rank: score });
  }
  matches.sort((a, b) => a.rank - b.rank || a.path.length - b.path.length || a.path.localeCompare(b.path));
  return {
    entries: matches.slice(0, limit).map(({ path, directory }) => ({ path, directory })),
    truncated: walked.truncated || signal.aborted || matches.length > limit,
  };
}
