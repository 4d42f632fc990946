import { expect as expectPage } from 'playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort, temporaryFolder } from '../helpers';
import { ScriptedModelServer } from '../scripted-model-server';
import { useWorkbenches, type Workbench } from './fixture';

const sizes = [
  [1024, 640],
  [1280, 800],
  [1920, 1080],
] as const;

/** A screenshot of the state at each size the issue names, then back to the usual size. */
async function screenshots(workbench: Workbench, name: string): Promise<void> {
  for (const [width, height] of sizes) {
    await workbench.page.setViewportSize({ width, height });
    await workbench.screenshot(`${name}-${width}x${height}`);
  }
  await workbench.page.setViewportSize({ width: 1280, height: 800 });
}

/*
 * A first run with no endpoint: the app looks for the usual local servers, offers the ones found with all their models
 * and what the model doctor found about each, says how to start the others (and which ones are there but slow), asks for
 * a folder, and ends on a session that sends to the model picked.
 */
describe('setting up a model on a first run', () => {
  const open = useWorkbenches();
  const servers: ScriptedModelServer[] = [];
  const folders: Array<{ remove: () => void }> = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    folders.splice(0).forEach((folder) => folder.remove());
  });

  it('with no server, says how to start each one, and “Check again” finds one that was started since', async () => {
    const local = await ScriptedModelServer.start({ models: [{ id: 'local-coder', contextLength: 16384 }, { id: 'local-small' }] });
    servers.push(local);
    const ollamaPort = await closedPort();
    const workbench = await open({
      discoveryCandidates: [
        { name: 'Ollama', kind: 'ollama', baseUrl: `http://127.0.0.1:${ollamaPort}` },
        { name: 'LM Studio', kind: 'openai-compatible', baseUrl: `http://127.0.0.1:${await closedPort()}/v1` },
      ],
    });
    const { page } = workbench;
    const setup = page.getByRole('region', { name: 'Set up a model' });
    await expectPage(setup).toContainText('No server answered on this computer. To start one:');
    await expectPage(setup.getByLabel('How to start Ollama')).toContainText('ollama serve');
    await expectPage(setup.getByLabel('How to start vLLM')).toContainText('vllm serve');
    await screenshots(workbench, 'setup-no-server');
    // Any other address is added by hand, in Settings.
    await setup.getByRole('button', { name: /Add an endpoint by hand/ }).click();
    await expectPage(page.getByRole('dialog', { name: 'Settings' }).getByRole('form', { name: 'Add an endpoint' })).toBeVisible();
    await page.getByRole('button', { name: 'Close settings' }).click();

    // LM Studio comes up: Check again finds it, with its models.
    await workbench.restart({
      discoveryCandidates: [
        { name: 'Ollama', kind: 'ollama', baseUrl: `http://127.0.0.1:${ollamaPort}` },
        { name: 'LM Studio', kind: 'openai-compatible', baseUrl: local.openaiBaseUrl },
      ],
    });
    await page.getByRole('button', { name: 'Check again' }).click();
    const models = setup.getByRole('list', { name: 'Models of LM Studio' });
    await expectPage(models.getByRole('radio')).toHaveCount(2);
    await expectPage(models).toContainText('local-coder · 16k window');
    await expectPage(setup.getByLabel('How to start Ollama')).toBeVisible();
    await expectPage(setup.getByLabel('How to start LM Studio')).toHaveCount(0);
  });

  it('with one server, checks its models, uses the second one in the last folder used, and ends on a session that sends to it', async () => {
    const local = await ScriptedModelServer.start({ models: [{ id: 'local-coder', contextLength: 16384 }, { id: 'local-small' }] });
    servers.push(local);
    const workbench = await open({
      discoveryCandidates: [
        { name: 'Ollama', kind: 'ollama', baseUrl: `http://127.0.0.1:${await closedPort()}` },
        { name: 'LM Studio', kind: 'openai-compatible', baseUrl: local.openaiBaseUrl },
      ],
    });
    const { page, host } = workbench;
    // Folders used before: one still there (the last used), one deleted since.
    const gone = temporaryFolder('setup-gone-');
    const earlier = temporaryFolder('setup-earlier-');
    folders.push(gone, earlier);
    expect((await host.invoke('session:create', { workspacePath: gone.path })).ok).toBe(true);
    expect((await host.invoke('session:create', { workspacePath: earlier.path })).ok).toBe(true);
    gone.remove();
    await page.reload();

    const setup = page.getByRole('region', { name: 'Set up a model' });
    const models = setup.getByRole('list', { name: 'Models of LM Studio' });
    await expectPage(models.getByRole('radio')).toHaveCount(2);
    const row = (model: string) => models.getByRole('listitem').filter({ hasText: model });
    await expectPage(row('local-small')).toContainText('not checked');
    await models.getByRole('button', { name: 'Check local-small' }).click();
    await expectPage(row('local-small').getByRole('button', { name: /^Model check: native tools/ })).toBeVisible({ timeout: 30_000 });
    // Checking saved the server as an endpoint, which checks its other models in the background.
    await expectPage(row('local-coder').getByRole('button', { name: /^Model check: native tools/ })).toBeVisible({ timeout: 30_000 });
    // A check changes no default model, and the setup stays though a model now answers.
    const before = await host.invoke('settings:get', {});
    expect(before.ok && (before.value as { defaultModel: unknown }).defaultModel).toBeNull();
    await screenshots(workbench, 'setup-one-found-checked');

    await models.getByRole('radio', { name: /local-small/ }).check();
    await setup.getByRole('button', { name: 'Use local-small' }).click();
    const folderStep = page.getByRole('region', { name: 'Pick a folder' });
    await expectPage(folderStep).toContainText(`This session works in ${earlier.path}, the last folder used.`);
    await expectPage(folderStep).toContainText('has no tools: the agent cannot read or run anything');
    await expectPage(folderStep.getByRole('list', { name: 'Folders used before' })).toContainText(
      `${gone.path}no longer there (moved or deleted)`,
    );
    await expectPage(folderStep.getByRole('button', { name: `Work in ${gone.path}` })).toHaveCount(0);
    await screenshots(workbench, 'setup-folder-step');
    await folderStep.getByRole('button', { name: 'Keep this folder' }).click();

    await expectPage(page.getByRole('status').filter({ hasText: 'Ready:' }).locator('span')).toHaveText(
      `Ready: local-small on LM Studio, in ${earlier.path}.`,
    );
    await expectPage(page.locator('.model-setup')).toHaveCount(0);
    await expectPage(page.getByLabel('Model', { exact: true })).toHaveValue('local-small');
    await expectPage(page.getByRole('button', { name: 'Send' })).toBeDisabled();
    await page.getByRole('textbox', { name: 'Message' }).fill('Hello');
    await expectPage(page.getByRole('button', { name: 'Send' })).toBeEnabled();
    await screenshots(workbench, 'setup-ready');
    local.enqueue({ steps: [{ kind: 'text', text: 'Answered locally.' }] });
    await page.getByRole('button', { name: 'Send' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' })).toHaveText('Answered locally.');
    expect(local.requests.at(-1)?.body['model']).toBe('local-small');
    const settings = await host.invoke('settings:get', {});
    expect(settings.ok && (settings.value as { defaultModel: unknown }).defaultModel).toMatchObject({ model: 'local-small' });
  });

  it('says a server that answers slowly is there but slow, finds it when “Check again” waits longer, and picks a folder in the dialog', async () => {
    const slow = await ScriptedModelServer.start({ models: [{ id: 'slow-coder' }], answerDelayMs: 1_500 });
    servers.push(slow);
    const picked = temporaryFolder('setup-picked-');
    folders.push(picked);
    const workbench = await open({
      discoveryCandidates: [{ name: 'vLLM', kind: 'openai-compatible', baseUrl: slow.openaiBaseUrl }],
      folderPicker: { pickFolder: async () => picked.path },
    });
    const { page, host } = workbench;
    const setup = page.getByRole('region', { name: 'Set up a model' });
    const troubled = setup.getByRole('list', { name: 'Servers that did not answer in time' });
    await expectPage(troubled).toContainText('vLLM');
    await expectPage(troubled).toContainText('did not answer within 0.8 s');
    await expectPage(troubled).toContainText('“Check again” waits longer.');
    // It is running, so no guide says how to install it.
    await expectPage(setup.getByLabel('How to start vLLM')).toHaveCount(0);
    await screenshots(workbench, 'setup-slow-server');

    await setup.getByRole('button', { name: 'Check again' }).click();
    await expectPage(setup.getByRole('button', { name: 'Waiting up to 5 s…' })).toBeVisible();
    const models = setup.getByRole('list', { name: 'Models of vLLM' });
    await expectPage(models).toContainText('slow-coder', { timeout: 10_000 });
    await expectPage(troubled).toHaveCount(0);
    // Done loading: it answers at once from now on.
    slow.answerDelayMs = 0;

    await setup.getByRole('button', { name: 'Use slow-coder' }).click();
    const folderStep = page.getByRole('region', { name: 'Pick a folder' });
    await expectPage(folderStep.getByRole('button', { name: 'Skip: talk without tools' })).toBeVisible();
    await screenshots(workbench, 'setup-folder-first-run');
    await folderStep.getByRole('button', { name: 'Choose folder…' }).click();
    await expectPage(page.getByRole('status').filter({ hasText: 'Ready:' }).locator('span')).toHaveText(
      `Ready: slow-coder on vLLM, in ${picked.path}.`,
    );
    await expectPage(page.locator('.model-setup')).toHaveCount(0);
    const sessions = await host.invoke('session:list', {});
    expect(sessions.ok && sessions.value).toEqual([
      expect.objectContaining({ workspacePath: picked.path, model: expect.objectContaining({ model: 'slow-coder' }) }),
    ]);
  });

  it('lists a long list of models in part until asked for all, and says in words why a check of one failed', async () => {
    const others = Array.from({ length: 8 }, (_, index) => ({ id: `other-model-${index + 1}` }));
    const vanishing = await ScriptedModelServer.start({ models: [{ id: 'vanishing-model' }, ...others] });
    const workbench = await open({
      discoveryCandidates: [{ name: 'LM Studio', kind: 'openai-compatible', baseUrl: vanishing.openaiBaseUrl }],
    });
    const setup = workbench.page.getByRole('region', { name: 'Set up a model' });
    const models = setup.getByRole('list', { name: 'Models of LM Studio' });
    await expectPage(models).toContainText('vanishing-model');
    await expectPage(models.getByRole('radio')).toHaveCount(6);
    await setup.getByRole('button', { name: 'Show all 9 models (3 more)' }).click();
    await expectPage(models.getByRole('radio')).toHaveCount(9);
    await expectPage(models).toContainText('other-model-8');
    await vanishing.close();
    await models.getByRole('button', { name: 'Check vanishing-model' }).click();
    await expectPage(models.getByRole('listitem').filter({ hasText: 'vanishing-model' })).toContainText('Nothing is listening at', {
      timeout: 20_000,
    });
    await screenshots(workbench, 'setup-check-failed');
  });
});

/*
 * The first run as one page: the setup is the page's only call to action and scrolls with it (no box inside a box), the
 * Anthropic API can be set up from it, and a long model name shows whole in the status bar.
 */
describe('the setup as a page', () => {
  const open = useWorkbenches();
  const folders: Array<{ remove: () => void }> = [];
  afterEach(() => {
    folders.splice(0).forEach((folder) => folder.remove());
  });

  it('is the one thing to do, scrolls as the page at every size, and sets up the Anthropic API with a key', async () => {
    const down = await closedPort();
    const workbench = await open({ discoveryCandidates: [{ name: 'Ollama', kind: 'ollama', baseUrl: `http://127.0.0.1:${down}` }] });
    const { page, host, server } = workbench;
    const setup = page.getByRole('region', { name: 'Set up a model' });
    await expectPage(setup.getByRole('region', { name: 'Use the Anthropic API' })).toBeVisible();
    // No second call to action beside it: the sidebar's "+ New session" is there for that.
    await expectPage(page.locator('.empty').getByRole('button', { name: 'New session', exact: true })).toHaveCount(0);
    for (const [width, height] of sizes) {
      await page.setViewportSize({ width, height });
      const boxes = await page.evaluate(() => {
        const card = document.querySelector('.model-setup');
        const body = document.querySelector('.model-setup-body');
        const scrolls = (element: Element | null): boolean => element !== null && element.scrollHeight > element.clientHeight + 1;
        return { card: scrolls(card), body: scrolls(body), right: card?.getBoundingClientRect().right ?? 0 };
      });
      expect(boxes.card, `${width}: the setup scrolls inside itself`).toBe(false);
      expect(boxes.body, `${width}: the setup's lists scroll inside it`).toBe(false);
      expect(boxes.right).toBeLessThanOrEqual(width);
    }
    await screenshots(workbench, 'setup-as-page');

    // A key that does not open anything is said in words, and nothing is kept.
    const anthropic = setup.getByRole('region', { name: 'Use the Anthropic API' });
    await anthropic.getByLabel('API key').fill('sk-ant-test');
    await anthropic.getByText('Address (for a gateway)').click();
    await anthropic.getByRole('textbox', { name: 'Anthropic address' }).fill(`http://127.0.0.1:${down}`);
    await anthropic.getByRole('button', { name: 'Connect' }).click();
    await expectPage(anthropic.getByRole('alert')).toContainText('Anthropic did not accept this');
    const none = await host.invoke('provider:list', {});
    expect(none.ok && (none.value as unknown[]).length).toBe(0);

    // The right address: its models are listed, one is used, and the setup goes on to the folder.
    await anthropic.getByRole('textbox', { name: 'Anthropic address' }).fill(server.anthropicBaseUrl);
    await anthropic.getByRole('button', { name: 'Connect' }).click();
    await expectPage(anthropic.getByRole('combobox', { name: 'Anthropic model' })).toHaveValue('scripted-model');
    await anthropic.getByRole('button', { name: 'Use scripted-model' }).click();
    const folderStep = page.getByRole('region', { name: 'Pick a folder' });
    await folderStep.getByRole('button', { name: 'Skip: talk without tools' }).click();
    await expectPage(page.getByRole('status').filter({ hasText: 'Ready:' }).locator('span')).toContainText(
      'Ready: scripted-model on Anthropic, with no folder',
    );
    const providers = await host.invoke('provider:list', {});
    expect(providers.ok && providers.value).toEqual([expect.objectContaining({ kind: 'anthropic', name: 'Anthropic', hasKey: true })]);
  });

  it('shows a long model name whole in the status bar', async () => {
    const workbench = await open({}, { models: [{ id: 'qwen2.5-coder-7b-instruct-q4_k_m', contextLength: 32768 }] });
    const { page, host, server } = workbench;
    const saved = await host.invoke('provider:save', { kind: 'openai-compatible', name: 'Scripted', baseUrl: server.openaiBaseUrl });
    if (!saved.ok) throw new Error(saved.error.message);
    await host.invoke('settings:update', {
      defaultModel: { providerId: (saved.value as { id: string }).id, model: 'qwen2.5-coder-7b-instruct-q4_k_m' },
    });
    await page.reload();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    await page.setViewportSize({ width: 1920, height: 1080 });
    const field = page.getByRole('banner', { name: 'Status' }).locator('.model-picker input');
    await expectPage(field).toHaveValue('qwen2.5-coder-7b-instruct-q4_k_m');
    const cut = await field.evaluate((input) => input.scrollWidth > input.clientWidth + 1);
    expect(cut).toBe(false);
  });
});
