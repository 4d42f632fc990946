import { fileURLToPath } from 'node:url';
import { expect as expectPage } from 'playwright/test';
import { describe, it } from 'vitest';
import { useWorkbenches } from './fixture';

const everything = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

describe('settings in the workbench', () => {
  const open = useWorkbenches();

  it('adds an MCP server from its JSON, shows it running with its tools, and disables it', async () => {
    const workbench = await open();
    const { page } = workbench;
    await page.getByRole('button', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'MCP servers' });
    await section
      .getByLabel('MCP configuration')
      .fill(JSON.stringify({ everything: { command: process.execPath, args: [everything, 'stdio'] } }));
    await section.getByRole('button', { name: 'Save and restart servers' }).click();
    const item = section.getByRole('listitem').filter({ hasText: 'everything' });
    await expectPage(item).toContainText('running', { timeout: 15_000 });
    await expectPage(item).toContainText(/\d+ tools/);
    await expectPage(page.getByLabel('Sandbox status')).toContainText(/sandbox/i);
    await workbench.screenshot('settings-mcp-running');
    await item.getByLabel('Enable everything').click();
    await expectPage(item).toContainText('disabled');
    await section.getByLabel('MCP configuration').fill('{ not json');
    await section.getByRole('button', { name: 'Save and restart servers' }).click();
    await expectPage(section.getByRole('alert')).toContainText('Not valid JSON');
  });
});
