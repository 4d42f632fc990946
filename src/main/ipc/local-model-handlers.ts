/*
 * The IPC handlers of models on this computer: the library, the machine, recommended downloads and their progress, and
 * models found in other apps.
 */

import type { LocalModelManager } from '../models/local-model-manager';
import type { ChosenPaths } from './chosen-paths';
import type { Handlers } from './router';

type LocalModelChannel = Extract<keyof Handlers, `local-model:${string}`>;

/** Asks the person for a GGUF file (a native dialog in the app). Resolves null when they cancel. */
export type ModelFilePicker = () => Promise<string | null>;

/** The handlers of models on this computer: the library, the recommended downloads, the models of other apps. */
export function localModelHandlers(deps: {
  readonly models: LocalModelManager;
  readonly pickFile: ModelFilePicker | undefined;
  /** The paths the person chose: a model file the window names must be one the file dialog returned. */
  readonly chosenPaths: ChosenPaths;
}): Pick<Handlers, LocalModelChannel> {
  const { models, pickFile, chosenPaths } = deps;
  return {
    'local-model:list': () => [...models.library.list()],
    'local-model:machine': () => models.machine(),
    'local-model:catalogue': () => models.choices(),
    'local-model:candidates': () => models.library.candidates(),
    'local-model:pickFile': async () => {
      const path = pickFile ? await pickFile() : null;
      if (path !== null) chosenPaths.remember(path);
      return { path };
    },
    'local-model:addFile': (input) => {
      chosenPaths.require(input.path, 'model file');
      return models.library.add(input.path, 'file');
    },
    'local-model:addCandidate': (input) => models.library.addCandidate(input.path),
    'local-model:remove': (input) => ({ removed: true as const, ...models.library.remove(input.id) }),
    'local-model:downloads': () => models.downloader.list(),
    'local-model:download': (input) => models.download(input.id),
    'local-model:pause': (input) => models.downloader.pause(input.id),
    'local-model:resume': (input) => models.downloader.resume(input.id),
    'local-model:cancel': async (input) => {
      await models.downloader.cancel(input.id);
      return { cancelled: true as const };
    },
  };
}
