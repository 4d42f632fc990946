import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { closedPort } from '../helpers';
import { useWorkbenches } from './fixture';

/*
 * What the status bar names is what runs. Picking an endpoint saves at once; an endpoint that cannot be reached is
 * marked so, and Send stays off with the reason until the session has an endpoint and a model that are there.
 */
describe('pickers that tell the truth', () => {
  const open = useWorkbenches();

  it('picking an unreachable endpoint is saved, marked, and blocks Send with the reason; picking back runs where the bar says', async () => {
    const workbench = await open();
    const { page, host, server } = workbench;
    const scriptedId = await workbench.configureScriptedModel();
    const port = await closedPort();
    const down = await host.invoke('provider:save', { kind: 'ollama', name: 'Gone', baseUrl: `http://127.0.0.1:${port}` });
    if (!down.ok) throw new Error(down.error.message);
    const downId = (down.value as { id: string }).id;
    await page.reload();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    const endpoint = page.getByLabel('Model endpoint');
    const model = page.getByLabel('Model', { exact: true });
    await expectPage(endpoint).toHaveValue(scriptedId);
    await expectPage(model).toHaveValue('scripted-model');

    await endpoint.selectOption({ label: 'Gone' });
    await expectPage(page.getByRole('status', { name: 'Endpoint state' })).toHaveText('unreachable');
    await expectPage(model).toHaveValue('');
    const why = page.getByRole('status', { name: 'Why Send is off' });
    await expectPage(why).toContainText('Gone cannot be reached. Nothing is listening at');
    await page.getByRole('textbox', { name: 'Message' }).fill('Which model answers?');
    await expectPage(page.getByRole('button', { name: 'Send' })).toBeDisabled();
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await workbench.screenshotAtSizes('picker-unreachable');
    // Nothing was sent anywhere, and the pick is what main holds.
    expect(server.requests.length).toBe(0);
    const listed = await host.invoke('session:list', {});
    const session = listed.ok ? (listed.value as Array<{ model: unknown }>)[0] : null;
    expect(session?.model).toEqual({ providerId: downId, model: '' });

    // Kept across a reload, as saved.
    await page.reload();
    await expectPage(endpoint).toHaveValue(downId);
    await expectPage(why).toContainText('Gone cannot be reached');

    // Back to the scripted endpoint: its first model is taken, and the answer comes from there.
    server.enqueue({ steps: [{ kind: 'text', text: 'From the scripted server.' }] });
    await endpoint.selectOption({ label: 'Scripted' });
    await expectPage(model).toHaveValue('scripted-model');
    await expectPage(why).toHaveCount(0);
    await page.getByRole('textbox', { name: 'Message' }).fill('Which model answers?');
    await page.getByRole('button', { name: 'Send' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' })).toHaveText('From the scripted server.');
    expect(server.requests.at(-1)?.body).toMatchObject({ model: 'scripted-model' });
  });

  it('says at once when a saved endpoint cannot be reached, and refuses an address without a scheme in words', async () => {
    const workbench = await open();
    const { page } = workbench;
    const port = await closedPort();
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const form = dialog.getByRole('form', { name: 'Add an endpoint' });
    await form.getByLabel('Base URL').fill(`localhost:${port}`);
    await form.getByRole('button', { name: 'Save endpoint' }).click();
    await expectPage(form.getByRole('alert')).toHaveText(
      'The address must start with http:// or https://, such as http://127.0.0.1:11434.',
    );
    // Nothing was saved.
    expect(await workbench.host.invoke('provider:list', {})).toMatchObject({ ok: true, value: [] });

    await form.getByLabel('Base URL').fill(`http://127.0.0.1:${port}`);
    await form.getByRole('button', { name: 'Save endpoint' }).click();
    await expectPage(form.getByRole('alert', { name: 'Saved endpoint' })).toHaveText(
      `Saved “127.0.0.1:${port}”, but it cannot be reached now. Nothing is listening at http://127.0.0.1:${port}: the model server is not running there, or uses another port.`,
    );
    await expectPage(dialog.getByLabel('Unreachable')).toHaveText('unreachable');
    await workbench.screenshotAtSizes('settings-saved-unreachable');
  });

  it('the model of new sessions is set in Settings, from what the endpoint lists', async () => {
    const workbench = await open();
    const { page, host, server } = workbench;
    const saved = await host.invoke('provider:save', { kind: 'openai-compatible', name: 'Scripted', baseUrl: server.openaiBaseUrl });
    if (!saved.ok) throw new Error(saved.error.message);
    await page.reload();
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await expectPage(dialog.getByLabel('Default endpoint')).toHaveValue('');
    await dialog.getByLabel('Default endpoint').selectOption({ label: 'Scripted' });
    await expectPage(dialog.getByLabel('Default model')).toHaveValue('scripted-model');
    await dialog.getByLabel('Default model').selectOption('scripted-large');
    await workbench.screenshot('settings-default-model');
    await dialog.getByRole('button', { name: 'Close settings' }).click();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    await expectPage(page.getByLabel('Model endpoint')).toHaveValue((saved.value as { id: string }).id);
    await expectPage(page.getByLabel('Model', { exact: true })).toHaveValue('scripted-large');
    const settings = await host.invoke('settings:get', {});
    expect(settings.ok && (settings.value as { defaultModel: unknown }).defaultModel).toMatchObject({ model: 'scripted-large' });
  });

  it('says why Send is off when no endpoint exists yet, and when the model is not one the endpoint has', async () => {
    const workbench = await open();
    const { page } = workbench;
    await page.getByRole('button', { name: '+ New session' }).first().click();
    const why = page.getByRole('status', { name: 'Why Send is off' });
    await expectPage(why).toHaveText('Add a model endpoint in Settings to send.');

    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    // The new session is the one shown, on the scripted model, before its model is typed over.
    await expectPage(page.getByRole('listitem').filter({ hasText: 'New session' })).toHaveCount(2);
    const model = page.getByLabel('Model', { exact: true });
    await expectPage(model).toHaveValue('scripted-model');
    await expectPage(why).toHaveCount(0);
    await model.fill('no-such-model');
    await model.press('Enter');
    await expectPage(why).toHaveText('Scripted has no model “no-such-model”: pick one it lists.');
    await expectPage(page.getByRole('button', { name: 'Send' })).toBeDisabled();
    await model.fill('scripted-large');
    await expectPage(why).toHaveCount(0);
  });
});
