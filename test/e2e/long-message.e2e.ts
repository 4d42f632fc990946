import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

describe('a long message in the conversation', () => {
  const open = useWorkbenches();

  it('folds to its start with “Show all”, opens whole, and is sent whole', async () => {
    const workbench = await open();
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    const long = Array.from({ length: 400 }, (_, index) => `Line ${index + 1} of the pasted log, with some detail.`).join('\n');
    server.enqueue(textTurn('Read it all.'));
    await page.getByRole('textbox', { name: 'Message' }).fill(long);
    await page.getByRole('button', { name: 'Send' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' })).toHaveText('Read it all.');
    const message = page.getByRole('article', { name: 'Your message' });
    const more = message.getByRole('button', { name: `Show all (${long.length.toLocaleString('en-US')} characters)` });
    await expectPage(more).toBeVisible();
    expect((await message.locator('.user-text').innerText()).length).toBeLessThan(1_600);
    await workbench.screenshotAtSizes('long-message-folded');
    await more.click();
    await expectPage(message.locator('.user-text')).toContainText('Line 400 of the pasted log');
    await message.getByRole('button', { name: 'Show less' }).click();
    await expectPage(message.locator('.user-text')).not.toContainText('Line 400');
    // The model was sent all of it.
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('Line 400 of the pasted log');
  });
});
