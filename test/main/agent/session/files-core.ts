import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { builtinTools } from '../../../../src/main/tools/builtin-tools';
import type { WorkbenchCore } from '../../../../src/main/core/workbench-core';
import { BashParser } from '../../../../src/main/shell/bash-parser';
import type { ScriptedModelServer } from '../../../scripted-model-server';
import { useScriptedCore } from '../../scripted-core';

const shell = await BashParser.load();

/** What the tests over workspace files reach, once the core is up. */
export interface FilesCore {
  /** Where workspaces go: `work/` under the test's temporary folder. */
  readonly root: string;
  readonly server: ScriptedModelServer;
  readonly core: WorkbenchCore;
  /** Invokes a channel as the renderer would; a refusal throws with its `code`. */
  call<T>(channel: string, input: unknown): Promise<T>;
}

/**
 * The core of a test file over workspace files: the built-in tools (the trash and the app's data
 * in `.data`), the scripted model, and a `work/` folder for workspaces. The returned object is
 * filled in once the core is up, so use it inside tests only.
 */
export function useFilesCore(): FilesCore {
  let n = 0;
  const files = {} as { -readonly [K in keyof FilesCore]: FilesCore[K] };
  useScriptedCore(
    {
      prepare: (path) => mkdirSync(join(path, 'work')),
      dataDir: (path) => join(path, '.data'),
      tools: (dataDir) => builtinTools({ shell, dataDir, newId: () => `trash${(n += 1)}`, now: () => Date.now() }),
    },
    (started) => {
      files.root = started.folder.path;
      files.server = started.server;
      files.core = started.core;
      files.call = async <T>(channel: string, input: unknown): Promise<T> => {
        const result = await started.transport.invoke(channel, input);
        if (!result.ok) throw Object.assign(new Error(result.error.message), { code: result.error.code });
        return result.value as T;
      };
    },
  );
  return files;
}
