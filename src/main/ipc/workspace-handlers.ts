/*
 * The IPC handlers of a session's workspace folder (the Files panel, file search and previews, picking a folder,
 * recent folders, the person's `/` commands) and of the trash.
 */

import { NotFoundError, WorkbenchError } from '../../shared/errors';
import type { WorkspaceInspector } from '../agent/ports/ports';
import type { SessionStore } from '../agent/ports/stores';
import type { SessionRuntime } from '../agent/session/session-runtime';
import type { Trash, TrashEntry } from '../tools/trash';
import { loadCustomCommands } from '../workspace/command-files';
import { listFolder } from '../workspace/folder-listing';
import { recentFolders } from '../workspace/recent-folders';
import { findInWorkspace, peekFile } from '../workspace/workspace-peek';
import { WorkspaceFiles } from '../workspace/workspace-files';
import type { ChosenPaths } from './chosen-paths';
import { isRestricted, type FolderTrustSource } from '../agent/ports/folder-trust';
import type { Handlers } from './router';
import { knownWorkspaces } from './session-handlers';

type WorkspaceChannel =
  | 'workspace:set'
  | 'workspace:list'
  | 'workspace:find'
  | 'workspace:read'
  | 'commands:list'
  | 'workspace:pick'
  | 'workspace:recent'
  | 'trash:list'
  | 'trash:restore';

/** Asks the person for a folder, or a model file (native dialogs in the app). Resolves null when they cancel. */
export interface FolderPicker {
  pickFolder(): Promise<string | null>;
  /** A GGUF model file; where the host has no file dialog, the person cannot pick one. */
  pickFile?(): Promise<string | null>;
}

export interface WorkspaceHandlerDependencies {
  readonly store: SessionStore;
  readonly runtime: SessionRuntime;
  readonly workspaces: WorkspaceInspector;
  readonly folderPicker: FolderPicker;
  readonly trash: Trash;
  /** The app's data folder, whose `commands` folder holds the person's commands for every workspace. */
  readonly dataDir: string;
  /** The paths the person chose: a workspace the window names must be one, or a session's already. */
  readonly chosenPaths: ChosenPaths;
  /** The person's trust in folders: a folder not trusted offers none of its own commands. None: every folder is trusted. */
  readonly folderTrust?: FolderTrustSource | null;
}

/** A trash entry as the window gets it: without the manifest's version. */
function withoutVersion({ version: _version, ...entry }: TrashEntry): Omit<TrashEntry, 'version'> {
  return entry;
}

/** The handlers of a session's workspace folder (the Files panel, the file picker, recent folders) and of the trash. */
export function workspaceHandlers(deps: WorkspaceHandlerDependencies): Pick<Handlers, WorkspaceChannel> {
  const { store, runtime } = deps;
  const workspaceOf = (sessionId: string): string => {
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    if (session.workspacePath === null) throw new WorkbenchError('no_workspace', 'This session has no workspace folder yet.');
    return session.workspacePath;
  };
  return {
    'workspace:set': (input) => {
      deps.chosenPaths.require(input.path, 'folder', knownWorkspaces(store));
      return runtime.sessions.setWorkspace(input.sessionId, input.path);
    },
    'workspace:list': (input) => listFolder(workspaceOf(input.sessionId), input.path),
    'workspace:find': (input) => findInWorkspace(new WorkspaceFiles(workspaceOf(input.sessionId)), input.query, input.limit),
    'workspace:read': (input) => peekFile(new WorkspaceFiles(workspaceOf(input.sessionId)), input.path),
    'commands:list': async (input) => {
      const session = store.get(input.sessionId);
      if (!session) throw new NotFoundError('Session', input.sessionId);
      const where = { workspacePath: session.workspacePath, dataDir: deps.dataDir };
      if (!isRestricted(deps.folderTrust ?? undefined, session.workspacePath)) return loadCustomCommands(where);
      // The folder's own are left out before names are matched: one of them never hides a command of the person's.
      const [list, all] = await Promise.all([loadCustomCommands({ ...where, workspaceCommands: false }), loadCustomCommands(where)]);
      const own = all.commands.filter((command) => command.source === 'workspace').length;
      const note = `This folder's ${own} own ${own === 1 ? 'command is' : 'commands are'} not offered: the folder is not trusted.`;
      return own === 0 ? list : { ...list, notes: [...list.notes, note] };
    },
    'workspace:pick': (input) =>
      runtime.sessions.pickWorkspace(input.sessionId, async () => {
        const picked = await deps.folderPicker.pickFolder();
        if (picked !== null) deps.chosenPaths.remember(picked);
        return picked;
      }),
    'workspace:recent': () => recentFolders(store.list(), (path) => deps.workspaces.resolveFolder(path)),
    'trash:list': async () => (await deps.trash.list()).map((entry) => ('error' in entry ? entry : withoutVersion(entry))),
    'trash:restore': async (input) => {
      return withoutVersion(await deps.trash.restore(input.id));
    },
  };
}
