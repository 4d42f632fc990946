/*
 * The models on this computer that the built-in runtime can load: downloads, GGUF files the person picked, and models
 * of Ollama and LM Studio.
 */

import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { NotFoundError, WorkbenchError } from '../../shared/errors';
import type { LocalModel, LocalModels, LocalModelSource, MachineInfo } from '../../shared/local-models';
import { memoryNeeded, sizeWords, type ModelCandidate } from '../../shared/model-catalogue';
import { readGgufHeader, type GgufHeader } from './gguf-reader';
import { readIndex, writeIndex } from './model-index';
import { findModels, type ModelFolders } from './model-sources';
import { samePath } from '../workspace/path-case';

export interface ModelLibraryOptions {
  /** The models folder: `<dataDir>/models`. Downloads land here; the index lives here. */
  readonly folder: string;
  /** Where Ollama's and LM Studio's models are looked for. */
  readonly modelFolders: ModelFolders;
  readonly machine: () => Promise<MachineInfo>;
  readonly now: () => number;
  /** Told of each model added, after the index holds it. */
  readonly onAdded?: (model: LocalModel) => void;
  /** Whether the file system holding a path ignores letter case; asked of the disk when absent. */
  readonly caseIgnored?: (path: string) => boolean;
}

/** The window a model is at least run with, for the memory it needs. */
const smallestWindow = 4_096;

/** The KV cache one token takes, from the header's figures (f16 keys and values); 0 when the file does not say. */
function kvBytesPerToken(header: GgufHeader): number {
  const { blockCount, headCount, headCountKv, embeddingLength } = header;
  if (blockCount === null || headCount === null || embeddingLength === null) return 0;
  return blockCount * (headCountKv ?? headCount) * (embeddingLength / headCount) * 2 * 2;
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/\.gguf$/, '')
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120) || 'model';

/**
 * The models on this computer that the built-in runtime can load: files downloaded into the models folder, GGUF files
 * the person picked (kept where they are), and models of Ollama and LM Studio (read from their folders, never moved).
 * Kept in an index in the models folder, written whole and atomically; a damaged index is rebuilt from the files
 * downloaded there.
 */
export class ModelLibrary implements LocalModels {
  private models: LocalModel[];
  private readonly indexPath: string;

  constructor(private readonly options: ModelLibraryOptions) {
    mkdirSync(options.folder, { recursive: true });
    this.indexPath = join(options.folder, 'library.json');
    const read = readIndex(this.indexPath);
    this.models = read.models;
    if (read.problem !== null) this.models = this.rebuild();
  }

  get folder(): string {
    return this.options.folder;
  }

  /** The models whose files are still there. */
  list(): readonly LocalModel[] {
    return this.models.filter((model) => existsSync(model.path));
  }

  get(id: string): LocalModel | null {
    return this.list().find((model) => model.id === id) ?? null;
  }

  /**
   * Adds a GGUF file, after reading its header: refused with `model_file_invalid` when it is not one the runtime can
   * load, and `model_too_large` when it needs more memory than the computer has. A file already in the library is
   * answered as it is. Nothing changes when it is refused.
   */
  async add(path: string, source: LocalModelSource, name?: string): Promise<LocalModel> {
    const absolute = resolve(path);
    const known = this.models.find((model) => this.samePath(model.path, absolute));
    if (known && existsSync(known.path)) return known;
    const header = await readGgufHeader(absolute);
    const machine = await this.options.machine();
    const window = Math.min(header.contextLength ?? smallestWindow, smallestWindow);
    const needed = memoryNeeded(header.fileSize, kvBytesPerToken(header), window);
    if (needed > machine.totalMemoryBytes)
      throw new WorkbenchError(
        'model_too_large',
        `${name ?? basename(absolute)} needs about ${sizeWords(needed)} of memory, and this computer has ${sizeWords(machine.totalMemoryBytes)}. Pick a smaller model or a smaller quantization.`,
      );
    const label = name ?? (header.name ? `${header.name}${header.quantization ? ` (${header.quantization})` : ''}` : basename(absolute));
    const model: LocalModel = {
      id: this.freeId(source === 'ollama' || source === 'lm-studio' ? `${source}-${slug(name ?? label)}` : slug(basename(absolute))),
      name: label.slice(0, 100),
      path: absolute,
      sizeBytes: header.fileSize,
      source,
      architecture: header.architecture.slice(0, 100),
      trainedContext: header.contextLength,
      addedAt: this.options.now(),
    };
    this.save([...this.models.filter((item) => !this.samePath(item.path, absolute)), model]);
    this.options.onAdded?.(model);
    return model;
  }

  /** Removes a model: a download of the app's is deleted from the models folder; any other file is only forgotten. */
  remove(id: string): { deletedFile: boolean } {
    const model = this.models.find((item) => item.id === id);
    if (!model) throw new NotFoundError('Model', id);
    const ours = model.source === 'downloaded' && this.samePath(resolve(model.path, '..'), resolve(this.options.folder));
    this.save(this.models.filter((item) => item.id !== id));
    if (ours) rmSync(model.path, { force: true });
    return { deletedFile: ours };
  }

  /** Models of Ollama and LM Studio on this computer, each said to be in the library already or not. */
  candidates(): ModelCandidate[] {
    const added = this.list();
    return findModels(this.options.modelFolders).map((found) => ({
      ...found,
      added: added.some((model) => this.samePath(model.path, found.path)),
    }));
  }

  /** Adds a model of Ollama or LM Studio, which must be one `candidates` finds (the renderer names no other file). */
  async addCandidate(path: string): Promise<LocalModel> {
    // Exact text: the renderer names one of the paths `candidates` listed, as listed.
    const found = findModels(this.options.modelFolders).find((candidate) => candidate.path === path);
    if (!found) throw new NotFoundError('Model of Ollama or LM Studio', path);
    return this.add(found.path, found.source, found.source === 'ollama' ? `${found.name} (Ollama)` : `${found.name} (LM Studio)`);
  }

  /** A downloaded file's model, if the library has one at that path. */
  byPath(path: string): LocalModel | null {
    return this.models.find((model) => this.samePath(model.path, resolve(path))) ?? null;
  }

  /** By the file system's case rules: `/Models/A.gguf` is `/models/a.gguf` where case is ignored. */
  private samePath(one: string, other: string): boolean {
    return samePath(one, other, this.options.caseIgnored?.(one));
  }

  private freeId(base: string): string {
    let id = base;
    for (let index = 2; this.models.some((model) => model.id === id); index++) id = `${base}-${index}`;
    return id;
  }

  private save(models: LocalModel[]): void {
    writeIndex(this.indexPath, models);
    this.models = models;
  }

  /** The models downloaded into the folder, from their files alone, when the index cannot be read. */
  private rebuild(): LocalModel[] {
    const models: LocalModel[] = [];
    for (const file of readdirSync(this.options.folder)) {
      if (!file.toLowerCase().endsWith('.gguf')) continue;
      const path = join(this.options.folder, file);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat?.isFile()) continue;
      models.push({
        id: slug(file),
        name: file.replace(/\.gguf$/i, ''),
        path,
        sizeBytes: stat.size,
        source: 'downloaded',
        architecture: 'unknown',
        trainedContext: null,
        addedAt: Math.round(stat.mtimeMs),
      });
    }
    writeIndex(this.indexPath, models);
    return models;
  }
}
