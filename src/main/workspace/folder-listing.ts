/*
 * One folder of a workspace listed for the Files panel, without following links out of it.
 */

import { join } from 'node:path';
import { WorkbenchError } from '../../shared/errors';
import { walk } from './file-walk';
import { WorkspaceFiles } from './workspace-files';

/** One name of a listed folder. */
export interface ListedEntry {
  readonly path: string;
  readonly name: string;
  readonly directory: boolean;
}

/**
 * One folder of a workspace as the Files panel shows it: folders first, then files, each by name, at most 2,000 names.
 * Walked as the list tool walks, each name opened from the root without following a link, so a folder swapped for a
 * link while it is listed cannot show names from outside. A path that is not a folder of the workspace is refused.
 */
export async function listFolder(workspacePath: string, path: string): Promise<{ entries: ListedEntry[]; truncated: boolean }> {
  const files = new WorkspaceFiles(workspacePath);
  const folder = files.inspect(path);
  if (folder.kind !== 'directory') throw new WorkbenchError('invalid_input', `${path} is not a folder of the workspace.`);
  const reader = files.reader();
  let walked: Awaited<ReturnType<typeof walk>>;
  try {
    const start = folder.relative === '.' ? reader.root : join(reader.root, folder.relative);
    walked = await walk({ start, root: reader.root, reader, maxEntries: 2_000, maxDepth: 0 });
  } finally {
    reader.close();
  }
  const listed = walked.entries.map((entry) => {
    const entryPath = entry.directory ? entry.path.slice(0, -1) : entry.path;
    return { path: entryPath, name: entryPath.split('/').at(-1) ?? entryPath, directory: entry.directory };
  });
  listed.sort((a, b) => (a.directory === b.directory ? a.name.localeCompare(b.name) : a.directory ? -1 : 1));
  return { entries: listed, truncated: walked.truncated };
}
