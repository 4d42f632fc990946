import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

/* The composer's commands: listed when `/` is typed, each doing what it says, and a wrong one said inline, nothing sent. */
describe('slash commands in the composer', () => {
  const open = useWorkbenches();

  it('lists, completes and runs /autonomy, /model, /export and /clear; refuses an unknown one inline', async () => {
    const workspace = temporaryFolder('workbench-slash-');
    const workbench = await open({ folderPicker: { pickFolder: async () => workspace.path } });
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    await page.getByRole('button', { name: 'Choose folder…' }).click();
    const message = page.getByRole('textbox', { name: 'Message' });

    await message.fill('/');
    const menu = page.getByRole('listbox', { name: 'Commands' });
    await expectPage(menu.getByRole('option')).toHaveCount(7);
    // A screen reader hears which command is highlighted while the focus stays in the box.
    await expectPage(message).toHaveAttribute('aria-controls', (await menu.getAttribute('id')) ?? 'no menu id');
    const highlighted = page.locator(`[id="${(await message.getAttribute('aria-activedescendant')) ?? ''}"]`);
    await expectPage(highlighted).toHaveAttribute('aria-selected', 'true');
    await workbench.screenshotAtSizes('slash-menu');
    // Enter on a name still being typed completes the highlighted command; it sends nothing.
    const sentBefore = server.requests.length;
    await message.press('ArrowDown');
    await message.press('Enter');
    await expectPage(message).toHaveValue('/clear ');
    expect(server.requests.length).toBe(sentBefore);
    await message.fill('/au');
    await message.press('Tab');
    await expectPage(message).toHaveValue('/autonomy ');
    await message.pressSequentially('L3');
    await message.press('Enter');
    await expectPage(message).toHaveValue('');
    await expectPage(page.getByLabel('Autonomy')).toHaveValue('L3');

    await message.fill('/model scripted-large');
    await message.press('Enter');
    await expectPage(page.getByLabel('Model', { exact: true })).toHaveValue('scripted-large');
    await message.fill('/model no-such-model');
    await message.press('Enter');
    await expectPage(page.getByRole('alert', { name: 'Command problem' })).toHaveText(
      'This endpoint has no model “no-such-model”. Its models: scripted-model, scripted-large.',
    );

    const requestsBefore = server.requests.length;
    await message.fill('/deploy now');
    await message.press('Enter');
    await expectPage(page.getByRole('alert', { name: 'Command problem' })).toContainText('There is no command /deploy.');
    await expectPage(message).toHaveValue('/deploy now');
    expect(server.requests.length).toBe(requestsBefore);

    const downloaded = page.waitForEvent('download');
    await message.fill('/export');
    await message.press('Enter');
    expect((await downloaded).suggestedFilename()).toMatch(/\.json$/);

    // A fresh session in the same folder, on the same model.
    await message.fill('/clear');
    await message.press('Enter');
    await expectPage(page.getByRole('listitem').filter({ hasText: 'New session' })).toHaveCount(2);
    // The new session takes the old one's own pick just after it is made.
    const sessions = async () => {
      const listed = await host.invoke('session:list', {});
      return listed.ok ? (listed.value as Array<{ workspacePath: string; model: { model: string } }>) : [];
    };
    await expectPage.poll(async () => (await sessions())[0]?.model.model).toBe('scripted-large');
    expect((await sessions()).map((session) => session.workspacePath)).toEqual([workspace.path, workspace.path]);
    await expectPage(page.getByLabel('Model', { exact: true })).toHaveValue('scripted-large');
    workspace.remove();
  });

  it('/compact summarizes with the instructions given', async () => {
    const workbench = await open();
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    const message = page.getByRole('textbox', { name: 'Message' });
    for (const text of ['First question', 'Second question', 'Third question']) {
      // Long answers, so the older ones no longer fit the part of the window kept as it is; short enough that the third
      // request stays under the threshold, counted on the safe side by the ratio the first (system prompt) request set.
      server.enqueue(textTurn(`Answer to ${text}. ${'More detail follows here. '.repeat(1_300)}`));
      await message.fill(text);
      await message.press('Enter');
      await expectPage(page.getByRole('article', { name: 'Answer' }).filter({ hasText: `Answer to ${text}.` })).toBeVisible();
      await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('done');
    }
    server.enqueue(textTurn('Summary: three questions were asked.'));
    await message.fill('/compact keep the question numbers');
    await message.press('Enter');
    await expectPage(message).toHaveValue('');
    await expectPage.poll(() => JSON.stringify(server.requests.at(-1)?.body ?? {})).toContain('keep the question numbers');
  });
});
