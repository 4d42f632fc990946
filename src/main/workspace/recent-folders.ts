/*
 * The folders of the latest sessions, offered when a session is set up, each marked when it is gone.
 */

import type { Session } from '../../shared/domain';
import type { RecentFolder } from '../../shared/ipc/contract';

/** How many folders the setup offers from before. */
const recentLimit = 3;

/**
 * The folders of the latest sessions, newest first and once each, with whether each is still a folder: one moved or
 * deleted since is said to be gone rather than offered, as picking it would fail.
 */
export async function recentFolders(
  sessions: readonly Session[],
  resolveFolder: (path: string) => Promise<string>,
): Promise<RecentFolder[]> {
  const paths = [
    ...new Set(
      [...sessions]
        .sort((a, b) => b.updatedAt - a.updatedAt)
        .flatMap((session) => (session.workspacePath === null ? [] : [session.workspacePath])),
    ),
  ].slice(0, recentLimit);
  return Promise.all(
    paths.map(async (path) => ({
      path,
      exists: await resolveFolder(path).then(
        () => true,
        () => false,
      ),
    })),
  );
}
