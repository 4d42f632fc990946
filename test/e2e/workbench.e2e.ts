import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

describe('the workbench in Chromium, through the test host', () => {
  const open = useWorkbenches();

  it('adds an endpoint in Settings, tests it, and streams an answer as markdown', async () => {
    const workbench = await open();
    const { page, server } = workbench;
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    // The dialog has other forms with a name (an MCP server's): this is the endpoint's.
    const form = dialog.getByRole('form', { name: 'Add an endpoint' });
    await form.getByLabel('Name').fill('Scripted server');
    await form.getByLabel('Base URL').fill(server.openaiBaseUrl);
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    // Among the dialog's other states (the updater's): the connection test's.
    await expectPage(dialog.getByRole('status').filter({ hasText: 'models:' })).toContainText('2 models: scripted-model, scripted-large');
    await workbench.screenshot('settings-connection-test');
    await dialog.getByRole('button', { name: 'Save endpoint' }).click();
    // Listed among the endpoints (its name is also offered where a model's window can be set).
    await expectPage(dialog.getByRole('strong').filter({ hasText: /^Scripted server$/ })).toBeVisible();
    await dialog.getByRole('button', { name: 'Close settings' }).click();

    await page.getByRole('button', { name: '+ New session' }).first().click();
    // With no default model, nothing is picked yet, and Send says so.
    await expectPage(page.getByRole('status', { name: 'Why Send is off' })).toHaveText('Pick an endpoint and a model to send.');
    await page.getByLabel('Model endpoint').selectOption({ label: 'Scripted server' });
    // The endpoint's first model is taken and saved at once.
    await expectPage(page.getByLabel('Model', { exact: true })).toHaveValue('scripted-model');
    await page.getByRole('textbox', { name: 'Message' }).click();
    await expectPage
      .poll(async () => {
        const sessions = await workbench.host.invoke('session:list', {});
        return sessions?.ok ? (sessions.value as Array<{ model: unknown }>)[0]?.model : null;
      })
      .toMatchObject({ model: 'scripted-model' });

    const answer = 'Here is **bold** and a list:\n\n- first item\n- second item\n\n```js\nconsole.log("hi")\n```\n';
    server.enqueue({
      steps: [
        { kind: 'reasoning', text: 'Planning the answer.' },
        { kind: 'text', text: answer, chunkSize: 2 },
      ],
      chunkDelayMs: 25,
    });
    await page.getByRole('textbox', { name: 'Message' }).fill('Show me some markdown');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');

    const reply = page.getByRole('article', { name: 'Answer' });
    await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('thinking');
    await expectPage(reply).toContainText('Here is');
    // Still streaming: part of the text is there, the rest is not yet.
    expect(await reply.getAttribute('data-state')).toBe('streaming');
    await workbench.screenshot('answer-streaming');
    await expectPage(reply).toHaveAttribute('data-state', 'done', { timeout: 10_000 });
    await expectPage(reply.locator('strong')).toHaveText('bold');
    await expectPage(reply.locator('li')).toHaveText(['first item', 'second item']);
    await expectPage(reply.locator('pre code')).toContainText('console.log("hi")');
    await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('done');
    await reply.getByText('Reasoning').click();
    await expectPage(reply.getByText('Planning the answer.')).toBeVisible();
    await workbench.screenshot('answer-complete');
    expect(server.requests[0]?.body['model']).toBe('scripted-model');
  });

  it('stops a slow stream with the Stop button and keeps what arrived', async () => {
    const workbench = await open();
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue(textTurn('slowly '.repeat(300), { chunkSize: 7, chunkDelayMs: 40 }));
    await page.getByRole('textbox', { name: 'Message' }).fill('Write slowly');
    await page.getByRole('button', { name: 'Send' }).click();
    const reply = page.getByRole('article', { name: 'Answer' });
    await expectPage(reply).toContainText('slowly slowly');
    const stopAt = Date.now();
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('stopped');
    expect(Date.now() - stopAt).toBeLessThan(2000);
    await expectPage(reply).toHaveAttribute('data-state', 'cancelled');
    await expectPage(reply.getByText('Stopped')).toBeVisible();
    const shown = (await reply.textContent()) ?? '';
    expect(shown.length).toBeLessThan('slowly '.repeat(300).length);
    await workbench.screenshot('stopped-stream');
    await expectPage(page.getByRole('button', { name: 'Stop', exact: true })).toHaveCount(0);
  });

  it('keeps the session and its history across a reload and a restart of the app', async () => {
    const workbench = await open();
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue(textTurn('Remember this answer.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Please remember');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' })).toHaveText('Remember this answer.');

    await page.reload();
    await expectPage(page.getByRole('article', { name: 'Your message' })).toHaveText('Please remember');
    await expectPage(page.getByRole('article', { name: 'Answer' })).toHaveText('Remember this answer.');

    await workbench.restart();
    await expectPage(page.getByRole('article', { name: 'Your message' })).toHaveText('Please remember');
    await expectPage(page.getByRole('article', { name: 'Answer' })).toHaveText('Remember this answer.');
    await workbench.screenshot('history-after-restart');
  });

  it('shows a clear error in place when the server fails mid-session, and the session stays usable', async () => {
    const workbench = await open();
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    // The server answered its model list, then fails every attempt of the turn (the host retries once).
    const crashed = { steps: [], fault: { kind: 'status' as const, status: 500, message: 'llama runner process has terminated' } };
    server.enqueue(crashed, crashed);
    await page.getByRole('textbox', { name: 'Message' }).fill('Is anyone there?');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const alert = page.getByRole('article', { name: 'Answer' }).getByRole('alert');
    await expectPage(alert).toContainText(`The model server at ${server.openaiBaseUrl} failed (500). Its own log says why`);
    await expectPage(alert).toContainText('The server said: llama runner process has terminated');
    await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('failed');
    await workbench.screenshot('endpoint-down');

    server.enqueue(textTurn('I am here now.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('And now?');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('I am here now.');
  });

  it('sets the workspace from the folder dialog, renames and deletes sessions', async () => {
    const workspace = temporaryFolder('workbench-workspace-');
    const workbench = await open({ folderPicker: { pickFolder: async () => workspace.path } });
    const { page } = workbench;
    await page.getByRole('button', { name: 'New session' }).first().click();
    await page.getByRole('button', { name: 'Choose folder…' }).click();
    await expectPage(page.getByLabel('Workspace').locator('code')).toHaveText(workspace.path);

    await page.getByRole('button', { name: 'Rename New session' }).click();
    await page.getByLabel('Session title').fill('Refactor the parser');
    await page.getByLabel('Session title').press('Enter');
    await expectPage(page.getByRole('heading', { name: 'Refactor the parser' })).toBeVisible();
    await page.reload();
    await expectPage(page.getByRole('heading', { name: 'Refactor the parser' })).toBeVisible();
    await workbench.screenshot('workspace-and-rename');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete Refactor the parser' }).click();
    await expectPage(page.getByText('No sessions yet.')).toBeVisible();
    workspace.remove();
  });

  it('shows an error screen, and changes nothing, when the database is from a newer version', async () => {
    const folder = temporaryFolder('workbench-e2e-newer-');
    const BetterSqlite3 = (await import('better-sqlite3')).default;
    const db = new BetterSqlite3(join(folder.path, 'workbench.sqlite'));
    db.pragma('user_version = 99');
    db.close();
    writeFileSync(join(folder.path, 'marker'), '');
    const { startTestHost } = await import('../host/host');
    const { launchBrowser } = await import('./fixture');
    const host = await startTestHost({ dataDir: folder.path });
    const page = await (await launchBrowser()).newPage();
    await page.goto(host.url);
    await expectPage(page.getByRole('alert')).toContainText('written by a newer version of Agent Workbench');
    await page.screenshot({ path: join(import.meta.dirname, '../../test-results/screenshots/startup-error.png') });
    await page.close();
    await host.close();
    const check = new BetterSqlite3(join(folder.path, 'workbench.sqlite'), { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(99);
    check.close();
    folder.remove();
  });
});
