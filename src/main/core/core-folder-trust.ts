/*
 * Folder trust in the core (`openFolderTrust`): the trust file the person's decisions are kept in, and the folder a
 * worktree the app made stands for where trust is asked.
 */

import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BoundedMap } from '../../shared/bounded-map';
import type { Clock } from '../agent/ports/clock';
import type { SessionStore } from '../agent/ports/stores';
import { worktreeStateOf } from '../agent/session/session-worktrees';
import { FolderTrustStore } from '../workspace/folder-trust-store';
import { isWithin, pathKey, samePath } from '../workspace/path-case';
import type { CoreOptions } from './core-options';

/** The person's trust in folders, kept in the data folder's trust file; null when every folder is trusted (`trust_all`). */
export function openFolderTrust(options: CoreOptions, clock: Clock, store: SessionStore): FolderTrustStore | null {
  return options.folderTrust === 'trust_all'
    ? null
    : new FolderTrustStore(
        join(options.dataDir, 'folder-trust.json'),
        () => clock.now(),
        worktreeOrigins(store, worktreesFolder(options)),
        // Where others make folders: anyone (the temporary folder, the folder of every person's home), or the app.
        [tmpdir(), dirname(homedir()), options.dataDir, worktreesFolder(options)],
      );
}

/** Where the app makes worktrees: beside the data folder, not in it (the tools never write into the app's data). */
export const worktreesFolder = (options: CoreOptions): string => options.worktreesDir ?? `${options.dataDir}-worktrees`;

/**
 * The folder a workspace stands for where trust is asked: a worktree the app made (for a session or a sub-agent) stands
 * for the folder it was made from, so it is trusted as that folder is; any other folder stands for itself.
 */
function worktreeOrigins(store: SessionStore, worktreesDir: string): (workspacePath: string) => string {
  const origins = new BoundedMap<string, string>({ max: 256 });
  return (workspacePath) => {
    if (!isWithin(worktreesDir, workspacePath)) return workspacePath;
    const key = pathKey(workspacePath);
    const known = origins.get(key);
    if (known !== undefined) return known;
    // The sessions and their sub-agents (a writing sub-agent's worktree is its own session's folder), breadth first.
    const queue = store.list();
    for (let seen = 0; seen < queue.length && seen < 10_000; seen += 1) {
      const session = queue[seen];
      if (!session) break;
      const made =
        session.workspacePath !== null && samePath(session.workspacePath, workspacePath) ? worktreeStateOf(store, session.id) : null;
      if (made) {
        origins.set(key, made.worktree.mainPath);
        return made.worktree.mainPath;
      }
      queue.push(...store.subAgents(session.id));
    }
    return workspacePath;
  };
}
