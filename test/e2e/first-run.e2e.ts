import { expect as expectPage } from 'playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import type { MachineInfo } from '../../src/shared/local-models';
import type { CatalogueEntry } from '../../src/shared/model-catalogue';
import { tinyGguf } from '../fixtures/tiny-gguf';
import { closedPort, temporaryFolder } from '../helpers';
import { ggufBytes } from '../main/models/gguf-bytes';
import { RangeServer } from '../main/models/range-server';
import { useWorkbenches } from './fixture';

const machine: MachineInfo = { totalMemoryBytes: 16e9, freeMemoryBytes: 9e9, gpu: null, gpuMemoryBytes: null, cpuCores: 8 };

/** A small valid GGUF file (about 2 MB), served slowly enough to be paused. */
const modelFile = ggufBytes({
  metadata: { 'general.architecture': 'qwen3', 'general.name': 'Tiny Qwen', 'qwen3.context_length': 40960, 'general.file_type': 15 },
  tensors: [{ name: 'token_embd.weight', dimensions: [2048, 256] }],
});

const entry = (id: string, name: string, url: string, sizeBytes: number): CatalogueEntry => ({
  id,
  name,
  summary: 'A test model.',
  url,
  fileName: `${id}.gguf`,
  sizeBytes,
  sha256: null,
  trainedContext: 40_960,
  runContext: 16_384,
  kvBytesPerToken: 147_456,
});

/*
 * A first run with no server on this computer: the setup offers models to run on this computer, matched to its memory,
 * downloads the one picked with progress, pause and resume, checks it, adds it, saves the "This computer" endpoint and
 * makes the model the session's.
 */
describe('running a model on this computer on a first run', () => {
  const open = useWorkbenches();
  const servers: RangeServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('lists the recommended models for this machine, downloads one with pause and resume, and the session takes it', async () => {
    const server = await RangeServer.start({ file: modelFile, chunkBytes: 32 * 1024, chunkDelayMs: 40 });
    servers.push(server);
    const workbench = await open({
      discoveryCandidates: [{ name: 'Ollama', kind: 'ollama', baseUrl: `http://127.0.0.1:${await closedPort()}` }],
      modelCatalogue: [
        entry('tiny-qwen', 'Tiny Qwen (Q4_K_M)', server.url(), modelFile.length),
        entry('huge-model', 'Huge Model (Q4_K_M)', server.url('/resolve/huge.gguf'), 40e9),
      ],
      machineInfo: () => machine,
    });
    const { page, host } = workbench;
    const local = page.getByRole('region', { name: 'Run a model on this computer' });
    await expectPage(local).toContainText('This computer: 16.0 GB of memory, 8 cores, no GPU found.');
    const list = local.getByRole('list', { name: 'Recommended models' });
    const tiny = list.getByRole('listitem', { name: 'Tiny Qwen (Q4_K_M)' });
    await expectPage(tiny).toContainText('Recommended');
    await expectPage(tiny).toContainText('fits this computer');
    await expectPage(tiny).toContainText('2.1 MB on disk · needs 2.9 GB of memory · runs with a 16k window (trained for 40k)');
    await expectPage(list.getByRole('listitem', { name: 'Huge Model (Q4_K_M)' })).toContainText('too large for this computer');
    await workbench.screenshotAtSizes('first-run-local-models');

    await tiny.getByRole('button', { name: 'Download Tiny Qwen (Q4_K_M)' }).click();
    const download = tiny.getByRole('group', { name: 'Download of Tiny Qwen (Q4_K_M)' });
    await expectPage(download.getByRole('progressbar', { name: 'Tiny Qwen (Q4_K_M) downloaded' })).toBeVisible();
    await download.getByRole('button', { name: 'Pause Tiny Qwen (Q4_K_M)' }).click();
    await expectPage(download.getByRole('status')).toContainText(/^Paused at .* of 2\.1 MB$/);
    await workbench.screenshot('first-run-download-paused');
    await download.getByRole('button', { name: 'Resume Tiny Qwen (Q4_K_M)' }).click();

    // Done: the setup goes on to the folder step with the model chosen.
    await expectPage(page.getByRole('region', { name: 'Pick a folder' })).toBeVisible({ timeout: 30_000 });
    const resumed = server.requests.filter((request) => request.url.startsWith('/cdn/')).at(-1);
    expect(resumed?.headers.range).toMatch(/^bytes=\d+-$/);
    const providers = await host.invoke('provider:list', {});
    const endpoint = (providers.ok ? (providers.value as Array<{ id: string; kind: string; name: string; baseUrl: string }>) : []).find(
      (provider) => provider.kind === 'local',
    );
    expect(endpoint).toMatchObject({ name: 'This computer', baseUrl: 'builtin:this-computer' });
    const models = await host.invoke('local-model:list', {});
    expect(models.ok && models.value).toMatchObject([{ id: 'tiny-qwen', source: 'downloaded', architecture: 'qwen3' }]);
    const settings = await host.invoke('settings:get', {});
    expect(settings.ok && (settings.value as { defaultModel: unknown }).defaultModel).toEqual({
      providerId: endpoint?.id,
      model: 'tiny-qwen',
    });
    const sessions = await host.invoke('session:list', {});
    expect(sessions.ok && (sessions.value as Array<{ model: unknown }>)[0]?.model).toEqual({
      providerId: endpoint?.id,
      model: 'tiny-qwen',
    });
    await workbench.screenshot('first-run-local-model-chosen');

    // Settings lists it with its size and where it came from, and removes it (a download: the file goes).
    await page.keyboard.press('Control+,');
    const section = page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'Models on this computer' });
    await expectPage(section).toContainText('Tiny Qwen (Q4_K_M)');
    await expectPage(section).toContainText('2.1 MB · qwen3 · trained for a 40k window · downloaded');
    await section.getByRole('button', { name: 'Remove Tiny Qwen (Q4_K_M)' }).click();
    await expectPage(section).toContainText('None yet');
    expect(workbench.pageErrors).toEqual([]);
  });

  it('a model too large for this computer cannot be downloaded, and says why', async () => {
    const workbench = await open({
      discoveryCandidates: [{ name: 'Ollama', kind: 'ollama', baseUrl: `http://127.0.0.1:${await closedPort()}` }],
      // With its window's cache and the runtime it needs about 13.9 GB: more than 16 GB can spare, though less than all of it.
      modelCatalogue: [entry('huge-model', 'Huge Model (Q4_K_M)', 'http://127.0.0.1:9/huge.gguf', 11e9)],
      machineInfo: () => machine,
    });
    const { page } = workbench;
    const huge = page.getByRole('region', { name: 'Run a model on this computer' }).getByRole('listitem', { name: 'Huge Model (Q4_K_M)' });
    await expectPage(huge).toContainText('too large for this computer');
    const download = huge.getByRole('button', { name: 'Download Huge Model (Q4_K_M)' });
    await expectPage(download).toBeDisabled();
    await expectPage(download).toHaveAccessibleDescription(/needs about 13\.9 GB of memory, more than this computer’s 16\.0 GB can spare/);
    // Main refuses it too, in the same words.
    const refused = await workbench.host.invoke('local-model:download', { id: 'huge-model' });
    expect(refused.ok || refused.error.message).toMatch(/^Huge Model \(Q4_K_M\) needs about 13\.9 GB of memory/);
  });

  it('answers on this computer after the download, from the built-in runtime, with the download server gone', async () => {
    // A model the built-in runtime really loads and runs: it answers every prompt with "Hello world."
    const runnable = tinyGguf({ says: ['Hello', ' world', '.'], name: 'Tiny talker' });
    const server = await RangeServer.start({ file: runnable });
    servers.push(server);
    const picked = temporaryFolder('first-run-local-');
    const workbench = await open({
      discoveryCandidates: [{ name: 'Ollama', kind: 'ollama', baseUrl: `http://127.0.0.1:${await closedPort()}` }],
      modelCatalogue: [{ ...entry('tiny-talker', 'Tiny talker', server.url(), runnable.length), trainedContext: 4096, runContext: 4096 }],
      machineInfo: () => machine,
      folderPicker: { pickFolder: async () => picked.path },
    });
    try {
      const { page } = workbench;
      const local = page.getByRole('region', { name: 'Run a model on this computer' });
      await local.getByRole('button', { name: 'Download Tiny talker' }).click();
      const folderStep = page.getByRole('region', { name: 'Pick a folder' });
      await expectPage(folderStep).toBeVisible({ timeout: 30_000 });
      // Nothing is fetched from here on.
      await server.close();
      servers.splice(servers.indexOf(server), 1);
      await folderStep.getByRole('button', { name: 'Choose folder…' }).click();
      await expectPage(page.getByRole('status').filter({ hasText: 'Ready:' }).locator('span')).toHaveText(
        `Ready: tiny-talker on This computer, in ${picked.path}.`,
      );
      await page.getByRole('textbox', { name: 'Message' }).fill('Say hello.');
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Hello world.', { timeout: 30_000 });
      await workbench.screenshot('first-run-local-answer');
      expect(workbench.pageErrors).toEqual([]);
    } finally {
      picked.remove();
    }
  });
});
