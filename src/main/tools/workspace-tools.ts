/* The built-in file tools, put together for a session's runtime: their options, and the one trash they share. */

import { join } from 'node:path';
import type { Tool } from '../agent/ports/tools';
import type { FolderAccess } from '../workspace/folder-access';
import { WorkspaceFiles } from '../workspace/workspace-files';
import { workspaceOf, type FilesOf } from './file-tool-kit';
import { CodeMaps } from '../code-map/code-maps';
import { listFilesTool, readFileTool, searchTool } from './file-reading-tools';
import { symbolTools } from './symbol-tools';
import { deleteTool, editFileTool, writeFileTool } from './file-writing-tools';
import { findRipgrep } from './search';
import { Trash } from './trash';

export interface WorkspaceToolOptions {
  /** The app's data folder: never written by tools, and home of the trash. */
  readonly dataDir: string;
  /** ripgrep's path; `undefined` looks for it, `null` uses the built-in search. */
  readonly ripgrep?: string | null;
  readonly newId: () => string;
  readonly now: () => number;
  /** How names are opened without following links; the platform's best by default (tests choose one). */
  readonly folderAccess?: FolderAccess;
  /** The workspaces' code indexes, shared with the repository map; one of the tools' own when absent. */
  readonly codeMaps?: CodeMaps;
  /** The app's trash, shared with Settings → Trash; a plain one of the tools' own under the data folder when absent. */
  readonly trash?: Trash;
}

/** The built-in file tools: list, read, search, the symbol tools, write, edit and delete, all inside the workspace. */
export function workspaceTools(options: WorkspaceToolOptions): Tool[] {
  const ripgrep = options.ripgrep === undefined ? findRipgrep() : options.ripgrep;
  const protectedRoots = [options.dataDir];
  const trash = options.trash ?? new Trash(join(options.dataDir, 'trash'), protectedRoots);
  const filesIn = (workspacePath: string): WorkspaceFiles =>
    new WorkspaceFiles(workspacePath, { protectedRoots, ...(options.folderAccess ? { access: options.folderAccess } : {}) });
  const filesOf: FilesOf = (context) => filesIn(workspaceOf(context));
  const maps = options.codeMaps ?? new CodeMaps({ dataDir: options.dataDir, filesOf: filesIn });
  return [
    listFilesTool(filesOf),
    readFileTool(filesOf),
    searchTool(filesOf, ripgrep),
    ...symbolTools(filesOf, maps),
    writeFileTool(filesOf),
    editFileTool(filesOf),
    deleteTool(filesOf, trash, options),
  ];
}
