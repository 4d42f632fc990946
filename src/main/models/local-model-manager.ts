/*
 * The models of this computer in one place: the library, the recommended downloads matched to this machine, and the
 * downloads.
 */

import { join } from 'node:path';
import { NotFoundError, WorkbenchError } from '../../shared/errors';
import type { LocalModel, MachineInfo } from '../../shared/local-models';
import { chooseFor, tooLargeReason, type CatalogueChoice, type CatalogueEntry, type DownloadView } from '../../shared/model-catalogue';
import { ModelDownloader } from './downloader';
import { nodeMachineInfo } from './machine';
import { ModelLibrary } from './model-library';
import type { ModelFolders } from './model-sources';

export interface LocalModelManagerOptions {
  /** The app's data folder; models live in its `models` folder. */
  readonly dataDir: string;
  readonly catalogue: readonly CatalogueEntry[];
  readonly modelFolders: ModelFolders;
  /** What the machine has; the runtime's figures (GPU included) where it gives them, Node's otherwise. */
  readonly machine?: () => MachineInfo | Promise<MachineInfo>;
  readonly now: () => number;
  /** Told of each model added (downloaded or picked), once the library holds it. */
  readonly onAdded?: (model: LocalModel) => void;
  /** Told of every change of a download. */
  readonly onDownload?: (view: DownloadView) => void;
  readonly freeBytes?: (folder: string) => Promise<number>;
  readonly fetch?: typeof fetch;
  readonly progressIntervalMs?: number;
}

/** The models of this computer: the library, the recommended downloads and the downloads themselves. */
export class LocalModelManager {
  readonly library: ModelLibrary;
  readonly downloader: ModelDownloader;

  constructor(private readonly options: LocalModelManagerOptions) {
    const folder = join(options.dataDir, 'models');
    this.library = new ModelLibrary({
      folder,
      modelFolders: options.modelFolders,
      machine: () => this.machine(),
      now: options.now,
      ...(options.onAdded ? { onAdded: options.onAdded } : {}),
    });
    this.downloader = new ModelDownloader({
      folder,
      addModel: (path, name) => this.library.add(path, 'downloaded', name),
      onChanged: (view) => options.onDownload?.(view),
      ...(options.freeBytes ? { freeBytes: options.freeBytes } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.progressIntervalMs === undefined ? {} : { progressIntervalMs: options.progressIntervalMs }),
      now: options.now,
    });
  }

  async machine(): Promise<MachineInfo> {
    return (await this.options.machine?.()) ?? nodeMachineInfo();
  }

  async choices(): Promise<{ machine: MachineInfo; choices: CatalogueChoice[] }> {
    const machine = await this.machine();
    const downloaded = new Set(
      this.library
        .list()
        .filter((model) => model.source === 'downloaded')
        .map((model) => model.path),
    );
    const choices = chooseFor(machine, this.options.catalogue, (entry) => downloaded.has(join(this.library.folder, entry.fileName)));
    return { machine, choices };
  }

  /** Starts (or resumes) the download of a recommended model; refused when it cannot run here at all. */
  async download(id: string): Promise<DownloadView> {
    const { machine, choices } = await this.choices();
    const choice = choices.find((entry) => entry.id === id);
    if (!choice) throw new NotFoundError('Recommended model', id);
    // Refused as the list marks it: a model too large for this machine cannot be downloaded.
    if (choice.fit === 'too_large')
      throw new WorkbenchError('model_too_large', `${choice.name} ${tooLargeReason(choice.memoryBytes, machine)}. Pick a smaller model.`);
    return this.downloader.start({
      id: choice.id,
      name: choice.name,
      url: choice.url,
      fileName: choice.fileName,
      sha256: choice.sha256,
      sizeBytes: choice.sizeBytes,
    });
  }

  dispose(): Promise<void> {
    return this.downloader.dispose();
  }
}
