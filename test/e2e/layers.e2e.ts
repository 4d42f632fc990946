import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright';
import { expect as expectPage } from 'playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { textTurn } from '../scripted-model-server';
import { screenSizes, useWorkbenches, type Workbench } from './fixture';

/**
 * Where a layer stands against the rest of the window: the points of its box (its middle, and near each corner) where
 * something else is drawn over it, and whether its box lies inside the window.
 */
async function layerAt(locator: Locator): Promise<{ covered: string[]; inside: boolean }> {
  return locator.evaluate((element) => {
    const rect = element.getBoundingClientRect();
    const inset = 6;
    const xs = [rect.left + inset, rect.left + rect.width / 2, rect.right - inset];
    const ys = [rect.top + inset, rect.top + rect.height / 2, rect.bottom - inset];
    const covered: string[] = [];
    for (const x of xs)
      for (const y of ys) {
        if (x < 0 || y < 0 || x >= window.innerWidth || y >= window.innerHeight) continue;
        const hit = document.elementFromPoint(x, y);
        if (!hit || !element.contains(hit))
          covered.push(
            `${Math.round(x)},${Math.round(y)}: ${hit?.tagName ?? 'nothing'}.${hit?.className ?? ''} "${hit?.textContent?.slice(0, 30) ?? ''}"`,
          );
      }
    const inside =
      rect.left >= -0.5 && rect.top >= -0.5 && rect.right <= window.innerWidth + 0.5 && rect.bottom <= window.innerHeight + 0.5;
    return { covered, inside };
  });
}

/** The layer is drawn whole over everything else, inside the window, and the control named in it can be clicked. */
async function expectOnTop(layer: Locator, where: string, control?: Locator): Promise<void> {
  await expectPage(layer).toBeVisible();
  const { covered, inside } = await layerAt(layer);
  expect(covered, `${where}: drawn over`).toEqual([]);
  expect(inside, `${where}: runs out of the window`).toBe(true);
  if (control) {
    const hit = await control.evaluate((element) => {
      const rect = element.getBoundingClientRect();
      const top = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
      return top !== null && element.contains(top);
    });
    expect(hit, `${where}: its control is under something`).toBe(true);
  }
}

/** The details panel open beside the conversation, as a person reviewing work has it. */
async function showDetails(page: Page): Promise<void> {
  const details = page.getByRole('complementary', { name: 'Details' });
  if (!(await details.isVisible())) await page.keyboard.press('Control+j');
  await expectPage(details).toBeVisible();
}

/*
 * Dialogs and popovers on one top layer: in a session with a folder and messages, with both side panels open, every
 * dialog and popover the window has is drawn over the header, the conversation and the panels, inside the window, at
 * the three sizes and in both themes; Esc or a click elsewhere closes a popover.
 */
describe('layers over the window', () => {
  const open = useWorkbenches();
  const folders: Array<{ remove: () => void }> = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) folder.remove();
  });

  async function sessionWithMessages(): Promise<Workbench> {
    const workspace = temporaryFolder('workbench-layers-e2e-');
    folders.push(workspace);
    writeFileSync(join(workspace.path, 'package.json'), `${JSON.stringify({ name: 'layers', version: '1.0.0' }, null, 2)}\n`);
    writeFileSync(join(workspace.path, 'notes.md'), '# Notes\n');
    const workbench = await open({ folderPicker: { pickFolder: async () => workspace.path } });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    await page.getByRole('button', { name: 'Choose folder…' }).click();
    await expectPage(page.getByRole('tree', { name: 'Workspace files' })).toBeVisible();
    for (let index = 1; index <= 6; index += 1) {
      server.enqueue(textTurn(`Answer ${index}: ${'a long line of text to fill the conversation. '.repeat(12)}`));
      await page.getByRole('textbox', { name: 'Message' }).fill(`Question ${index}`);
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      await expectPage(page.getByRole('article', { name: 'Answer' })).toHaveCount(index);
    }
    return workbench;
  }

  const sizesAndThemes = (page: Page) =>
    screenSizes.flatMap(([width, height]) =>
      (['light', 'dark'] as const).map((scheme) => ({
        where: `${width}x${height} ${scheme}`,
        apply: async () => {
          await page.setViewportSize({ width, height });
          await page.emulateMedia({ colorScheme: scheme });
          await page.waitForTimeout(150);
        },
      })),
    );

  it('the file preview, the prompt, the model check, More and Settings are drawn over the conversation and the panels, and Esc closes them', async () => {
    const workbench = await sessionWithMessages();
    const { page } = workbench;
    await showDetails(page);
    for (const { where, apply } of sizesAndThemes(page)) {
      await apply();
      await page.getByRole('tree', { name: 'Workspace files' }).getByRole('button', { name: 'package.json' }).click();
      const preview = page.getByRole('dialog', { name: 'Preview of package.json' });
      await expectOnTop(preview, `${where} preview`, preview.getByRole('button', { name: 'Attach to message' }));
      await page.keyboard.press('Escape');
      await expectPage(preview).toHaveCount(0);

      await page.getByRole('button', { name: 'What the model saw' }).last().click();
      const prompt = page.getByRole('dialog', { name: 'What the model saw' });
      await expectOnTop(prompt, `${where} prompt`, prompt.getByRole('button', { name: 'Close the prompt' }));
      await page.keyboard.press('Escape');
      await expectPage(prompt).toHaveCount(0);

      await page
        .getByRole('banner', { name: 'Status' })
        .getByRole('button', { name: /^Model check/ })
        .click();
      const check = page.getByRole('dialog', { name: /^Check of / });
      await expectOnTop(check, `${where} model check`);
      await page.keyboard.press('Escape');
      await expectPage(check).toHaveCount(0);

      const more = page.getByRole('banner', { name: 'Status' }).getByRole('button', { name: 'More' });
      if ((await more.count()) > 0) {
        await more.click();
        await expectOnTop(page.getByRole('group', { name: 'More of the status bar' }), `${where} more`);
        await page.keyboard.press('Escape');
        await expectPage(page.getByRole('group', { name: 'More of the status bar' })).toHaveCount(0);
      }

      await page.keyboard.press('Control+,');
      const settings = page.getByRole('dialog', { name: 'Settings' });
      await expectOnTop(settings, `${where} settings`, settings.getByRole('button', { name: 'Close settings' }));
      await page.keyboard.press('Escape');
      await expectPage(settings).toHaveCount(0);
    }
    await workbench.screenshotAtSizes('layers-preview');
  });

  it('the context meter, the agent and the inbox open over everything, and close on Esc or a click elsewhere', async () => {
    const workbench = await sessionWithMessages();
    const { page } = workbench;
    await showDetails(page);
    for (const { where, apply } of sizesAndThemes(page)) {
      await apply();
      const status = page.getByRole('banner', { name: 'Status' });
      // At the smallest size the meter may be folded under More: open it there.
      const more = status.getByRole('button', { name: 'More' });
      if ((await status.getByRole('button', { name: 'Context window' }).count()) === 0 && (await more.count()) > 0) await more.click();
      await page.getByRole('button', { name: 'Context window' }).click();
      const summarize = page.getByRole('form', { name: 'Summarize the conversation' });
      await expectOnTop(summarize, `${where} context popover`, summarize.getByRole('button', { name: 'Summarize older messages now' }));
      await page.keyboard.press('Escape');
      await expectPage(summarize).toHaveCount(0);
      if (await page.getByRole('group', { name: 'More of the status bar' }).isVisible()) await page.keyboard.press('Escape');

      await page.getByRole('button', { name: /^Agent:/ }).click();
      const agent = page.getByRole('dialog', { name: 'Agent of this session' });
      await expectOnTop(agent, `${where} agent popover`, agent.getByRole('combobox', { name: 'Profile' }));
      // A click elsewhere (in the message box) closes it.
      await page.getByRole('textbox', { name: 'Message' }).click();
      await expectPage(agent).toHaveCount(0);

      if ((await status.getByRole('button', { name: /^Inbox/ }).count()) === 0 && (await more.count()) > 0) await more.click();
      await page.getByRole('button', { name: /^Inbox/ }).click();
      const inbox = page.getByRole('list', { name: 'Waiting for you' });
      await expectOnTop(inbox, `${where} inbox`);
      await page.keyboard.press('Escape');
      await expectPage(inbox).toHaveCount(0);
      if (await page.getByRole('group', { name: 'More of the status bar' }).isVisible()) await page.keyboard.press('Escape');
    }
    // The inbox left open does not cover the shortcuts dialog: the dialog comes over it, and its close button works.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.waitForTimeout(150);
    await page.getByRole('button', { name: /^Inbox/ }).click();
    await page.keyboard.press('Control+/');
    const shortcuts = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    const close = shortcuts.getByRole('button', { name: 'Close keyboard shortcuts' });
    await expectOnTop(shortcuts, 'shortcuts over the inbox', close);
    await close.click();
    await expectPage(shortcuts).toHaveCount(0);
    await workbench.screenshot('layers-popovers');
  });
});
