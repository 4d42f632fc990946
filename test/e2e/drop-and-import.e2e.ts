import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright';
import { expect as expectPage } from 'playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { ScriptedModelServer, textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

/**
 * Drops a folder on `target` as a file manager would: a drag of one item named as the folder, whose path on disk the
 * bridge gives (`pathForFile`, which the test host answers from `window.testDropPaths`).
 */
async function dropFolder(page: Page, target: Locator, path: string): Promise<void> {
  const name = path.split('/').at(-1) ?? 'folder';
  await page.evaluate(
    ([item, where]) => {
      const paths = ((window as unknown as { testDropPaths?: Record<string, string> }).testDropPaths ??= {});
      paths[item] = where;
    },
    [name, path] as const,
  );
  const transfer = await page.evaluateHandle((item) => {
    const data = new DataTransfer();
    data.items.add(new File([], item));
    return data;
  }, name);
  await target.dispatchEvent('dragover', { dataTransfer: transfer });
  await target.dispatchEvent('drop', { dataTransfer: transfer });
}

/* What exists but was driven only by hand: a folder dropped on the window and on the setup's folder step, and importing a session from the sidebar. */
describe('dropping folders and importing sessions', () => {
  const open = useWorkbenches();
  const cleanups: Array<{ remove: () => void } | { close: () => Promise<void> }> = [];
  afterEach(async () => {
    for (const item of cleanups.splice(0)) {
      if ('remove' in item) item.remove();
      else await item.close();
    }
  });

  it('a folder dropped on the window becomes the open session’s workspace, or a new session’s when none is open', async () => {
    const first = temporaryFolder('workbench-drop-one-');
    const second = temporaryFolder('workbench-drop-two-');
    cleanups.push(first, second);
    writeFileSync(join(first.path, 'readme.md'), '# One\n');
    const workbench = await open();
    const { page, host } = workbench;
    await workbench.configureScriptedModel();
    // No session open: a new one, in the dropped folder.
    await expectPage(page.getByRole('heading', { name: 'Agent Workbench' })).toBeVisible();
    await dropFolder(page, page.locator('.drop-zone'), first.path);
    await expectPage(page.getByRole('tree', { name: 'Workspace files' }).getByRole('button', { name: 'readme.md' })).toBeVisible();
    const workspace = page.locator('.session-header').getByLabel('Workspace');
    await expectPage(workspace).toContainText(first.path);
    // A session open: the folder dropped becomes its workspace.
    await dropFolder(page, page.getByRole('main', { name: 'Conversation' }), second.path);
    await expectPage(workspace).toContainText(second.path);
    const sessions = await host.invoke('session:list', {});
    expect(sessions.ok && (sessions.value as Array<{ workspacePath: string | null }>).map((session) => session.workspacePath)).toEqual([
      second.path,
    ]);
    // A dropped file with no path on disk (dragged from a web page) is refused in words, and changes nothing.
    await dropFolder(page, page.getByRole('main', { name: 'Conversation' }), '');
    await expectPage(page.getByRole('alert').or(page.getByRole('status')).filter({ hasText: 'no folder path' })).toBeVisible();
    await expectPage(workspace).toContainText(second.path);
  });

  it('a folder dropped on the setup’s folder step ends the setup on a ready session in that folder', async () => {
    const local = await ScriptedModelServer.start({ models: [{ id: 'local-small' }] });
    const picked = temporaryFolder('workbench-drop-setup-');
    cleanups.push(local, picked);
    const workbench = await open({ discoveryCandidates: [{ name: 'LM Studio', kind: 'openai-compatible', baseUrl: local.openaiBaseUrl }] });
    const { page, host } = workbench;
    const setup = page.getByRole('region', { name: 'Set up a model' });
    await setup.getByRole('button', { name: 'Use local-small' }).click();
    const folderStep = page.getByRole('region', { name: 'Pick a folder' });
    await expectPage(folderStep).toContainText('drop a folder onto this window');
    await dropFolder(page, folderStep, picked.path);
    await expectPage(page.getByRole('status').filter({ hasText: 'Ready:' }).locator('span')).toHaveText(
      `Ready: local-small on LM Studio, in ${picked.path}.`,
    );
    const sessions = await host.invoke('session:list', {});
    expect(sessions.ok && sessions.value).toEqual([expect.objectContaining({ workspacePath: picked.path })]);
  });

  it('a session exported to a file is imported from the sidebar, whole, and a bad file is refused in words', async () => {
    const workbench = await open();
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue(textTurn('The owls are not what they seem.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Tell me a secret');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' })).toHaveText('The owls are not what they seem.');
    const listed = await host.invoke('session:list', {});
    const sessionId = listed.ok ? ((listed.value as Array<{ id: string }>)[0]?.id ?? '') : '';
    const exported = await host.invoke('session:export', { sessionId });
    if (!exported.ok) throw new Error(exported.error.message);
    const document = (exported.value as { document: string }).document;

    const input = page.getByLabel('Import a session');
    await input.setInputFiles({ name: 'session.json', mimeType: 'application/json', buffer: Buffer.from(document) });
    await expectPage(page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem')).toHaveCount(2);
    // The imported copy is opened, with its conversation.
    await expectPage(page.getByRole('article', { name: 'Your message' })).toHaveText('Tell me a secret');
    await expectPage(page.getByRole('article', { name: 'Answer' })).toHaveText('The owls are not what they seem.');
    const after = await host.invoke('session:list', {});
    expect(after.ok && (after.value as unknown[]).length).toBe(2);

    await input.setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"not": "a session"') });
    await expectPage(
      page
        .getByRole('alert')
        .or(page.getByRole('status'))
        .filter({ hasText: /session|file|JSON/i })
        .first(),
    ).toBeVisible();
    const still = await host.invoke('session:list', {});
    expect(still.ok && (still.value as unknown[]).length).toBe(2);
  });
});
