import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalModelManager } from '../../../src/main/models/local-model-manager';
import type { MachineInfo } from '../../../src/shared/local-models';
import type { CatalogueEntry, DownloadView } from '../../../src/shared/model-catalogue';
import { closedPort, temporaryFolder, waitFor } from '../../helpers';
import { ggufBytes } from './gguf-bytes';
import { RangeServer } from './range-server';

const bigMachine: MachineInfo = {
  totalMemoryBytes: 64e9,
  freeMemoryBytes: 32e9,
  gpu: null,
  gpuMemoryBytes: null,
  cpuCores: 8,
};

/** A valid GGUF of about a megabyte, so that a download takes a few dozen chunks. */
const modelFile = ggufBytes({
  metadata: { 'general.architecture': 'qwen3', 'general.name': 'Tiny Qwen', 'qwen3.context_length': 8192, 'general.file_type': 15 },
  tensors: [{ name: 'token_embd.weight', dimensions: [1024, 256] }],
});

const entry = (url: string, change: Partial<CatalogueEntry> = {}): CatalogueEntry => ({
  id: 'tiny',
  name: 'Tiny Qwen (Q4_K_M)',
  summary: 'A test model.',
  url,
  fileName: 'tiny-qwen.gguf',
  sizeBytes: modelFile.length,
  sha256: null,
  trainedContext: 8192,
  runContext: 4096,
  kvBytesPerToken: 1024,
  ...change,
});

describe('downloading a model', () => {
  const servers: RangeServer[] = [];
  const managers: LocalModelManager[] = [];
  const folders: Array<{ path: string; remove: () => void }> = [];
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
    await Promise.all(servers.splice(0).map((server) => server.close()));
    folders.splice(0).forEach((folder) => folder.remove());
  });

  const serve = async (options: { linkedSha256?: string | null; chunkDelayMs?: number } = {}) => {
    const server = await RangeServer.start({ file: modelFile, chunkBytes: 16 * 1024, chunkDelayMs: options.chunkDelayMs ?? 1, ...options });
    servers.push(server);
    return server;
  };

  const manager = (catalogue: CatalogueEntry[], options: { dataDir?: string; freeBytes?: number } = {}) => {
    const dataDir =
      options.dataDir ??
      (() => {
        const folder = temporaryFolder('downloads-');
        folders.push(folder);
        return folder.path;
      })();
    const events: DownloadView[] = [];
    const made = new LocalModelManager({
      dataDir,
      catalogue,
      modelFolders: { ollama: [], lmStudio: [] },
      machine: () => bigMachine,
      now: () => Date.now(),
      onDownload: (view) => events.push(view),
      freeBytes: async () => options.freeBytes ?? 1e12,
      progressIntervalMs: 0,
    });
    managers.push(made);
    const last = (): DownloadView | undefined => events.at(-1);
    const until = (state: DownloadView['state']) => waitFor(() => last()?.state === state, 10_000, `download ${state}`);
    return { manager: made, dataDir, events, last, until, models: join(dataDir, 'models') };
  };

  /** What the models folder holds besides its index and the partial folder. */
  const modelsIn = (folder: string): string[] => readdirSync(folder).filter((name) => name !== 'library.json' && name !== '.partial');
  const partials = (folder: string): string[] => readdirSync(join(folder, '.partial'));

  it('downloads the whole file through the redirect, checks it against the server’s SHA-256, and adds it to the library', async () => {
    const server = await serve();
    const { manager: models, until, last, models: folder } = manager([entry(server.url())]);
    await models.download('tiny');
    await until('done');
    expect(last()).toMatchObject({ state: 'done', receivedBytes: modelFile.length, totalBytes: modelFile.length, checksum: 'server' });
    expect(readFileSync(join(folder, 'tiny-qwen.gguf')).equals(modelFile)).toBe(true);
    expect(partials(folder)).toEqual([]);
    const [model] = models.library.list();
    expect(model).toMatchObject({ id: last()?.modelId, source: 'downloaded', architecture: 'qwen3', trainedContext: 8192 });
    expect(models.downloader.list()).toEqual([]);
  });

  it('pauses keeping what arrived, and resumes with a Range request to a byte-identical file', async () => {
    const server = await serve({ chunkDelayMs: 15 });
    const { manager: models, until, last, events, models: folder } = manager([entry(server.url())]);
    await models.download('tiny');
    // Progress says how fast and how long, once it has arrived for a moment.
    await waitFor(() => last()?.bytesPerSecond != null && last()?.secondsLeft != null, 10_000, 'a speed');
    const paused = await models.downloader.pause('tiny');
    expect(paused.state).toBe('paused');
    const kept = paused.receivedBytes;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(modelFile.length);
    expect(partials(folder).sort()).toEqual(['tiny-qwen.gguf.json', 'tiny-qwen.gguf.part']);
    expect(modelsIn(folder)).toEqual([]);
    expect(events.every((view) => view.receivedBytes <= modelFile.length)).toBe(true);

    models.downloader.resume('tiny');
    await until('done');
    const resumed = server.requests.filter((request) => request.url.startsWith('/cdn/')).at(-1);
    expect(resumed?.headers.range).toMatch(/^bytes=\d+-$/);
    expect(Number(/\d+/.exec(resumed?.headers.range ?? '')?.[0])).toBeGreaterThanOrEqual(kept);
    expect(resumed?.headers['if-range']).toBe(server.etag);
    expect(readFileSync(join(folder, 'tiny-qwen.gguf')).equals(modelFile)).toBe(true);
  });

  it('keeps the part when the connection is cut halfway, says so, and resumes to the whole file', async () => {
    const server = await serve();
    server.cutAfter = Math.floor(modelFile.length / 2);
    const { manager: models, until, last, models: folder } = manager([entry(server.url())]);
    await models.download('tiny');
    await until('interrupted');
    expect(last()?.error).toMatchObject({ code: 'download_failed', retryable: true });
    expect(last()?.error?.message).toMatch(/^The connection was cut after .* Resume goes on from there\.$/);
    expect(partials(folder)).toContain('tiny-qwen.gguf.part');
    expect(modelsIn(folder)).toEqual([]);
    models.downloader.resume('tiny');
    await until('done');
    expect(readFileSync(join(folder, 'tiny-qwen.gguf')).equals(modelFile)).toBe(true);
  });

  it('removes a file that does not match its checksum and says so, leaving nothing in the models folder', async () => {
    const server = await serve({ linkedSha256: 'f'.repeat(64) });
    const { manager: models, until, last, models: folder } = manager([entry(server.url())]);
    await models.download('tiny');
    await until('failed');
    expect(last()?.error?.message).toMatch(/^The file downloaded does not match its checksum .*: it was removed\. Try again\.$/);
    expect(modelsIn(folder)).toEqual([]);
    expect(partials(folder)).toEqual([]);
    expect(models.library.list()).toEqual([]);
  });

  it('checks against the catalogue’s checksum when it has one, over the server’s', async () => {
    const server = await serve();
    const { manager: models, until, last } = manager([entry(server.url(), { sha256: '0'.repeat(64) })]);
    await models.download('tiny');
    await until('failed');
    expect(last()).toMatchObject({ checksum: 'catalogue' });
    expect(last()?.error?.message).toContain('does not match its checksum');
  });

  it('says when there is no checksum to check against', async () => {
    const server = await serve({ linkedSha256: null });
    const { manager: models, until, last } = manager([entry(server.url())]);
    await models.download('tiny');
    await until('done');
    expect(last()?.checksum).toBe('none');
  });

  it('refuses a web page sent for the file, by its type or by its first bytes, and leaves nothing', async () => {
    const server = await serve();
    for (const path of ['/page', '/page-as-binary']) {
      const { manager: models, until, last, models: folder } = manager([entry(server.url(path))]);
      await models.download('tiny');
      await until('failed');
      expect(last()?.error?.message).toBe('The server sent a web page, not the model file: the address may be wrong or need a sign-in.');
      expect(modelsIn(folder)).toEqual([]);
      expect(partials(folder)).toEqual([]);
    }
  });

  it('says what the server answered for 404 and 500', async () => {
    const server = await serve();
    const missing = manager([entry(server.url('/status/404'))]);
    await missing.manager.download('tiny');
    await missing.until('failed');
    expect(missing.last()?.error).toMatchObject({ code: 'download_failed', retryable: false });
    expect(missing.last()?.error?.message).toMatch(/^The server answered 404 Not Found for 127\.0\.0\.1:\d+\/status\/404\.$/);
    const broken = manager([entry(server.url('/status/500'))]);
    await broken.manager.download('tiny');
    await broken.until('failed');
    expect(broken.last()?.error).toMatchObject({ code: 'download_failed', retryable: true });
    expect(partials(broken.models)).toEqual([]);
  });

  it('says there is no network when nothing answers', async () => {
    const port = await closedPort();
    const { manager: models, until, last, models: folder } = manager([entry(`http://127.0.0.1:${port}/model.gguf`)]);
    await models.download('tiny');
    await until('failed');
    expect(last()?.error?.message).toMatch(
      /^No network: 127\.0\.0\.1:\d+ could not be reached \(no network connection to it, ECONNREFUSED\)\.$/,
    );
    expect(partials(folder)).toEqual([]);
  });

  it('refuses to start when the disk has no room, saying how much is needed', async () => {
    const server = await serve();
    const { manager: models, until, last, models: folder } = manager([entry(server.url())], { freeBytes: 50_000_000 });
    await models.download('tiny');
    await until('failed');
    expect(last()?.error).toMatchObject({ code: 'disk_full' });
    expect(last()?.error?.message).toMatch(/^Not enough room on the disk for Tiny Qwen \(Q4_K_M\): it needs 101 MB and 50\.0 MB is free\./);
    expect(server.requests).toEqual([]);
    expect(partials(folder)).toEqual([]);
  });

  it('resumes after a restart of the app from the partial file and its sidecar', async () => {
    const server = await serve({ chunkDelayMs: 15 });
    const first = manager([entry(server.url())]);
    await first.manager.download('tiny');
    await waitFor(() => (first.last()?.receivedBytes ?? 0) > 100_000, 10_000, 'some bytes');
    await first.manager.dispose();

    const second = manager([entry(server.url())], { dataDir: first.dataDir });
    const [found] = second.manager.downloader.list();
    expect(found).toMatchObject({ id: 'tiny', state: 'paused', totalBytes: modelFile.length, checksum: 'server' });
    expect(found?.receivedBytes).toBeGreaterThan(100_000);
    second.manager.downloader.resume('tiny');
    await second.until('done');
    expect(server.requests.filter((request) => request.url.startsWith('/cdn/')).at(-1)?.headers.range).toBe(
      `bytes=${found?.receivedBytes}-`,
    );
    expect(readFileSync(join(second.models, 'tiny-qwen.gguf')).equals(modelFile)).toBe(true);
  });

  it('cancels a download, removing what arrived', async () => {
    const server = await serve({ chunkDelayMs: 15 });
    const { manager: models, last, models: folder } = manager([entry(server.url())]);
    await models.download('tiny');
    await waitFor(() => (last()?.receivedBytes ?? 0) > 0, 10_000, 'some bytes');
    await models.downloader.cancel('tiny');
    expect(last()).toMatchObject({ state: 'failed', error: { code: 'cancelled' } });
    expect(partials(folder)).toEqual([]);
    expect(models.downloader.list()).toEqual([]);
  });

  it('refuses a model that needs more memory than the computer has, before downloading', async () => {
    const server = await serve();
    const { manager: models } = manager([entry(server.url(), { sizeBytes: 100e9 })]);
    await expect(models.download('tiny')).rejects.toMatchObject({
      code: 'model_too_large',
      message: 'Tiny Qwen (Q4_K_M) needs about 101 GB of memory, and this computer has 64.0 GB. Pick a smaller model.',
    });
    expect(server.requests).toEqual([]);
  });

  it('refuses a model the list marks too large, though it needs less than all the memory there is', async () => {
    const server = await serve();
    const { manager: models } = manager([entry(server.url(), { sizeBytes: 55e9 })]);
    expect((await models.choices()).choices[0]?.fit).toBe('too_large');
    await expect(models.download('tiny')).rejects.toMatchObject({
      code: 'model_too_large',
      message:
        'Tiny Qwen (Q4_K_M) needs about 55.5 GB of memory, more than this computer’s 64.0 GB can spare beside the system and other apps. Pick a smaller model.',
    });
    expect(server.requests).toEqual([]);
  });
});
