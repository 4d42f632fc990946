import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelLibrary } from '../../../src/main/models/model-library';
import type { ModelFolders } from '../../../src/main/models/model-sources';
import type { LocalModel, MachineInfo } from '../../../src/shared/local-models';
import { temporaryFolder } from '../../helpers';
import { ggufBytes } from './gguf-bytes';

const machine: MachineInfo = { totalMemoryBytes: 16e9, freeMemoryBytes: 8e9, gpu: null, gpuMemoryBytes: null, cpuCores: 4 };
const digest = 'a'.repeat(64);

describe('the model library', () => {
  const folders: Array<{ path: string; remove: () => void }> = [];
  afterEach(() => folders.splice(0).forEach((folder) => folder.remove()));

  const setup = (options: { memory?: number; caseIgnored?: boolean } = {}) => {
    const root = temporaryFolder('library-');
    folders.push(root);
    const places: ModelFolders = { ollama: [join(root.path, 'ollama')], lmStudio: [join(root.path, 'lmstudio')] };
    const added: LocalModel[] = [];
    const make = () =>
      new ModelLibrary({
        folder: join(root.path, 'data', 'models'),
        modelFolders: places,
        machine: async () => ({ ...machine, totalMemoryBytes: options.memory ?? machine.totalMemoryBytes }),
        now: () => 1_000,
        onAdded: (model) => added.push(model),
        ...(options.caseIgnored === undefined ? {} : { caseIgnored: () => options.caseIgnored ?? false }),
      });
    const file = (path: string, bytes: Buffer = ggufBytes()): string => {
      const full = join(root.path, path);
      mkdirSync(join(full, '..'), { recursive: true });
      writeFileSync(full, bytes);
      return full;
    };
    return { root: root.path, places, make, file, added };
  };

  it('adds a GGUF file where it is, with what its header says, and tells of it', async () => {
    const { make, file, added } = setup();
    const library = make();
    const path = file('picked/tiny.gguf');
    const model = await library.add(path, 'file');
    expect(model).toMatchObject({
      id: 'tiny',
      name: 'Tiny Test (Q4_K_M)',
      path,
      source: 'file',
      architecture: 'llama',
      trainedContext: 4096,
    });
    expect(library.get('tiny')).toEqual(model);
    expect(added).toEqual([model]);
    // The same file again is the same model.
    expect(await library.add(path, 'file')).toEqual(model);
    expect(make().list()).toEqual([model]);
  });

  it('takes a file named in another case as the model already added where case is ignored', async () => {
    const { make, file } = setup({ caseIgnored: true });
    const library = make();
    const path = file('picked/tiny.gguf');
    const model = await library.add(path, 'file');
    expect(await library.add(path.replace('picked/tiny', 'PICKED/Tiny'), 'file')).toEqual(model);
    expect(library.byPath(path.toUpperCase())).toEqual(model);
    expect(library.list()).toEqual([model]);
  });

  it('takes a file named in another case as another file where case is kept', async () => {
    const { make, file } = setup({ caseIgnored: false });
    const library = make();
    const path = file('picked/tiny.gguf');
    await library.add(path, 'file');
    expect(library.byPath(path.replace('picked/tiny', 'PICKED/Tiny'))).toBeNull();
    // Here no such file exists, so adding it is refused, as a file that is not a model is.
    await expect(library.add(path.replace('picked/tiny', 'PICKED/Tiny'), 'file')).rejects.toThrow();
    expect(library.list()).toHaveLength(1);
  });

  it('refuses a file that is not a model, or too large for the memory, and changes nothing', async () => {
    const { make, file, added } = setup({ memory: 1_000_000 });
    const library = make();
    await expect(library.add(file('notes.gguf', Buffer.from('hello there, not a model')), 'file')).rejects.toMatchObject({
      code: 'model_file_invalid',
    });
    await expect(library.add(file('tiny.gguf'), 'file')).rejects.toMatchObject({
      code: 'model_too_large',
      message: expect.stringMatching(/^tiny\.gguf needs about .* of memory, and this computer has 1\.0 MB\./) as unknown,
    });
    expect(library.list()).toEqual([]);
    expect(added).toEqual([]);
  });

  it('finds the models of Ollama and LM Studio in their folders, and adds one without moving it', async () => {
    const { make, file } = setup();
    file(`ollama/blobs/sha256-${digest}`);
    file(`ollama/blobs/sha256-${'b'.repeat(64)}`, Buffer.from('template'));
    const manifest = {
      schemaVersion: 2,
      layers: [
        { mediaType: 'application/vnd.ollama.image.model', digest: `sha256:${digest}`, size: 10 },
        { mediaType: 'application/vnd.ollama.image.template', digest: `sha256:${'b'.repeat(64)}`, size: 8 },
      ],
    };
    file('ollama/manifests/registry.ollama.ai/library/qwen3/8b', Buffer.from(JSON.stringify(manifest)));
    file('ollama/manifests/registry.ollama.ai/someone/coder/latest', Buffer.from('not json'));
    file('lmstudio/lmstudio-community/Qwen3-4B-GGUF/Qwen3-4B-Q4_K_M.gguf');
    file('lmstudio/lmstudio-community/Qwen3-4B-GGUF/mmproj-model-f16.gguf');
    const library = make();
    const candidates = library.candidates();
    expect(candidates.map(({ name, source, added }) => ({ name, source, added }))).toEqual([
      { name: 'qwen3:8b', source: 'ollama', added: false },
      { name: 'Qwen3-4B-Q4_K_M', source: 'lm-studio', added: false },
    ]);
    const model = await library.addCandidate(candidates[0]?.path ?? '');
    expect(model).toMatchObject({ id: 'ollama-qwen3-8b-ollama', name: 'qwen3:8b (Ollama)', source: 'ollama' });
    expect(model.path).toMatch(/ollama\/blobs\/sha256-a{64}$/);
    expect(library.candidates()[0]?.added).toBe(true);
    await expect(library.addCandidate(join(candidates[0]?.path ?? '', '..', 'elsewhere.gguf'))).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('deletes a download of its own on removal, and only forgets a file of the person’s or of another app', async () => {
    const { make, file, root } = setup();
    const library = make();
    const downloaded = await library.add(file('data/models/tiny-download.gguf'), 'downloaded');
    const picked = await library.add(file('picked/mine.gguf'), 'file');
    expect(library.remove(downloaded.id)).toEqual({ deletedFile: true });
    expect(existsSync(downloaded.path)).toBe(false);
    expect(library.remove(picked.id)).toEqual({ deletedFile: false });
    expect(existsSync(join(root, 'picked/mine.gguf'))).toBe(true);
    expect(library.list()).toEqual([]);
    expect(() => library.remove(picked.id)).toThrow(/does not exist/);
  });

  it('keeps its index through a write that stopped half-way, and rebuilds a damaged one from its downloads', async () => {
    const { make, file, root } = setup();
    const library = make();
    const model = await library.add(file('data/models/tiny-download.gguf'), 'downloaded');
    const index = join(root, 'data/models/library.json');
    // A write that stopped before its rename leaves a temporary file beside the index, which stays whole.
    writeFileSync(`${index}.999.tmp`, '{"version":1,"models":[{"id":');
    expect(make().list()).toEqual([model]);
    // A damaged index: the downloaded files are found again.
    writeFileSync(index, '{"version":1,"mod');
    const rebuilt = make();
    expect(rebuilt.list().map((item) => ({ id: item.id, source: item.source, path: item.path }))).toEqual([
      { id: 'tiny-download', source: 'downloaded', path: model.path },
    ]);
    expect(JSON.parse(readFileSync(index, 'utf8'))).toMatchObject({ version: 1 });
  });
});
