import type { Page } from 'playwright';
import { expect as expectPage } from 'playwright/test';
import { textTurn, type ScriptedTurn } from '../scripted-model-server/script';

/** What the workspace's note says, which the model's tool call reads and the window then shows. */
export const noteText = 'Smoke notes: the window showed this file.';

/** The endpoint's name in Settings and in the session's picker. */
export const endpointName = 'Scripted server';

/**
 * Adds an endpoint as a person does: Settings, the form "Add an endpoint", a connection test that lists the server's
 * models, Save; then closes Settings.
 */
export async function addEndpointInSettings(page: Page, baseUrl: string): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  // The dialog has other forms with a name (an MCP server's): this is the endpoint's.
  const form = dialog.getByRole('form', { name: 'Add an endpoint' });
  await form.getByLabel('Name').fill(endpointName);
  await form.getByLabel('Base URL').fill(baseUrl);
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await expectPage(dialog.getByRole('status')).toContainText('scripted-model');
  await dialog.getByRole('button', { name: 'Save endpoint' }).click();
  await expectPage(dialog.getByRole('strong').filter({ hasText: /^Scripted server$/ })).toBeVisible();
  await dialog.getByRole('button', { name: 'Close settings' }).click();
}

/** The model's two answers: a call of `read_file` on the note, then an answer that quotes it. */
export const scriptedTurns: readonly ScriptedTurn[] = [
  {
    steps: [
      { kind: 'text', text: 'Reading your notes.' },
      { kind: 'tool_call', id: 'call_read', name: 'read_file', arguments: JSON.stringify({ path: 'notes.md' }) },
    ],
  },
  textTurn(`The note says: ${noteText}`),
];

/**
 * In the session on screen (opened in the folder that holds `notes.md`): picks the endpoint, sends a message, and
 * waits for the tool call's card with the note in its result and for the answer, with the session done.
 */
export async function sendScriptedTurn(page: Page): Promise<void> {
  await page.getByLabel('Model endpoint').selectOption({ label: endpointName });
  await expectPage(page.getByLabel('Model', { exact: true })).toHaveValue('scripted-model');
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('What is in my notes?');
  await box.press('Enter');
  const card = page.getByRole('region', { name: 'Tool read_file' });
  await expectPage(card).toBeVisible();
  await expectPage(card).toContainText('notes.md');
  await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText(`The note says: ${noteText}`, { timeout: 30_000 });
  await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('done');
  // Opened, the card shows what the tool read from the workspace: the file itself, not the script.
  await card.getByText('read_file', { exact: true }).click();
  await expectPage(card).toContainText(noteText);
}
