import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect as expectPage } from 'playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

const everything = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

/* A folder's own MCP server: started once the person trusts the folder, its tool used there, and shown in Settings. */
describe("a trusted folder's own MCP server", () => {
  const open = useWorkbenches();
  const folders: Array<{ remove: () => void }> = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) folder.remove();
  });

  it('starts once the folder is trusted, answers in its session, is listed in Settings with where it comes from, and its tool can be set to never run', async () => {
    const project = temporaryFolder('workbench-folder-mcp-');
    folders.push(project);
    const entry = { command: process.execPath, args: [everything, 'stdio'] };
    writeFileSync(join(project.path, '.mcp.json'), JSON.stringify({ mcpServers: { everything: entry, broken: { args: ['x'] } } }));

    const workbench = await open({ folderTrust: 'ask', folderPicker: { pickFolder: async () => project.path } });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    await page.getByRole('button', { name: 'Choose folder…' }).click();
    const prompt = page.getByRole('region', { name: 'Trust this folder' });
    await expectPage(prompt).toContainText('everything');
    await prompt.getByRole('button', { name: 'Trust this folder' }).click();
    await expectPage(prompt).toHaveCount(0);

    // Its marks are not trusted: the echo is a low-risk write, which L2 runs without asking.
    const listed = await workbench.host.invoke('session:list', {});
    const sessionId = listed.ok ? ((listed.value as Array<{ id: string }>)[0]?.id ?? '') : '';
    expect((await workbench.host.invoke('session:setAutonomy', { sessionId, autonomy: 'L2' })).ok).toBe(true);
    server.enqueue({ steps: [toolCall('everything__echo', { message: 'from the folder' })] }, textTurn('The folder’s server echoed.'));
    const asked = server.requests.length;
    await page.getByRole('textbox', { name: 'Message' }).fill('Echo through the folder’s server');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('The folder’s server echoed.', { timeout: 20_000 });
    const tools = (server.requests[asked]?.body['tools'] as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(tools).toContain('everything__echo');
    expect(JSON.stringify(server.requests[asked + 1]?.body['messages'])).toContain('Echo: from the folder');

    await page.getByRole('button', { name: 'Settings' }).click();
    const list = page.getByRole('region', { name: 'MCP servers' }).getByRole('list', { name: 'MCP servers of folders' });
    const running = list.getByRole('listitem').filter({ hasText: 'everything' });
    await expectPage(running).toContainText('running');
    await expectPage(running).toContainText(`${project.path}/.mcp.json`);
    await expectPage(running).toContainText(/\d+ tools/);
    const broken = list.getByRole('listitem').filter({ hasText: 'broken' });
    await expectPage(broken).toContainText('failed');
    await expectPage(broken).toContainText('needs a command or a url');
    await list.scrollIntoViewIfNeeded();
    await workbench.screenshot('folder-mcp-servers');

    // Its tools are listed under Tools with the folder they come from, and one can be set to never run.
    const folderTools = page
      .getByRole('region', { name: 'Tools' })
      .getByRole('list', { name: `everything (MCP server of ${project.path}) tools` });
    const neverEcho = folderTools.getByLabel('Never run everything__echo');
    await expectPage(neverEcho).not.toBeChecked();
    await neverEcho.click();
    await expectPage(neverEcho).toBeChecked();
    const saved = await workbench.host.invoke('settings:get', {});
    expect(saved.ok && (saved.value as { deniedTools: string[] }).deniedTools).toEqual(['everything__echo']);
    await page.getByRole('button', { name: 'Close settings' }).click();

    server.enqueue({ steps: [toolCall('everything__echo', { message: 'again' })] }, textTurn('It is denied.'));
    const before = server.requests.length;
    await page.getByRole('textbox', { name: 'Message' }).fill('Echo again');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('It is denied.', { timeout: 20_000 });
    const offered = (server.requests[before]?.body['tools'] as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(offered).not.toContain('everything__echo');
    expect(JSON.stringify(server.requests[before + 1]?.body['messages'])).toContain('You have denied everything__echo in Settings.');
  });
});
