import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { testTools, toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { screenSizes, useWorkbenches } from './fixture';

/* A plan waits for the person even with the side panel folded away: its answers are in the conversation too. */
describe('a waiting plan in the conversation', () => {
  const open = useWorkbenches();

  it('with the side panel folded away, the plan can be approved from above the message box, titled once', async () => {
    const log: string[] = [];
    const workbench = await open({ tools: testTools(log).tools });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue(
      {
        steps: [
          { kind: 'text', text: 'Plan: read two notes, then write one.' },
          toolCall('read_note', { name: 'a' }, 'c1'),
          toolCall('read_note', { name: 'b' }, 'c2'),
          toolCall('write_note', { name: 'c', text: 'summary' }, 'c3'),
        ],
      },
      textTurn('Summary written.'),
    );
    await page.getByRole('textbox', { name: 'Message' }).fill('Summarize a and b into c');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    // The plan opens in the side panel; with it in view, nothing is shown twice.
    await expectPage(page.getByRole('region', { name: 'Plan' })).toBeVisible();
    // Each step is one line whatever its length: number, text (whole on hover) and risk side by side.
    for (const [width, height] of screenSizes) {
      await page.setViewportSize({ width, height });
      const rows = await page
        .getByRole('region', { name: 'Plan' })
        .locator('.plan-steps > li')
        .evaluateAll((items) =>
          items.map((item) => {
            const top = (selector: string): number => item.querySelector(selector)?.getBoundingClientRect().top ?? -1;
            const line = item.querySelector('.plan-step-line');
            return { number: top('.step-number'), badge: top('.risk'), text: top('.plan-step-line'), title: line?.getAttribute('title') };
          }),
        );
      expect(rows).toHaveLength(3);
      for (const row of rows) {
        expect(Math.abs(row.badge - row.number), `${width}: the risk sits on the step's line`).toBeLessThan(8);
        expect(Math.abs(row.text - row.number), `${width}: the text sits on the step's line`).toBeLessThan(8);
      }
      expect(rows[2]?.title).toBe('write_note {"name":"c","text":"summary"}');
      await workbench.screenshot(`plan-steps-${width}`);
    }
    const prompt = page.getByRole('region', { name: 'Plan waiting for you' });
    await expectPage(prompt).toHaveCount(0);
    // Folded away, the plan's answers are above the message box.
    await page.getByRole('banner', { name: 'Status' }).getByRole('button', { name: 'Hide details' }).click();
    await expectPage(prompt).toBeVisible();
    await expectPage(prompt.locator('strong')).toHaveText('Plan: read two notes, then write one.');
    await expectPage(prompt).toContainText('3 steps');
    await workbench.screenshot('plan-prompt-inline');
    await prompt.getByRole('button', { name: 'Approve plan' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Summary written.');
    expect(log).toEqual(['read a', 'read b', 'write c']);
    await expectPage(prompt).toHaveCount(0);
  });
});
