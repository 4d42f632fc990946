import { fileURLToPath } from 'node:url';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it, onTestFinished } from 'vitest';
import { systemClock } from '../../src/main/agent/ports/clock';
import { testTools, toolCall } from '../main/agent/harness';
import { closedPort } from '../helpers';
import { ScriptedModelServer, textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

const everything = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

describe('settings in the workbench', () => {
  const open = useWorkbenches();

  it('adds an MCP server from its JSON, shows it running with its tools, and disables it', async () => {
    const workbench = await open();
    const { page } = workbench;
    await page.getByRole('button', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'MCP servers' });
    await section.getByRole('button', { name: 'Edit as JSON' }).click();
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

  it('lists the tools, built-in and of MCP servers, and a tool set to never run is neither offered nor run', async () => {
    const log: string[] = [];
    const workbench = await open({ tools: testTools(log).tools });
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    await host.invoke('mcp:configure', { mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } });
    await page.getByRole('button', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'Tools' });
    const builtIn = section.getByRole('list', { name: 'Built-in tools' });
    await expectPage(builtIn.getByRole('listitem').filter({ hasText: 'write_note' })).toContainText('Writes a note.');
    await expectPage(section.getByRole('list', { name: 'everything (MCP server) tools' }).getByRole('listitem').first()).toContainText(
      'everything__',
      { timeout: 15_000 },
    );
    const neverPublish = builtIn.getByLabel('Never run publish');
    await expectPage(neverPublish).not.toBeChecked();
    await neverPublish.click();
    await expectPage(neverPublish).toBeChecked();
    await workbench.screenshot('settings-tools-denied');
    const saved = await host.invoke('settings:get', {});
    expect(saved.ok && (saved.value as { deniedTools: string[] }).deniedTools).toEqual(['publish']);
    await page.getByRole('button', { name: 'Close settings' }).click();

    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue({ steps: [toolCall('publish', { target: 'site' })] }, textTurn('It is denied.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Publish it');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('It is denied.');
    const offered = (server.requests[0]?.body['tools'] as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(offered).toContain('write_note');
    expect(offered).not.toContain('publish');
    expect(log).toEqual([]);

    // Kept across a reload, and allowed again with the same switch.
    await page.reload();
    await page.getByRole('button', { name: 'Settings' }).click();
    await expectPage(page.getByRole('region', { name: 'Tools' }).getByLabel('Never run publish')).toBeChecked();
    await page.getByRole('region', { name: 'Tools' }).getByLabel('Never run publish').click();
    await expectPage(page.getByRole('region', { name: 'Tools' }).getByLabel('Never run publish')).not.toBeChecked();
    const allowed = await host.invoke('settings:get', {});
    expect(allowed.ok && (allowed.value as { deniedTools: string[] }).deniedTools).toEqual([]);
  });

  it('a local server found and saved shows as saved, each Add names its server, and one model is “1 model”', async () => {
    const studio = await ScriptedModelServer.start({ models: [{ id: 'only-model' }] });
    onTestFinished(() => studio.close());
    const workbench = await open({
      discoveryCandidates: [
        { name: 'LM Studio', kind: 'openai-compatible', baseUrl: studio.openaiBaseUrl },
        { name: 'Ollama', kind: 'ollama', baseUrl: `http://127.0.0.1:${await closedPort()}` },
      ],
    });
    const { page, host } = workbench;
    // The window is up (the first run's page) before its keys are used.
    await expectPage(page.getByRole('heading', { name: 'Agent Workbench' })).toBeVisible();
    await page.keyboard.press('Control+,');
    const settings = page.getByRole('dialog', { name: 'Settings' });
    await settings.getByRole('button', { name: 'Find local servers' }).click();
    const found = settings.getByRole('list', { name: 'Servers found' });
    const row = found.getByRole('listitem', { name: `LM Studio at ${studio.openaiBaseUrl}` });
    await expectPage(row).toContainText('1 model');
    await expectPage(row).not.toContainText('1 models');
    await row.getByRole('button', { name: `Add LM Studio at ${studio.openaiBaseUrl}` }).click();
    await expectPage(row).toContainText('Saved');
    await expectPage(row.getByRole('button', { name: /^Add / })).toHaveCount(0);

    // Looked for again, the server is still the one saved: nothing to add twice.
    await settings.getByRole('button', { name: 'Find local servers' }).click();
    await expectPage(row).toContainText('Saved');
    await expectPage(row.getByRole('button', { name: /^Add / })).toHaveCount(0);
    const providers = await host.invoke('provider:list', {});
    expect(providers.ok && (providers.value as unknown[]).length).toBe(1);
    await workbench.screenshot('settings-found-server-saved');
  });

  it('Settings says “None” when every trust grant has run out', async () => {
    const log: string[] = [];
    // The app's clock runs ten minutes behind the window's: a five-minute grant is over by the window's clock, though
    // the app still lists it.
    const workbench = await open({ tools: testTools(log).tools, clock: { ...systemClock, now: () => Date.now() - 10 * 60_000 } });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue({ steps: [toolCall('write_note', { name: 'todo', text: 'milk' })] }, textTurn('Written.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Write my todo');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const gate = page.getByRole('region', { name: 'Approval needed' });
    await gate.getByRole('button', { name: '5 min' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Written.');
    const grants = await workbench.host.invoke('trust:list', {});
    expect(grants.ok && (grants.value as unknown[]).length).toBe(1);

    await page.keyboard.press('Control+,');
    const section = page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'Trust grants' });
    await expectPage(section).toContainText('None');
  });
});
