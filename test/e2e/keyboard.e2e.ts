import type { Page } from 'playwright';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { testTools, toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches, type Workbench } from './fixture';

/** Which region of the window the focus is in (its `data-region`), or where it is when in none. */
const focusedRegion = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const active = document.activeElement;
    if (!active || active === document.body) return 'nothing';
    return active.closest('[data-region]')?.getAttribute('data-region') ?? `outside: ${active.tagName}`;
  });

/* Keyboard only: dialogs keep the keys and the focus, F6 moves between the window's parts, Alt+G reaches a gate. */
describe('the keyboard', () => {
  const open = useWorkbenches();

  async function withSession(): Promise<Workbench> {
    const log: string[] = [];
    const workbench = await open({ tools: testTools(log).tools });
    await workbench.configureScriptedModel();
    await workbench.page.getByRole('button', { name: '+ New session' }).first().click();
    await expectPage(workbench.page.getByRole('textbox', { name: 'Message' })).toBeVisible();
    return workbench;
  }

  it('Settings keeps the keys: Esc closes it wherever the focus went, and Ctrl+N, typing and Enter do nothing behind it', async () => {
    const workbench = await withSession();
    const { page, server, host } = workbench;
    await page.keyboard.press('Control+,');
    const settings = page.getByRole('dialog', { name: 'Settings' });
    await expectPage(settings).toBeVisible();
    // A click on the dialog's text takes the focus off its controls; Esc still closes it.
    await settings.getByRole('heading', { name: 'Settings' }).click();
    await page.keyboard.press('Escape');
    await expectPage(settings).toHaveCount(0);

    await page.keyboard.press('Control+,');
    await expectPage(settings).toBeVisible();
    const sessionsBefore = await host.invoke('session:list', {});
    const requestsBefore = server.requests.length;
    await page.keyboard.press('Control+n');
    await page.keyboard.type('hello');
    // Enter presses the dialog's focused button (its ×): it may close Settings, and nothing else happens.
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    const sessionsAfter = await host.invoke('session:list', {});
    expect(sessionsAfter.ok && sessionsBefore.ok && (sessionsAfter.value as unknown[]).length).toBe(
      sessionsBefore.ok && (sessionsBefore.value as unknown[]).length,
    );
    expect(server.requests.length).toBe(requestsBefore);
    await expectPage(page.getByRole('article', { name: 'Your message' })).toHaveCount(0);
    if (!(await settings.isVisible())) await page.keyboard.press('Control+,');
    await expectPage(settings).toBeVisible();
    // Tab goes round the dialog's controls and never reaches the window behind it.
    for (let press = 0; press < 60; press += 1) {
      await page.keyboard.press('Tab');
      const inside = await page.evaluate(() => {
        const active = document.activeElement;
        return active === document.body || active?.closest('dialog') !== null;
      });
      expect(inside, `Tab ${press + 1} left the dialog`).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expectPage(settings).toHaveCount(0);
  });

  it('F6 and Shift+F6 move between the status bar, the sessions, the conversation, the message box and the details, round', async () => {
    const workbench = await withSession();
    const { page, server } = workbench;
    server.enqueue(textTurn('Hello.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Hi');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' })).toHaveText('Hello.');
    const details = page.getByRole('complementary', { name: 'Details' });
    if (!(await details.isVisible())) await page.keyboard.press('Control+j');
    await page.getByRole('textbox', { name: 'Message' }).focus();
    const forwards: string[] = [];
    for (let press = 0; press < 5; press += 1) {
      await page.keyboard.press('F6');
      forwards.push(await focusedRegion(page));
    }
    expect(forwards).toEqual(['details', 'status', 'sessions', 'conversation', 'composer']);
    // In the message box, F6 lands where typing goes on.
    await expectPage(page.getByRole('textbox', { name: 'Message' })).toBeFocused();
    const backwards: string[] = [];
    for (let press = 0; press < 5; press += 1) {
      await page.keyboard.press('Shift+F6');
      backwards.push(await focusedRegion(page));
    }
    expect(backwards).toEqual(['conversation', 'sessions', 'status', 'details', 'composer']);
    // In the conversation, the arrow keys scroll it.
    await page.keyboard.press('Shift+F6');
    expect(await focusedRegion(page)).toBe('conversation');
  });

  it('Alt+G goes to the gate, in this session or the one waiting, and Alt+A answers it; Alt+A approves a plan', async () => {
    const log: string[] = [];
    const workbench = await open({ tools: testTools(log).tools });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue({ steps: [toolCall('write_note', { name: 'todo', text: 'buy milk' })] }, textTurn('Written.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Write my todo');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const gate = page.getByRole('region', { name: 'Approval needed' });
    await expectPage(gate).toBeVisible();
    // From another session, Alt+G opens the waiting one with the focus in its gate.
    await page.getByRole('button', { name: '+ New session' }).first().click();
    await expectPage(gate).toHaveCount(0);
    await page.keyboard.press('Alt+g');
    await expectPage(gate).toBeVisible();
    await expectPage.poll(() => focusedRegion(page)).toBe('gate');
    await page.keyboard.press('Alt+a');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Written.');
    expect(log).toEqual(['write todo']);

    // A plan (it opens in the details): Alt+G goes to it, Alt+A approves it.
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
    const plan = page.getByRole('region', { name: 'Plan' });
    await expectPage(plan.getByRole('button', { name: 'Approve plan' })).toBeVisible();
    await page.getByRole('textbox', { name: 'Message' }).focus();
    await page.keyboard.press('Alt+g');
    await expectPage.poll(() => page.evaluate(() => document.activeElement?.closest('[data-gate]') !== null)).toBe(true);
    await page.keyboard.press('Alt+a');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Summary written.');
    expect(log).toEqual(['write todo', 'read a', 'read b', 'write c']);
    await expectPage(plan.getByRole('button', { name: 'Approve plan' })).toHaveCount(0);
  });
});
