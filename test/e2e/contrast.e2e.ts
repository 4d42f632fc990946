import type { Page } from 'playwright';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { closedPort } from '../helpers';
import { testTools, toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

interface Pair {
  readonly text: string;
  readonly color: string;
  readonly background: string;
  readonly ratio: number;
  readonly needed: number;
}

/**
 * Every piece of text drawn on the page, with its colour (faded by its own and its ancestors' opacity), the colour
 * behind it (the first ancestor with a solid background, under the translucent tints between), and the contrast between them by WCAG 2's formula. Large text (24 px, or 18.66 px bold) needs 3:1,
 * other text 4.5:1. Disabled controls are exempt, as WCAG exempts them.
 */
async function textPairs(page: Page): Promise<Pair[]> {
  return page.evaluate(() => {
    // Colours as the browser gives them: rgb()/rgba(), or color(srgb …) for a colour mixed with color-mix().
    const parse = (value: string): [number, number, number, number] => {
      const match = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(value);
      if (match) return [Number(match[1]), Number(match[2]), Number(match[3]), match[4] === undefined ? 1 : Number(match[4])];
      const srgb = /color\(srgb ([\d.e-]+) ([\d.e-]+) ([\d.e-]+)(?: \/ ([\d.e-]+))?\)/.exec(value);
      if (srgb) return [Number(srgb[1]) * 255, Number(srgb[2]) * 255, Number(srgb[3]) * 255, srgb[4] === undefined ? 1 : Number(srgb[4])];
      return [0, 0, 0, 0];
    };
    const luminance = ([r, g, b]: [number, number, number, number]): number => {
      const channel = (value: number): number => {
        const c = value / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    // What is behind an element: the first solid background around it, with every translucent tint between (a notice's
    // wash of colour) laid over it in turn.
    const backgroundOf = (element: Element | null): [number, number, number, number] => {
      const tints: Array<[number, number, number, number]> = [];
      let solid = parse(getComputedStyle(document.documentElement).backgroundColor);
      for (let current = element; current; current = current.parentElement) {
        const colour = parse(getComputedStyle(current).backgroundColor);
        if (colour[3] >= 0.99) {
          solid = colour;
          break;
        }
        if (colour[3] > 0) tints.push(colour);
      }
      return tints.reduceRight<[number, number, number, number]>(
        (below, [r, g, b, a]) => [r * a + below[0] * (1 - a), g * a + below[1] * (1 - a), b * a + below[2] * (1 - a), 1],
        solid,
      );
    };
    const pairs: Pair[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent?.trim() ?? '';
      const element = node.parentElement;
      if (text === '' || !element) continue;
      if (element.closest('.xterm, .terminal, .code-block, pre, [disabled], [aria-disabled="true"], option')) continue;
      const style = getComputedStyle(element);
      const box = element.getBoundingClientRect();
      // What is drawn: the element's opacity times that of every element around it (a faded row fades its text).
      let opacity = 1;
      for (let current: Element | null = element; current; current = current.parentElement)
        opacity *= Number(getComputedStyle(current).opacity);
      if (style.visibility === 'hidden' || opacity < 0.1 || box.width === 0 || box.height === 0) continue;
      const colour = parse(style.color);
      const behind = backgroundOf(element);
      // A translucent text colour, or faded text, is blended over what is behind it.
      const alpha = colour[3] * opacity;
      const blended: [number, number, number, number] = [
        colour[0] * alpha + behind[0] * (1 - alpha),
        colour[1] * alpha + behind[1] * (1 - alpha),
        colour[2] * alpha + behind[2] * (1 - alpha),
        1,
      ];
      const [light, dark] = [luminance(blended), luminance(behind)].sort((a, b) => b - a) as [number, number];
      const size = Number.parseFloat(style.fontSize);
      const bold = Number(style.fontWeight) >= 700;
      const large = size >= 24 || (bold && size >= 18.66);
      pairs.push({
        text: text.slice(0, 40),
        color: style.color,
        background: `rgb(${behind.slice(0, 3).join(', ')})`,
        ratio: (light + 0.05) / (dark + 0.05),
        needed: large ? 3 : 4.5,
      });
    }
    return pairs;
  });
}

/*
 * The text of the screens people use most, in light and dark: a conversation with a gate, tool cards in each state and
 * a failed answer; the model setup; Settings; the history.
 */
describe('contrast of every text in both themes', () => {
  const open = useWorkbenches();

  it('meets WCAG AA (4.5:1, large text 3:1) on the main screens, light and dark', async () => {
    const log: string[] = [];
    const workbench = await open({ tools: testTools(log).tools });
    const { page, server, host } = workbench;
    const failures: string[] = [];
    const check = async (screen: string): Promise<void> => {
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const pair of await textPairs(page))
          if (pair.ratio < pair.needed)
            failures.push(`${screen} ${scheme}: “${pair.text}” ${pair.color} on ${pair.background} is ${pair.ratio.toFixed(2)}:1`);
      }
    };

    // First run: the model setup.
    await check('model setup');

    await workbench.configureScriptedModel();
    const down = await host.invoke('provider:save', { kind: 'ollama', name: 'Gone', baseUrl: `http://127.0.0.1:${await closedPort()}` });
    if (!down.ok) throw new Error(down.error.message);
    await page.reload();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue(
      { steps: [{ kind: 'text', text: 'Writing two notes.' }, toolCall('write_note', { name: 'a', text: 'one' }, 'c1')] },
      { steps: [toolCall('write_note', { name: 'b', text: 'two' }, 'c2')] },
      textTurn('Done, with **bold** and `code`.'),
    );
    await page.getByRole('textbox', { name: 'Message' }).fill('Write the notes');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const gate = page.getByRole('region', { name: 'Approval needed' });
    await expectPage(gate).toBeVisible();
    await check('gate');
    await gate.getByRole('button', { name: 'Allow once' }).click();
    await gate.getByLabel('Reason for denying').fill('not this one');
    await gate.getByRole('button', { name: 'Deny' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Done, with');
    const crashed = { steps: [], fault: { kind: 'status' as const, status: 500, message: 'out of memory' } };
    server.enqueue(crashed, crashed);
    await page.getByRole('textbox', { name: 'Message' }).fill('Again');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('failed');
    await check('conversation');

    await page.getByLabel('Model endpoint').selectOption({ label: 'Gone' });
    await expectPage(page.getByRole('status', { name: 'Endpoint state' })).toHaveText('unreachable');
    await check('unreachable endpoint');

    await page.getByRole('button', { name: 'History' }).first().click();
    await check('history');

    await page.getByRole('button', { name: 'Settings' }).click();
    await check('settings');

    // Every kind of notice the app draws (a failed commit, a terminal that cannot start, an update that failed), over the
    // page and over a panel: each is a wash of its colour over what is behind it.
    await page.keyboard.press('Escape');
    await page.evaluate(() => {
      const samples = ['notice notice-error small', 'notice notice-error', 'notice notice-info', 'notice small']
        .map((kind) => `<p class="${kind}">Sample of ${kind}</p>`)
        .join('');
      const holder = document.createElement('div');
      holder.id = 'notice-samples';
      holder.innerHTML = `${samples}<div style="background: var(--panel)">${samples}</div>`;
      document.body.prepend(holder);
    });
    await check('notices');

    expect(failures).toEqual([]);
  });
});
