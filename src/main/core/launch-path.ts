/*
 * Opens a path given to the app from outside: a folder opens its latest session (or a new one), an exported session is
 * imported.
 */

import { readFile, stat } from 'node:fs/promises';
import { basename, isAbsolute } from 'node:path';
import { limits, type Session } from '../../shared/domain';
import { InvalidInputError, WorkbenchError } from '../../shared/errors';
import { sessionFileSuffix } from '../../shared/session-export';
import type { WorkspaceInspector } from '../agent/ports/ports';
import type { SessionStore } from '../agent/ports/stores';
import type { Handlers } from '../ipc/router';
import { samePath } from '../workspace/path-case';

export interface LaunchPathDependencies {
  readonly store: SessionStore;
  readonly workspaces: WorkspaceInspector;
  /** The IPC handlers, so a session is created or imported exactly as the window would ask for it. */
  readonly handlers: Pick<Handlers, 'session:create' | 'session:import'>;
}

/**
 * Opens a path given to the app from outside (its command line, a file manager, the dock icon):
 * - a folder: its most recently changed session, or a new session in it when it has none. Opening a folder
 *   means "work on this project", like an editor opening one; a new session per launch would pile up empty
 *   ones, and **New session** is one click away;
 * - a file: an exported session (`….workbench-session.json`, or any `.json` the system handed over), imported
 *   as a new session with the checks every import has.
 * Anything else (a missing path, a relative one, another kind of file) is refused with a typed error before
 * anything is written; the messages leave the path out, as whoever shows them says which path it was.
 */
export async function openLaunchPath(path: string, deps: LaunchPathDependencies): Promise<Session> {
  if (!isAbsolute(path)) throw new InvalidInputError('Only an absolute path can be opened.');
  const info = await stat(path).catch(() => null);
  if (!info) throw new WorkbenchError('not_found', 'There is no file or folder there.');
  if (info.isDirectory()) {
    const folder = await deps.workspaces.resolveFolder(path);
    const latest = deps.store
      .list()
      // By the file system's case rules: a session of `/Users/me/WS` is one of `/Users/me/ws` where case is ignored.
      .filter((session) => session.workspacePath !== null && samePath(session.workspacePath, folder))
      .sort((a, b) => b.updatedAt - a.updatedAt)[0];
    return latest ?? (await deps.handlers['session:create']({ workspacePath: folder }));
  }
  const name = basename(path).toLowerCase();
  if (!info.isFile() || !name.endsWith('.json'))
    throw new InvalidInputError(`It is neither a folder nor an exported session (a file ending in ${sessionFileSuffix}).`);
  if (info.size > limits.importLength)
    throw new InvalidInputError(`It is larger than an exported session can be (${limits.importLength} bytes).`);
  const document = await readFile(path, 'utf8').catch((error: unknown) => {
    throw new InvalidInputError(`It could not be read: ${error instanceof Error ? error.message : String(error)}.`);
  });
  return deps.handlers['session:import']({ document });
}
