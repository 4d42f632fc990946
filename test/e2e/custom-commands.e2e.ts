import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches, type Workbench } from './fixture';

/* The person's own `/` commands from command files, /help and /init: listed, expanded and sent as ordinary messages. */
describe('custom slash commands, /help and /init', () => {
  const open = useWorkbenches();
  const folders: Array<{ remove: () => void }> = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) folder.remove();
  });

  async function start(): Promise<{ workbench: Workbench; workspace: string }> {
    const folder = temporaryFolder('workbench-commands-e2e-');
    folders.push(folder);
    const workspace = folder.path;
    mkdirSync(join(workspace, '.agents/commands'), { recursive: true });
    writeFileSync(
      join(workspace, '.agents/commands/review.md'),
      '---\ndescription: Review a file for bugs\nargument-hint: <file> [focus]\n---\nReview $1 for bugs, looking hardest at $2. Say what you would change.\n',
    );
    // A file that would take a built-in name is left out, and /help says why.
    writeFileSync(join(workspace, '.agents/commands/help.md'), 'My own help.');
    writeFileSync(join(workspace, 'main.py'), 'print("hello")\n');
    const workbench = await open({ folderPicker: { pickFolder: async () => workspace } });
    await workbench.configureScriptedModel();
    await workbench.page.getByRole('button', { name: '+ New session' }).first().click();
    await workbench.page.getByRole('button', { name: 'Choose folder…' }).click();
    await expectPage(workbench.page.getByRole('tree', { name: 'Workspace files' })).toBeVisible();
    return { workbench, workspace };
  }

  /** The last user message the model was sent. */
  const sentToModel = (workbench: Workbench): string => {
    const messages = (workbench.server.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> }).messages;
    return messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
  };

  it('lists a workspace command in the / menu with its description, and sends its prompt with the arguments put in', async () => {
    const { workbench } = await start();
    const { page, server } = workbench;
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('/rev');
    const option = page.getByRole('listbox', { name: 'Commands' }).getByRole('option');
    await expectPage(option).toHaveCount(1);
    await expectPage(option).toContainText('/review <file> [focus]');
    await expectPage(option).toContainText('Review a file for bugs');
    await expectPage(option).toContainText('this workspace');
    await workbench.screenshotAtSizes('custom-commands-menu');
    await message.press('Tab');
    await expectPage(message).toHaveValue('/review ');
    await message.pressSequentially('main.py "error handling"');
    server.enqueue(textTurn('The print call is fine.'));
    await message.press('Enter');
    await expectPage(page.getByText('The print call is fine.')).toBeVisible();
    expect(sentToModel(workbench)).toBe('Review main.py for bugs, looking hardest at error handling. Say what you would change.');
    await expectPage(message).toHaveValue('');
  });

  it('/help lists the built-in and workspace commands, the files left out and the main shortcuts, without asking the model', async () => {
    const { workbench } = await start();
    const { page, server } = workbench;
    const message = page.getByRole('textbox', { name: 'Message' });
    const before = server.requests.length;
    await message.fill('/help');
    await message.press('Enter');
    const help = page.getByRole('dialog', { name: 'Help' });
    await expectPage(help.getByRole('region', { name: 'Built-in commands' })).toContainText('/init [what to stress]');
    const own = help.getByRole('region', { name: 'Your commands' });
    await expectPage(own).toContainText('/review <file> [focus]');
    await expectPage(own).toContainText('Review a file for bugs');
    await expectPage(own).toContainText('this workspace: .agents/commands/review.md');
    await expectPage(own.getByRole('list', { name: 'Command files left out' })).toContainText(
      '.agents/commands/help.md was left out: /help is a built-in command, which a file cannot replace.',
    );
    await expectPage(help.getByRole('region', { name: 'Message box' })).toContainText('Shift+Enter');
    await workbench.screenshotAtSizes('custom-commands-help');
    expect(server.requests.length).toBe(before);
    await expectPage(page.getByRole('article', { name: 'Your message' })).toHaveCount(0);
    await help.getByRole('button', { name: 'Close help' }).click();
    await expectPage(help).toHaveCount(0);
    await expectPage(message).toHaveValue('');
  });

  it('/init asks the agent to draft AGENTS.md as an ordinary turn, and to improve the one there once it exists', async () => {
    const { workbench, workspace } = await start();
    const { page, server } = workbench;
    const message = page.getByRole('textbox', { name: 'Message' });
    server.enqueue(textTurn('I will look around first.'));
    await message.fill('/init mention the Python version');
    await message.press('Enter');
    await expectPage(page.getByText('I will look around first.')).toBeVisible();
    const first = sentToModel(workbench);
    expect(first).toContain('draft an AGENTS.md at its root');
    expect(first).toContain('how to install its dependencies, build it, run it, test it');
    expect(first).toMatch(/Also: mention the Python version$/);
    await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('done');

    writeFileSync(join(workspace, 'AGENTS.md'), '# Project\n');
    server.enqueue(textTurn('I will improve it.'));
    await message.fill('/init');
    await message.press('Enter');
    await expectPage(page.getByText('I will improve it.')).toBeVisible();
    expect(sentToModel(workbench)).toContain('An AGENTS.md is already there: read it first and improve it rather than replace it.');
  });

  it('/help opens while a turn runs, and Esc closes it without stopping the turn', async () => {
    const { workbench } = await start();
    const { page, server } = workbench;
    const message = page.getByRole('textbox', { name: 'Message' });
    server.enqueue(textTurn('A slow answer that keeps streaming for a while.', { chunkSize: 4, chunkDelayMs: 300 }));
    await message.fill('Take your time');
    await message.press('Enter');
    await expectPage(page.getByRole('button', { name: 'Queue' })).toBeVisible();
    await message.fill('/help');
    await message.press('Enter');
    const help = page.getByRole('dialog', { name: 'Help' });
    await expectPage(help).toBeVisible();
    await page.keyboard.press('Escape');
    await expectPage(help).toHaveCount(0);
    await expectPage(page.getByText('A slow answer that keeps streaming for a while.')).toBeVisible();
    await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('done');
  });
});
