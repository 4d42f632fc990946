import { fileURLToPath } from 'node:url';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import type { Settings } from '../../src/shared/domain';
import { useWorkbenches, type Workbench } from './fixture';

const everything = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

/* An MCP server added with the form: its fields checked where they are typed, and saved as the same JSON would be. */
describe('the MCP server form in Settings', () => {
  const open = useWorkbenches();

  const stored = async (workbench: Workbench): Promise<Settings['mcpServers']> => {
    const settings = await workbench.host.invoke('settings:get', {});
    if (!settings.ok) throw new Error(settings.error.message);
    return (settings.value as Settings).mcpServers;
  };

  it('adds a stdio server with two arguments and a variable, saving what the same JSON saves', async () => {
    const workbench = await open();
    const { page } = workbench;
    await page.getByRole('button', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'MCP servers' });
    const form = section.getByRole('form', { name: 'Add an MCP server' });
    await form.getByLabel('Name', { exact: true }).fill('everything');
    await expectPage(form.getByRole('radio', { name: 'A command it starts (stdio)' })).toBeChecked();
    await form.getByLabel('Command', { exact: true }).fill(process.execPath);
    await form.getByLabel('Argument 1', { exact: true }).fill(everything);
    await form.getByRole('button', { name: 'Add an argument' }).click();
    await form.getByLabel('Argument 2', { exact: true }).fill('stdio');
    await form.getByRole('button', { name: 'Add a variable' }).click();
    await form.getByLabel('Name of variable 1', { exact: true }).fill('GREETING');
    await form.getByLabel('Value of variable 1', { exact: true }).fill('hello world');
    await workbench.screenshot('mcp-form-filled');
    await form.getByRole('button', { name: 'Add server' }).click();

    const item = section.getByRole('listitem').filter({ hasText: 'everything' });
    await expectPage(item).toContainText('running', { timeout: 15_000 });
    await expectPage(item).toContainText(/\d+ tools/);
    const fromForm = await stored(workbench);
    expect(fromForm).toEqual({
      everything: {
        command: process.execPath,
        args: [everything, 'stdio'],
        env: { GREETING: 'hello world' },
        disabled: false,
        trusted: false,
      },
    });
    // The form is empty again, for the next one.
    await expectPage(form.getByLabel('Name', { exact: true })).toHaveValue('');

    // The same server written as JSON, after taking it away, is stored the same.
    await section.getByRole('button', { name: 'Edit as JSON' }).click();
    const json = section.getByLabel('MCP configuration');
    expect(JSON.parse(await json.inputValue())).toEqual(fromForm);
    await json.fill('{}');
    await section.getByRole('button', { name: 'Save and restart servers' }).click();
    await expectPage(item).toHaveCount(0);
    expect(await stored(workbench)).toEqual({});
    await json.fill(
      JSON.stringify({ everything: { command: process.execPath, args: [everything, 'stdio'], env: { GREETING: 'hello world' } } }),
    );
    await section.getByRole('button', { name: 'Save and restart servers' }).click();
    await expectPage(item).toContainText('running', { timeout: 15_000 });
    expect(await stored(workbench)).toEqual(fromForm);

    // Edit opens the form on the server as saved.
    await section.getByRole('button', { name: 'Use the form' }).click();
    await section.getByRole('button', { name: 'Edit everything' }).click();
    const edit = section.getByRole('form', { name: 'Edit everything' });
    await expectPage(edit.getByLabel('Argument 2', { exact: true })).toHaveValue('stdio');
    await expectPage(edit.getByLabel('Value of variable 1', { exact: true })).toHaveValue('hello world');
    await edit.getByRole('button', { name: 'Cancel' }).click();
    await expectPage(form).toBeVisible();
  });

  it('says at each field what is wrong, a missing command first, and saves nothing', async () => {
    const workbench = await open();
    const { page } = workbench;
    await page.getByRole('button', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'MCP servers' });
    const form = section.getByRole('form', { name: 'Add an MCP server' });
    await form.getByLabel('Name', { exact: true }).fill('notes');
    await form.getByLabel('Argument 1', { exact: true }).fill('server.js');
    await form.getByRole('button', { name: 'Add server' }).click();
    const command = form.getByLabel('Command', { exact: true });
    await expectPage(command).toHaveAttribute('aria-invalid', 'true');
    await expectPage(command).toHaveAccessibleDescription('Enter the command that starts the server, such as npx or uvx.');
    await expectPage(form.getByRole('alert')).toHaveText('Not saved: see the fields marked.');
    await workbench.screenshot('mcp-form-missing-command');
    expect(await stored(workbench)).toEqual({});
    const listed = await workbench.host.invoke('mcp:list', {});
    expect(listed.ok && listed.value).toEqual([]);

    // Once tried, each field says what is wrong as it is typed.
    await command.fill('node');
    await expectPage(command).toHaveAttribute('aria-invalid', 'false');
    await form.getByLabel('Name', { exact: true }).fill('my notes');
    await expectPage(form.getByLabel('Name', { exact: true })).toHaveAccessibleDescription('A name is 1 to 40 letters, digits, - and _.');
    await form.getByLabel('Name', { exact: true }).fill('notes');
    await form.getByRole('button', { name: 'Add a variable' }).click();
    await form.getByLabel('Name of variable 1', { exact: true }).fill('2FAST');
    await expectPage(form.getByLabel('Name of variable 1', { exact: true })).toHaveAccessibleDescription(
      'A variable’s name is letters, digits and _, not starting with a digit.',
    );
    await form.getByRole('radio', { name: 'A URL (streamable HTTP)' }).check();
    await form.getByLabel('URL', { exact: true }).fill('ftp://example.com/mcp');
    await form.getByRole('button', { name: 'Add server' }).click();
    await expectPage(form.getByLabel('URL', { exact: true })).toHaveAccessibleDescription(
      'The address must start with http:// or https://.',
    );
    expect(await stored(workbench)).toEqual({});
  });
});
