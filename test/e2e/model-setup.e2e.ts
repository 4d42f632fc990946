import { expect as expectPage } from 'playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort } from '../helpers';
import { ScriptedModelServer } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

/*
 * A first run with no endpoint: the app looks for the usual local servers, offers the ones found with their models,
 * says how to start the others, and "Use" ends on a session that sends to the server found.
 */
describe('setting up a model on a first run', () => {
  const open = useWorkbenches();
  const servers: ScriptedModelServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('with no server, says how to start each one; with one found, “Use” makes it the session’s model and it answers', async () => {
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
    await workbench.screenshot('setup-no-server');
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
    const found = setup.getByRole('list', { name: 'Servers found' });
    await expectPage(found).toContainText('LM Studio');
    await expectPage(found).toContainText('2 models: local-coder, local-small');
    await expectPage(setup.getByLabel('How to start Ollama')).toBeVisible();
    await expectPage(setup.getByLabel('How to start LM Studio')).toHaveCount(0);
    await workbench.screenshot('setup-one-found');

    await page.getByRole('button', { name: 'New session' }).first().click();
    await page.getByRole('button', { name: 'Use LM Studio' }).click();
    await expectPage(page.getByLabel('Model', { exact: true })).toHaveValue('local-coder');
    await expectPage(setup).toHaveCount(0);
    local.enqueue({ steps: [{ kind: 'text', text: 'Answered locally.' }] });
    await page.getByRole('textbox', { name: 'Message' }).fill('Hello');
    await page.getByRole('button', { name: 'Send' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' })).toHaveText('Answered locally.');
    // Saved as an endpoint and as the default model of new sessions.
    const settings = await workbench.host.invoke('settings:get', {});
    expect(settings.ok && (settings.value as { defaultModel: unknown }).defaultModel).toMatchObject({ model: 'local-coder' });
  });
});
