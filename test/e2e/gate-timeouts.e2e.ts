import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { testTools, toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

describe('gate time limits in the workbench', () => {
  const log: string[] = [];
  const open = useWorkbenches(() => {
    log.length = 0;
  });

  it('set in Settings, a gate counts down on its card and in the inbox, and is denied when no answer comes', async () => {
    const workbench = await open({ tools: testTools(log).tools });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();

    // Settings → Behaviour offers minutes; the limit itself is checked by main, which takes seconds.
    await page.getByRole('button', { name: 'Settings' }).first().click();
    const limit = page.getByRole('combobox', { name: 'Gate time limit at L1' });
    await expectPage(limit).toHaveValue('');
    await limit.selectOption({ label: '5 minutes' });
    await expectPage
      .poll(async () => {
        const settings = await workbench.host.invoke('settings:get', {});
        return settings.ok ? (settings.value as { gateTimeout: { seconds: { L1: number | null } } }).gateTimeout.seconds.L1 : null;
      })
      .toBe(300);
    await page.keyboard.press('Escape');
    const updated = await workbench.host.invoke('settings:update', {
      gateTimeout: { seconds: { L0: null, L1: 8, L2: null, L3: null }, action: 'deny' },
    });
    expect(updated.ok).toBe(true);

    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue(
      { steps: [toolCall('write_note', { name: 'todo', text: 'buy milk' })] },
      textTurn('No answer came, so I did not write it.'),
    );
    await page.getByRole('textbox', { name: 'Message' }).fill('Write my todo');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const gate = page.getByRole('region', { name: 'Approval needed' });
    await expectPage(gate).toContainText('Approve write_note?');
    const countdown = gate.getByRole('timer');
    await expectPage(countdown).toHaveText(/Without an answer, denied in 0:0[0-8]/);
    const first = await countdown.textContent();
    await expectPage(countdown).not.toHaveText(first ?? '');

    const inbox = page.getByRole('button', { name: /Inbox 1 waiting/ });
    await inbox.click();
    await expectPage(page.getByRole('list', { name: 'Waiting for you' }).getByRole('timer')).toHaveText(
      /denied in 0:0\d|No answer in time/,
    );
    // Closed with its button: Esc would stop the turn.
    await inbox.click();

    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('No answer came, so I did not write it.', {
      timeout: 20_000,
    });
    await expectPage(gate).toHaveCount(0);
    expect(log).toEqual([]);
    await expectPage(page.getByText('Not run: no answer came within 8 seconds, so it was denied.')).toBeVisible();
    await workbench.screenshotAtSizes('gate-timed-out');
  });
});
