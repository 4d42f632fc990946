import type { Page } from 'playwright';
import { expect as expectPage } from 'playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { testTools, toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

interface Box {
  readonly name: string;
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
  readonly clipped: boolean;
}

/**
 * Every item of the status bar as drawn: its box, and whether its text is cut (wider inside than shown) with no way
 * to read it whole. Items that are not drawn (folded into "More") are left out.
 */
async function statusItems(page: Page): Promise<{ bar: Box; items: Box[] }> {
  return page.evaluate(() => {
    const describe = (element: Element): string =>
      element.getAttribute('aria-label') ?? element.textContent?.trim().slice(0, 30) ?? element.tagName;
    const boxOf = (element: Element): Box => {
      const rect = element.getBoundingClientRect();
      // Cut: wider inside than drawn, with no full text on hover (a shortened grant or picker has it in its title).
      const cut = [element, ...element.querySelectorAll('select, button, span, strong')].some(
        (inner) =>
          inner instanceof HTMLElement &&
          inner.offsetWidth > 0 &&
          // Words for screen readers only are not drawn, so nothing of them is cut.
          !inner.classList.contains('visually-hidden') &&
          inner.scrollWidth > inner.clientWidth + 1 &&
          // Figures are never shortened, whatever their hover text says.
          (inner.closest('[title]') === null || inner.getAttribute('aria-label') === 'Token usage'),
      );
      return { name: describe(element), left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom, clipped: cut };
    };
    const header = document.querySelector('header.status-bar');
    if (!header) throw new Error('no status bar');
    const items = [...header.children].filter((child) => child.getBoundingClientRect().width > 0 && !child.classList.contains('spacer'));
    return { bar: boxOf(header), items: items.map(boxOf) };
  });
}

/**
 * The controls in each of the other places that hold a row of them (the session header, the tabs of the right
 * panel, the message box, a message's actions): each box, and whether its text is cut with no full text on hover.
 */
async function controlsIn(page: Page, selector: string): Promise<Array<{ area: Box; items: Box[] }>> {
  return page.evaluate((areaSelector) => {
    const boxOf = (element: Element): Box => {
      const rect = element.getBoundingClientRect();
      const cut = element instanceof HTMLElement && element.scrollWidth > element.clientWidth + 1 && element.closest('[title]') === null;
      const name = element.getAttribute('aria-label') ?? element.textContent?.trim().slice(0, 30) ?? element.tagName;
      return { name, left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom, clipped: cut };
    };
    return [...document.querySelectorAll(areaSelector)]
      .filter((area) => area.getBoundingClientRect().width > 0)
      .map((area) => ({
        area: boxOf(area),
        items: [...area.querySelectorAll('button, select, input, textarea, h2, code')]
          .filter((item) => item.getBoundingClientRect().width > 0)
          .map(boxOf),
      }));
  }, selector);
}

const overlap = (a: Box, b: Box): boolean =>
  a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

/*
 * The status bar at the widths people use, in both themes, with a session running on a model and a trust grant
 * counting down: nothing is cut off or drawn over another item, and what does not fit is under "More".
 */
describe('a layout that fits', () => {
  const open = useWorkbenches();

  it('the status bar, session header, tabs, message box and message actions fit from 1024 to 2560 pixels in light and dark: nothing clipped, nothing overlapping; actions line up with their message', async () => {
    const log: string[] = [];
    const workbench = await open({ tools: testTools(log).tools });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue({ steps: [toolCall('write_note', { name: 'todo', text: 'buy milk' })] }, textTurn('Written.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Write my todo');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await page.getByRole('region', { name: 'Approval needed' }).getByRole('button', { name: '5 min' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Written.');

    for (const [width, height] of [
      [1024, 640],
      [1280, 800],
      [1920, 1080],
      [2560, 1440],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height });
        await page.emulateMedia({ colorScheme: scheme });
        // The bar folds by measuring itself after each resize: wait for it to settle.
        await page.waitForTimeout(150);
        const { bar, items } = await statusItems(page);
        const where = `${width}x${height} ${scheme}`;
        for (const item of items) {
          expect(item.right, `${where}: ${item.name} runs past the bar`).toBeLessThanOrEqual(bar.right + 0.5);
          expect(item.left, `${where}: ${item.name} starts before the bar`).toBeGreaterThanOrEqual(bar.left - 0.5);
          expect(item.clipped, `${where}: ${item.name} is cut off`).toBe(false);
        }
        for (const [index, item] of items.entries())
          for (const other of items.slice(index + 1)) expect(overlap(item, other), `${where}: ${item.name} over ${other.name}`).toBe(false);
        // What folded away is one click away.
        const more = page.getByRole('banner', { name: 'Status' }).getByRole('button', { name: 'More' });
        if ((await more.count()) > 0) {
          await more.click();
          await expectPage(page.getByRole('group', { name: 'More of the status bar' })).toBeVisible();
          await workbench.screenshot(`status-bar-${width}-${scheme}-more`);
          await more.click();
        }
        await workbench.screenshot(`status-bar-${width}-${scheme}`);
        for (const selector of ['.session-header', '.right-panel .tabs', '.composer', '.message-actions']) {
          for (const { area, items: controls } of await controlsIn(page, selector)) {
            for (const [index, item] of controls.entries()) {
              expect(item.right, `${where}: ${item.name} runs past ${selector}`).toBeLessThanOrEqual(area.right + 0.5);
              expect(item.clipped, `${where}: ${item.name} in ${selector} is cut off`).toBe(false);
              for (const other of controls.slice(index + 1))
                expect(overlap(item, other), `${where}: ${item.name} over ${other.name} in ${selector}`).toBe(false);
            }
          }
        }
        // The message column and its actions share a right edge.
        const answer = await page.getByRole('article', { name: 'Answer' }).last().boundingBox();
        const actions = await page.locator('.message-actions').last().boundingBox();
        expect(
          Math.abs((answer?.x ?? 0) + (answer?.width ?? 0) - ((actions?.x ?? 0) + (actions?.width ?? 0))),
          `${where}: actions off the column`,
        ).toBeLessThan(2);
      }
    }
    // The token usage is always somewhere: in the bar, or under More.
    await page.setViewportSize({ width: 1024, height: 640 });
    await page.waitForTimeout(150);
    await page.getByRole('banner', { name: 'Status' }).getByRole('button', { name: 'More' }).click();
    await expectPage(page.getByLabel('Token usage')).toBeVisible();
  });

  const folders: Array<{ remove: () => void }> = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) folder.remove();
  });

  it('with both side panels open and a turn waiting at a gate, the header keeps its title and folder readable, the conversation its room, and the status bar stays in the window', async () => {
    const log: string[] = [];
    const workspace = temporaryFolder('workbench-layout-e2e-');
    folders.push(workspace);
    // A folder with a long path, as a real project's is.
    const folder = join(workspace.path, 'projects', 'customer-portal-frontend');
    mkdirSync(folder, { recursive: true });
    const workbench = await open({ tools: testTools(log).tools, folderPicker: { pickFolder: async () => folder } });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    await page.getByRole('button', { name: 'Choose folder…' }).click();
    // A grant first, then a turn that waits at a gate: Stop, the inbox's badge and the grant all in the bar.
    server.enqueue({ steps: [toolCall('write_note', { name: 'todo', text: 'buy milk' })] }, textTurn('Written.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Write my todo');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await page.getByRole('region', { name: 'Approval needed' }).getByRole('button', { name: '5 min' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Written.');
    server.enqueue({ steps: [toolCall('write_note', { name: 'plan', text: 'ship it' })] }, textTurn('Done.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Write the plan');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('region', { name: 'Approval needed' })).toBeVisible();
    const details = page.getByRole('complementary', { name: 'Details' });
    if (!(await details.isVisible())) await page.keyboard.press('Control+j');

    for (const [width, height] of [
      [1024, 768],
      [1280, 800],
      [1920, 1080],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height });
        await page.emulateMedia({ colorScheme: scheme });
        await page.waitForTimeout(150);
        const where = `${width}x${height} ${scheme}`;
        await expectPage(details).toBeVisible();
        const shown = await page.evaluate(() => {
          const widthOf = (selector: string): { shown: number; whole: number } => {
            const element = document.querySelector(selector);
            if (!(element instanceof HTMLElement)) return { shown: 0, whole: 0 };
            return { shown: element.clientWidth, whole: element.scrollWidth };
          };
          return {
            title: widthOf('.session-heading'),
            path: widthOf('.session-header .path'),
            main: document.querySelector('main.main')?.getBoundingClientRect().width ?? 0,
            bodyRight: Math.max(
              ...[...document.querySelectorAll('header.status-bar > *')].map((item) => item.getBoundingClientRect().right),
            ),
          };
        });
        // Readable: whole, or at least a good part of it (a title of a dozen letters, a path of twenty).
        expect(shown.title.shown, `${where}: the title is squeezed`).toBeGreaterThanOrEqual(Math.min(shown.title.whole, 110));
        expect(shown.path.shown, `${where}: the folder is squeezed`).toBeGreaterThanOrEqual(Math.min(shown.path.whole, 180));
        expect(shown.main, `${where}: the conversation is squeezed`).toBeGreaterThanOrEqual(540);
        expect(shown.bodyRight, `${where}: the status bar runs out of the window`).toBeLessThanOrEqual(width + 0.5);
        for (const { area, items: controls } of await controlsIn(page, '.session-header')) {
          for (const [index, item] of controls.entries()) {
            expect(item.right, `${where}: ${item.name} runs past the header`).toBeLessThanOrEqual(area.right + 0.5);
            for (const other of controls.slice(index + 1))
              expect(overlap(item, other), `${where}: ${item.name} over ${other.name} in the header`).toBe(false);
          }
        }
        const hide = page.getByRole('banner', { name: 'Status' }).getByRole('button', { name: 'Hide details' });
        if ((await hide.count()) > 0) {
          const box = await hide.boundingBox();
          expect((box?.x ?? 0) + (box?.width ?? 0), `${where}: Hide details is off-screen`).toBeLessThanOrEqual(width + 0.5);
        }
        await workbench.screenshot(`layout-waiting-${width}-${scheme}`);
      }
    }
  });
});
