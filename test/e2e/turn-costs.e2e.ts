import type { Locator, Page } from 'playwright';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { textTurn, type ScriptedTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

/** An answer whose call the server reports with these tokens. */
const answer = (text: string, inputTokens: number, outputTokens: number): ScriptedTurn => ({
  ...textTurn(text),
  usage: { inputTokens, outputTokens },
});

async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

/** Checks the session's token usage, in the status bar or under its More when the bar folded it there. */
async function checkUsage(page: Page, check: (usage: Locator) => Promise<void>): Promise<void> {
  const usage = page.getByLabel('Token usage');
  const folded = (await usage.count()) === 0;
  if (folded) await page.getByRole('banner', { name: 'Status' }).getByRole('button', { name: 'More' }).click();
  await check(usage);
  if (folded) await page.keyboard.press('Escape');
  await expectPage(page.getByRole('group', { name: 'More of the status bar' })).toHaveCount(0);
}

/** Sets a price in Settings, as a person would, and closes them. */
async function setPrice(page: Page, model: string, input: string, output: string): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const form = page.getByRole('form', { name: "Set a model's price" });
  await form.getByLabel('Model to price').fill(model);
  await form.getByLabel('Input price per million tokens').fill(input);
  await form.getByLabel('Output price per million tokens').fill(output);
  await form.getByRole('button', { name: 'Set price' }).click();
  await expectPage(page.getByRole('list', { name: 'Prices set by you' })).toContainText(`${model}: $${input} in, $${output} out`);
  await page.getByRole('button', { name: 'Close settings' }).click();
}

describe('what each turn took and cost', () => {
  const open = useWorkbenches();

  it('shows a summary under each answer with its time and tokens, and a cost once the model has a price', async () => {
    const workbench = await open();
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    const summaries = page.getByRole('group', { name: 'Turn summary' });

    server.enqueue(answer('The first answer.', 1_200, 30));
    await send(page, 'Hello');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('The first answer.');
    await expectPage(summaries).toHaveCount(1);
    await expectPage(summaries.first()).toHaveText(/^\d+(\.\d)? (ms|s) · 1,200 in · 30 out$/);

    server.enqueue(answer('The second answer.', 2_000, 40));
    await send(page, 'And again');
    await expectPage(summaries).toHaveCount(2);
    // Each answer keeps its own turn's figures. The server is on this machine: its calls cost nothing, and say no cost.
    await expectPage(summaries.nth(0)).toContainText('1,200 in · 30 out');
    await expectPage(summaries.nth(1)).toHaveText(/^\d+(\.\d)? (ms|s) · 2,000 in · 40 out$/);

    await setPrice(page, 'scripted-model', '1000', '2000');
    const saved = await host.invoke('settings:get', {});
    expect(saved.ok && (saved.value as { modelPrices: unknown[] }).modelPrices).toEqual([
      expect.objectContaining({ model: 'scripted-model', input: 1000, output: 2000, cacheRead: null, cacheWrite: null }),
    ]);
    // 1,000 tokens in at $1,000 and 100 out at $2,000 per million.
    server.enqueue(answer('A priced answer.', 1_000, 100));
    await send(page, 'What does this cost?');
    await expectPage(summaries).toHaveCount(3);
    await expectPage(summaries.nth(2)).toContainText('1,000 in · 100 out · $1.20');
    await checkUsage(page, async (usage) => {
      await expectPage(usage).toContainText('$1.2000');
      await expectPage(usage).not.toContainText('without a price');
    });
    await workbench.screenshotAtSizes('turn-summaries');
  });

  it('says how many calls had no price: under the turn, in the status bar, in the budgets and at the cost budget’s gate', async () => {
    const workbench = await open();
    const { page, server, host } = workbench;
    // The scripted server reached at an address the app does not take for this machine: a server elsewhere, unpriced.
    const saved = await host.invoke('provider:save', {
      kind: 'openai-compatible',
      name: 'Elsewhere',
      baseUrl: server.openaiBaseUrl.replace('127.0.0.1', '0.0.0.0'),
    });
    if (!saved.ok) throw new Error(saved.error.message);
    const providerId = (saved.value as { id: string }).id;
    await host.invoke('settings:update', { defaultModel: { providerId, model: 'scripted-model' }, budgets: { sessionCostUsd: 0.5 } });
    await page.reload();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    const summaries = page.getByRole('group', { name: 'Turn summary' });

    // Counts a real server would report for prompts this long: one far below what was sent would look like a cut window.
    server.enqueue(answer('No price here.', 9_000, 10), answer('Still none.', 9_500, 10));
    await send(page, 'First');
    await expectPage(summaries).toHaveCount(1);
    await expectPage(summaries.first()).toContainText('9,000 in · 10 out · no price');
    await send(page, 'Second');
    await expectPage(summaries).toHaveCount(2);
    await checkUsage(page, (usage) => expectPage(usage).toContainText('2 calls without a price'));

    await page.getByRole('button', { name: 'Settings' }).click();
    await expectPage(page.getByLabel('Calls without a price')).toContainText('This session has 2 calls without a price.');
    await page.getByRole('button', { name: 'Close settings' }).click();

    // Priced from here on: the cost budget counts what it can, and its gate says what it could not.
    // 10,000 tokens in at $100 and 100 out at $2,000 per million.
    await setPrice(page, 'scripted-model', '100', '2000');
    server.enqueue(answer('Priced now.', 10_000, 100));
    await send(page, 'Third');
    await expectPage(summaries).toHaveCount(3);
    await expectPage(summaries.nth(2)).toContainText('$1.20');
    await checkUsage(page, (usage) => expectPage(usage).toContainText('$1.2000 + 2 calls without a price'));

    await send(page, 'Fourth');
    const gate = page.getByRole('region', { name: 'Budget reached' });
    await expectPage(gate).toContainText('Budget reached: cost of this session');
    await expectPage(gate.getByLabel('Budget figures')).toHaveText(
      '$1.20 of $0.50 used. 2 calls without a price not counted: the session cost at least this.',
    );
    await workbench.screenshot('budget-gate-unpriced');
    await gate.getByRole('button', { name: 'Stop' }).click();
    await expectPage(gate).toHaveCount(0);
    // The stopped turn made no call: its line says how it ended, and nothing else.
    await expectPage(summaries.last()).toHaveText(/^Stopped/);
  });
});
