import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { describe, it } from 'vitest';
import { builtinTools } from '../../src/main/tools/builtin-tools';
import { BashParser } from '../../src/main/shell/bash-parser';
import { toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { temporaryFolder } from '../helpers';
import { useWorkbenches } from '../e2e/fixture';

/*
 * The README's pictures, taken from the real UI in a real scenario (`npm run pictures`): a plan waiting for approval,
 * an edit at its gate with the diff, the Changes tab, and the context meter. Run again whenever the UI changes.
 */

const shell = await BashParser.load();
const pictures = join(import.meta.dirname, '../../resources');

const app = `export function total(prices: number[]): number {
  let sum = 0;
  for (const price of prices) sum += price;
  return sum;
}
`;
const fixed = `export function total(prices: readonly number[]): number {
  return prices.reduce((sum, price) => sum + price, 0);
}
`;

describe('the README pictures', () => {
  const open = useWorkbenches();

  it('a plan, a gate with its diff, the changes and the context meter', async () => {
    const workbench = await open(
      { tools: builtinTools({ shell, dataDir: join('/tmp', 'unused-trash'), newId: () => `t${Date.now()}`, now: () => Date.now() }) },
      { contextWindow: 32768 },
    );
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('shop-');
    writeFileSync(join(folder.path, 'total.ts'), app);
    writeFileSync(join(folder.path, 'README.md'), '# Shop\n\nPrices and totals.\n');
    const created = await host.invoke('session:create', { title: 'Tidy the totals', workspacePath: folder.path });
    if (!created.ok) throw new Error(created.error.message);
    await page.reload();
    await page.getByRole('button', { name: /^Tidy the totals/ }).click();
    await page.setViewportSize({ width: 1280, height: 800 });
    const shot = async (name: string): Promise<void> => {
      await page.waitForTimeout(200);
      await page.screenshot({ path: join(pictures, `${name}.png`) });
    };

    server.enqueue(
      {
        steps: [
          { kind: 'text', text: 'Plan: read the code and its README, then simplify `total`.' },
          toolCall('read_file', { path: 'total.ts' }, 'r1'),
          toolCall('read_file', { path: 'README.md' }, 'r2'),
          toolCall('edit_file', { path: 'total.ts', oldText: app, newText: fixed }, 'e1'),
        ],
      },
      textTurn('`total` now uses `reduce` and takes a read-only array. Nothing else changed.'),
    );
    await page.getByRole('textbox', { name: 'Message' }).fill('Make total() shorter, and keep its behaviour.');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('region', { name: 'Plan' }).getByRole('button', { name: 'Approve plan' })).toBeVisible();
    await shot('plan');
    await page.getByRole('region', { name: 'Plan' }).getByRole('button', { name: 'Approve plan' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('reduce');

    await page
      .getByRole('button', { name: /paths? changed/ })
      .last()
      .click();
    const changes = page.getByRole('region', { name: 'File changes' });
    await changes.getByRole('button', { name: 'changed total.ts' }).click();
    await expectPage(changes.getByLabel('Part 1 of total.ts')).toBeVisible();
    await shot('changes');

    // An edit on its own waits at its gate, with its diff.
    server.enqueue(
      {
        steps: [
          { kind: 'text', text: 'The README should say what `total` takes now.' },
          toolCall(
            'edit_file',
            {
              path: 'README.md',
              oldText: 'Prices and totals.\n',
              newText: 'Prices and totals: `total(prices)` adds up a read-only list of prices.\n',
            },
            'e2',
          ),
        ],
      },
      textTurn('The README says what `total` takes.'),
    );
    await page.getByRole('textbox', { name: 'Message' }).fill('Say so in the README.');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const gate = page.getByRole('region', { name: 'Approval needed' });
    await expectPage(gate).toBeVisible();
    await shot('screenshot');
    await gate.getByRole('button', { name: 'Allow once' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('The README says');

    await page
      .getByRole('banner', { name: 'Status' })
      .getByRole('button', { name: /Context window/ })
      .click();
    await expectPage(page.getByRole('form', { name: 'Summarize the conversation' })).toBeVisible();
    await shot('context');
    folder.remove();
  });
});
