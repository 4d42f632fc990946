import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { testTools, toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { seriousFindings } from './axe';
import { screenSizes, useWorkbenches } from './fixture';

/*
 * An automated accessibility scan (axe-core) of every main screen, dialog and popover, at three sizes in both themes:
 * nothing serious or critical.
 */
describe('accessibility', () => {
  const open = useWorkbenches();
  const folders: Array<{ remove: () => void }> = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) folder.remove();
  });

  it('the first run, the session with a gate, Settings, the shortcuts, the / menu, /help, a preview, the prompt and the popovers have no serious or critical findings', async () => {
    const log: string[] = [];
    const workspace = temporaryFolder('workbench-a11y-e2e-');
    folders.push(workspace);
    writeFileSync(join(workspace.path, 'notes.md'), '# Notes\n\nThe owls are not what they seem.\n');
    const workbench = await open({
      tools: testTools(log).tools,
      folderPicker: { pickFolder: async () => workspace.path },
      // As the app: the folder is asked about, and the prompt is scanned too.
      folderTrust: 'ask',
    });
    const { page, server } = workbench;
    const found: string[] = [];
    const scan = async (screen: string, show: () => Promise<void>, hide: () => Promise<void>): Promise<void> => {
      for (const [width, height] of screenSizes)
        for (const scheme of ['light', 'dark'] as const) {
          await page.setViewportSize({ width, height });
          await page.emulateMedia({ colorScheme: scheme });
          await page.waitForTimeout(100);
          await show();
          for (const finding of await seriousFindings(page))
            found.push(
              `${screen} ${width}x${height} ${scheme}: ${finding.impact} ${finding.rule} (${finding.help}) at ${finding.targets.join(' | ')}`,
            );
          await hide();
        }
    };
    const nothing = async (): Promise<void> => undefined;

    // The first run: no model yet, the setup in the middle.
    await expectPage(page.getByRole('heading', { name: 'Agent Workbench' })).toBeVisible();
    await scan('first run', nothing, nothing);

    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    await page.getByRole('button', { name: 'Choose folder…' }).click();
    const trustPrompt = page.getByRole('region', { name: 'Trust this folder' });
    await expectPage(trustPrompt).toBeVisible();
    await scan('folder trust prompt', nothing, nothing);
    await trustPrompt.getByRole('button', { name: 'Keep restricted' }).click();
    await scan('restricted mode', nothing, nothing);
    await page.getByRole('region', { name: 'Restricted mode' }).getByRole('button', { name: 'Review and trust…' }).click();
    await trustPrompt.getByRole('button', { name: 'Trust this folder' }).click();
    await expectPage(trustPrompt).toHaveCount(0);
    server.enqueue(textTurn('Here is **what I found**:\n\n- one\n- two\n\n```ts\nconst a = 1;\n```'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Look around');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' })).toContainText('what I found');
    server.enqueue({ steps: [toolCall('write_note', { name: 'todo', text: 'buy milk' })] }, textTurn('Written.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Write my todo');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('region', { name: 'Approval needed' })).toBeVisible();
    await scan('session at a gate', nothing, nothing);

    const escape = async (): Promise<void> => {
      await page.keyboard.press('Escape');
    };
    await scan(
      'settings',
      async () => {
        await page.keyboard.press('Control+,');
        await expectPage(page.getByRole('dialog', { name: 'Settings' })).toBeVisible();
      },
      escape,
    );
    await scan(
      'shortcuts',
      async () => {
        await page.keyboard.press('Control+/');
        await expectPage(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
      },
      escape,
    );
    await scan(
      'the / menu',
      async () => {
        await page.getByRole('textbox', { name: 'Message' }).fill('/');
        await expectPage(page.getByRole('listbox', { name: 'Commands' })).toBeVisible();
      },
      async () => {
        await page.getByRole('textbox', { name: 'Message' }).fill('');
      },
    );
    await scan(
      'help',
      async () => {
        await page.getByRole('textbox', { name: 'Message' }).fill('/help');
        await page.getByRole('textbox', { name: 'Message' }).press('Enter');
        await expectPage(page.getByRole('dialog', { name: 'Help' })).toBeVisible();
      },
      escape,
    );
    await scan(
      'file preview',
      async () => {
        await page.getByRole('tree', { name: 'Workspace files' }).getByRole('button', { name: 'notes.md' }).click();
        await expectPage(page.getByRole('dialog', { name: 'Preview of notes.md' })).toBeVisible();
      },
      escape,
    );
    await scan(
      'what the model saw',
      async () => {
        await page.getByRole('button', { name: 'What the model saw' }).first().click();
        await expectPage(page.getByRole('dialog', { name: 'What the model saw' })).toBeVisible();
      },
      escape,
    );
    await scan(
      'agent popover',
      async () => {
        await page.getByRole('button', { name: /^Agent:/ }).click();
        await expectPage(page.getByRole('dialog', { name: 'Agent of this session' })).toBeVisible();
      },
      escape,
    );
    expect(found).toEqual([]);
  });
});
