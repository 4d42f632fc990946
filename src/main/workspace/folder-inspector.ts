/*
 * Checks that a workspace is an existing folder, and gives its real path.
 */

import { realpath, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { InvalidInputError } from '../../shared/errors';
import type { WorkspaceInspector } from '../agent/ports/ports';

/** Accepts an absolute path to an existing folder and returns its real path (symlinks resolved). */
export class FolderInspector implements WorkspaceInspector {
  async resolveFolder(path: string): Promise<string> {
    if (!isAbsolute(path)) throw new InvalidInputError(`The workspace must be an absolute path, not ${JSON.stringify(path)}.`);
    let real: string;
    try {
      real = await realpath(path);
    } catch {
      throw new InvalidInputError(`The folder ${path} does not exist or cannot be read.`);
    }
    const info = await stat(real);
    if (!info.isDirectory()) throw new InvalidInputError(`${path} is a file, not a folder. Choose a folder as the workspace.`);
    return real;
  }
}
