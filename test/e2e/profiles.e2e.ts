import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { builtinTools } from '../../src/main/tools/builtin-tools';
import { BashParser } from '../../src/main/shell/bash-parser';
import { textTurn } from '../scripted-model-server';
import { temporaryFolder } from '../helpers';
import { useWorkbenches } from './fixture';

const shell = await BashParser.load();

describe('agent profiles in the UI', () => {
  const open = useWorkbenches();

  it('makes a profile without the shell, uses it in a session (the model is not offered run_command), versions it, and switches tools per session', async () => {
    const workbench = await open({
      tools: builtinTools({ shell, dataDir: join('/tmp', 'unused-trash'), newId: () => `t${Date.now()}`, now: () => Date.now() }),
    });
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-profiles-');
    const created = await host.invoke('session:create', { title: 'Profiled', workspacePath: folder.path });
    if (!created.ok) throw new Error(created.error.message);
    await page.reload();
    await page.getByRole('button', { name: 'Profiled' }).first().click();
    const offered = (index: number): string[] =>
      ((server.requests[index]?.body['tools'] ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    const send = async (text: string, reply: string): Promise<void> => {
      server.enqueue(textTurn(reply));
      await page.getByRole('textbox', { name: 'Message' }).fill(text);
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText(reply);
    };

    // A copy of Code with the shell switched off.
    await page.getByRole('button', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'Agent profiles' });
    await expectPage(section.getByRole('list', { name: 'Profiles' }).locator(':scope > li')).toHaveCount(3);
    await section.getByRole('button', { name: 'Copy Code' }).click();
    const editor = section.getByRole('form', { name: 'New profile' });
    await editor.getByLabel('Name').fill('No shell');
    await editor.getByLabel('Instructions').fill('You read and edit files. You never run commands.');
    await editor.getByRole('checkbox', { name: 'Shell commands' }).uncheck();
    await workbench.screenshotAtSizes('profile-editor');
    await editor.getByRole('button', { name: 'Create profile' }).click();
    await expectPage(section.getByRole('status')).toHaveText('Saved No shell, version 1.');
    await page.getByRole('button', { name: 'Close settings' }).click();

    // The session runs with it: no run_command is offered, and its instructions lead the prompt.
    await page.getByRole('button', { name: 'Agent: Code' }).click();
    const popover = page.getByRole('dialog', { name: 'Agent of this session' });
    await popover.getByRole('combobox', { name: 'Profile' }).selectOption({ label: 'No shell (v1)' });
    await expectPage(page.getByRole('button', { name: 'Agent: No shell (1 off)' })).toBeVisible();
    await expectPage(popover.getByRole('checkbox', { name: 'Shell commands' })).not.toBeChecked();
    await workbench.screenshotAtSizes('session-agent');
    await popover.getByRole('button', { name: 'Close' }).click();
    server.reset();
    await send('List the files', 'Here they are.');
    expect(offered(0)).toContain('read_file');
    expect(offered(0)).not.toContain('run_command');
    const system = (server.requests[0]?.body['messages'] as Array<{ role: string; content: string }>)[0]?.content ?? '';
    expect(system.startsWith('You read and edit files. You never run commands.')).toBe(true);

    // Editing makes version 2, which the next turn uses.
    await page.getByRole('button', { name: 'Settings' }).click();
    const row = section.getByRole('listitem').filter({ hasText: 'No shell' });
    await row.getByRole('button', { name: 'Edit' }).click();
    await section.getByRole('form', { name: 'Edit No shell' }).getByLabel('Instructions').fill('You read files and answer briefly.');
    await section.getByRole('button', { name: 'Save as version 2' }).click();
    await expectPage(section.getByRole('status')).toHaveText('Saved No shell, version 2.');
    await row.getByRole('button', { name: 'Versions of No shell' }).click();
    await expectPage(row.getByRole('list', { name: 'Versions of No shell' }).getByRole('listitem')).toHaveCount(2);
    // A file from a newer version of the app is refused, saying why, and nothing is added.
    await section.getByLabel('Import a profile').setInputFiles({
      name: 'future.profile.json',
      mimeType: 'application/json',
      buffer: Buffer.from(
        JSON.stringify({ format: 'agent-workbench-profile', schemaVersion: 9, profile: { name: 'Future', instructions: 'x' } }),
      ),
    });
    await expectPage(section.getByRole('alert')).toContainText('made by a newer version of the app');
    await expectPage(section.getByRole('list', { name: 'Profiles' }).locator(':scope > li')).toHaveCount(4);
    await page.getByRole('button', { name: 'Close settings' }).click();
    server.reset();
    await send('Again', 'Briefly.');
    const second = (server.requests[0]?.body['messages'] as Array<{ role: string; content: string }>)[0]?.content ?? '';
    expect(second.startsWith('You read files and answer briefly.')).toBe(true);

    // This session alone: reading files off too, then back to the profile's tools.
    await page.getByRole('button', { name: /^Agent: No shell/ }).click();
    await popover.getByRole('checkbox', { name: 'Read files' }).uncheck();
    await expectPage(page.getByRole('button', { name: 'Agent: No shell (2 off)' })).toBeVisible();
    await popover.getByRole('button', { name: 'Close' }).click();
    server.reset();
    await send('And now?', 'Nothing to read with.');
    expect(offered(0)).not.toContain('read_file');
    expect(offered(0)).toContain('write_file');
    await page.getByRole('button', { name: /^Agent: No shell/ }).click();
    await popover.getByRole('button', { name: 'Use the profile’s tools' }).click();
    await expectPage(page.getByRole('button', { name: 'Agent: No shell (1 off)' })).toBeVisible();
    folder.remove();
  });

  it('the profile editor keeps each checkbox on its label’s line and shows its placeholders whole', async () => {
    const workbench = await open();
    const { page } = workbench;
    await workbench.configureScriptedModel();
    await page.keyboard.press('Control+,');
    const section = page.getByRole('region', { name: 'Agent profiles' });
    await section.getByRole('button', { name: 'New profile' }).click();
    const editor = section.getByRole('form', { name: 'New profile' });
    await expectPage(editor).toBeVisible();
    for (const [width, height] of [
      [1024, 640],
      [1280, 800],
    ] as const) {
      await page.setViewportSize({ width, height });
      // The fields are laid out again at the new size.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const checkboxes = editor.getByRole('checkbox');
      expect(await checkboxes.count()).toBeGreaterThan(0);
      for (const checkbox of await checkboxes.all()) {
        // The box and its words share one line: the label is no taller than a line or two of text, and the box sits beside them.
        const placed = await checkbox.evaluate((box) => {
          const label = box.closest('label');
          if (!label) return 'no label';
          const boxRect = box.getBoundingClientRect();
          const range = document.createRange();
          const text = [...label.childNodes].find((node) => node.nodeType === Node.TEXT_NODE && node.textContent?.trim());
          if (!text) return 'no text';
          range.selectNodeContents(text);
          const words = range.getBoundingClientRect();
          const middle = boxRect.top + boxRect.height / 2;
          return middle >= words.top && middle <= words.bottom && boxRect.right <= words.left ? 'on one line' : 'apart';
        });
        expect(placed, (await checkbox.getAttribute('aria-label')) ?? 'a checkbox').toBe('on one line');
      }
      const cut = await editor.evaluate((form) =>
        [...form.querySelectorAll<HTMLInputElement>('input[placeholder]')]
          .filter((input) => {
            const style = getComputedStyle(input);
            const canvas = document.createElement('canvas').getContext('2d');
            if (!canvas) return true;
            canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
            const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
            // A number input keeps room for its spin buttons on the right.
            const spin = input.type === 'number' ? 18 : 0;
            return canvas.measureText(input.placeholder).width > room - spin;
          })
          .map((input) => input.placeholder),
      );
      expect(cut).toEqual([]);
    }
    await editor.getByRole('checkbox').first().scrollIntoViewIfNeeded();
    await workbench.screenshotAtSizes('profile-editor-fields');
  });
});
