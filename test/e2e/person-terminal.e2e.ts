import { realpathSync } from 'node:fs';
import { expect as expectPage } from 'playwright/test';
import { afterEach, describe, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { useWorkbenches } from './fixture';

/* A terminal the person types in, in the session's folder, beside the agent's. */
describe('the person’s own terminal', () => {
  const open = useWorkbenches();
  const folders: Array<{ remove: () => void }> = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) folder.remove();
  });

  it('opens in the session’s folder, runs what is typed, keeps running across tabs, and starts anew after exit', async () => {
    const workspace = temporaryFolder('workbench-person-terminal-');
    folders.push(workspace);
    const workbench = await open({ folderPicker: { pickFolder: async () => workspace.path } });
    const { page } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    // The session shown first: the details panel is drawn with it, open as the layout left it.
    await expectPage(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
    await expectPage(page.getByRole('heading', { name: 'New session' })).toBeVisible();
    const details = page.getByRole('complementary', { name: 'Details' });
    if (!(await details.isVisible())) await page.keyboard.press('Control+j');
    // No folder yet: it says what it needs.
    await details.getByRole('tab', { name: 'Terminal' }).click();
    await expectPage(details).toContainText('Choose a folder for this session to open a terminal in it.');
    await page.getByRole('button', { name: 'Choose folder…' }).click();

    const terminal = details.getByRole('region', { name: 'Terminal' });
    const screen = terminal.locator('.xterm-rows');
    await expectPage(terminal).toContainText('outside the sandbox');
    await terminal.locator('.xterm').click();
    await page.keyboard.type('pwd; echo hello-$((6*7))');
    await page.keyboard.press('Enter');
    // A shell's start (its rc files) can take seconds on a busy machine; what was typed meanwhile waits for it.
    await expectPage(screen).toContainText('hello-42', { timeout: 20_000 });
    await expectPage(screen).toContainText(realpathSync(workspace.path));
    await workbench.screenshot('person-terminal');

    // Another tab and back: the same shell, its output still there.
    await details.getByRole('tab', { name: 'Plan' }).click();
    await details.getByRole('tab', { name: 'Terminal' }).click();
    await expectPage(screen).toContainText('hello-42');
    await terminal.locator('.xterm').click();
    await page.keyboard.type('echo again-$((1+1))');
    await page.keyboard.press('Enter');
    await expectPage(screen).toContainText('again-2');

    await page.keyboard.type('exit');
    await page.keyboard.press('Enter');
    await expectPage(screen).toContainText('The shell ended with code 0');
    await terminal.getByRole('button', { name: 'New terminal' }).click();
    await terminal.locator('.xterm').click();
    await page.keyboard.type('echo fresh-$((2*5))');
    await page.keyboard.press('Enter');
    await expectPage(terminal.locator('.xterm-rows')).toContainText('fresh-10', { timeout: 20_000 });
  });
});
