import { fileURLToPath } from 'node:url';
import { expect as expectPage } from 'playwright/test';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { closeBrowser, openWorkbench, type Workbench } from './fixture';

const everything = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

describe('settings in the workbench', () => {
  let workbench: Workbench | null = null;
  afterEach(async () => {
    if (workbench) expect(workbench.pageErrors).toEqual([]);
    await workbench?.close();
    workbench = null;
  });
  afterAll(closeBrowser);

  it('adds an MCP server from its JSON, shows it running with its tools, and disables it', async () => {
    workbench = await openWorkbench();
    const { page } = workbench;
    await page.getByRole('button', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'MCP servers' });
    await section.getByLabel('MCP configuration').fill(JSON.stringify({ everything: { command: process.execPath, args: [everything, 'stdio'] } }));
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
