import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { testTools, toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

describe('the workbench panels and keyboard', () => {
  const log: string[] = [];
  const open = useWorkbenches(() => {
    log.length = 0;
  });

  it('a read-only tool runs at L1 without asking, and shows in the tools panel', async () => {
    const workbench = await open({ tools: testTools(log).tools });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue({ steps: [toolCall('read_note', { name: 'todo' })] }, textTurn('The note says: contents of todo.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Read my todo note');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('The note says: contents of todo.');
    await expectPage(page.getByRole('region', { name: 'Approval needed' })).toHaveCount(0);
    expect(log).toEqual(['read todo']);
    await page.getByRole('tab', { name: 'Tools' }).click();
    await expectPage(page.getByRole('list', { name: 'Tool executions' }).getByRole('listitem')).toHaveCount(1);
    await expectPage(page.getByRole('list', { name: 'Tool executions' })).toContainText('read_note');
    await workbench.screenshot('tools-panel');
  });

  it('a plan is rejected with a reason, which the model is told, and nothing runs', async () => {
    const workbench = await open({ tools: testTools(log).tools });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue(
      {
        steps: [
          { kind: 'text', text: 'Publish three times.' },
          toolCall('publish', { target: 'a' }, 'p1'),
          toolCall('publish', { target: 'b' }, 'p2'),
          toolCall('publish', { target: 'c' }, 'p3'),
        ],
      },
      textTurn('Understood, nothing published.'),
    );
    await page.getByRole('textbox', { name: 'Message' }).fill('Publish everything');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const plan = page.getByRole('region', { name: 'Plan' });
    await expectPage(plan.getByRole('progressbar', { name: 'Plan progress' })).toBeVisible();
    await expectPage(plan).toContainText('0 of 3 steps done');
    await plan.getByRole('textbox', { name: 'Reason or feedback' }).fill('not on a Friday');
    await workbench.screenshot('plan-rejecting');
    await plan.getByRole('button', { name: 'Reject' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Understood, nothing published.');
    expect(log).toEqual([]);
    const messages = server.requests.at(-1)?.body['messages'] as Array<{ role: string; content: string }>;
    expect(messages.filter((message) => message.role === 'tool').every((message) => message.content.includes('not on a Friday'))).toBe(
      true,
    );
    await expectPage(plan).toContainText('rejected');
  });

  it('keyboard first: the gate answers to Alt+A, sessions to Ctrl+N and Alt+arrows, the inbox counts waiting sessions, and Ctrl+/ lists every shortcut', async () => {
    const workbench = await open({ tools: testTools(log).tools });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 'x' })] }, textTurn('Written.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Write a note');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('region', { name: 'Approval needed' })).toBeVisible();
    await expectPage(page.getByRole('button', { name: 'Inbox 1 waiting' })).toBeVisible();

    // A second session; the inbox still shows the first, and takes you back to it.
    await page.keyboard.press('Control+n');
    await expectPage(page.getByRole('list', { name: 'Sessions' }).or(page.locator('.sessions')).getByRole('listitem')).toHaveCount(2);
    await expectPage(page.getByRole('region', { name: 'Approval needed' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Inbox 1 waiting' }).click();
    await workbench.screenshot('approval-inbox');
    await page.getByRole('list', { name: 'Waiting for you' }).getByRole('button').first().click();
    await expectPage(page.getByRole('region', { name: 'Approval needed' })).toBeVisible();
    await page.keyboard.press('Alt+a');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Written.');
    expect(log).toEqual(['write n']);
    await expectPage(page.getByRole('button', { name: 'Inbox 0 waiting' })).toBeVisible();

    const selected = (): Promise<string | null> => page.locator('.session.selected .session-title').textContent();
    const before = await selected();
    await page.keyboard.press('Alt+ArrowDown');
    await expectPage(page.locator('.session.selected .session-title')).not.toHaveText(before ?? '');

    // Every shortcut is listed a keystroke away; Settings has one too.
    await page.keyboard.press('Control+/');
    const shortcuts = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expectPage(shortcuts.getByRole('region', { name: 'A call waiting for you' })).toContainText('Alt+A');
    await expectPage(shortcuts).toContainText('Ctrl+N');
    await workbench.screenshot('keyboard-shortcuts');
    await page.keyboard.press('Escape');
    await expectPage(shortcuts).toHaveCount(0);
    await page.keyboard.press('Control+,');
    await expectPage(page.getByRole('dialog', { name: 'Settings' })).toBeVisible();
  });

  // The app's window always has the same origin (app://workbench); a restarted test host would not, so this reloads the page.
  it('panels resize and collapse, and come back as they were when the window opens again', async () => {
    const workbench = await open();
    const { page } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    const splitter = page.getByRole('separator', { name: 'Resize the sessions panel' });
    for (let step = 0; step < 5; step += 1) await splitter.press('ArrowRight');
    await expectPage(splitter).toHaveAttribute('aria-valuenow', '340');
    await page.keyboard.press('Control+j');
    await expectPage(page.getByRole('complementary', { name: 'Details' })).toHaveCount(0);
    await page.reload();
    await expectPage(page.getByRole('separator', { name: 'Resize the sessions panel' })).toHaveAttribute('aria-valuenow', '340');
    await expectPage(page.getByRole('complementary', { name: 'Details' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Show details' }).click();
    await expectPage(page.getByRole('complementary', { name: 'Details' })).toBeVisible();
    await workbench.screenshot('panels-restored');
  });

  it('every control has an accessible name, on the main screen and in Settings', async () => {
    const workbench = await open({ tools: testTools(log).tools });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue({ steps: [{ kind: 'text', text: 'Reading.' }, toolCall('read_note', { name: 'a' })] }, textTurn('Done, see `a`.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Read a');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Done');
    const unnamed = (): Promise<string[]> =>
      page.evaluate(() => {
        const controls = document.querySelectorAll<HTMLElement>(
          'button, a[href], input, select, textarea, [role="button"], [role="tab"], [role="separator"][tabindex]',
        );
        const nameOf = (element: HTMLElement): string => {
          const labelledBy = element.getAttribute('aria-labelledby');
          const byId = labelledBy
            ? labelledBy
                .split(' ')
                .map((id) => document.getElementById(id)?.textContent ?? '')
                .join(' ')
            : '';
          const labels =
            'labels' in element ? [...((element as HTMLInputElement).labels ?? [])].map((label) => label.textContent ?? '').join(' ') : '';
          return (
            [
              element.getAttribute('aria-label'),
              byId,
              labels,
              element.textContent,
              element.getAttribute('title'),
              element.getAttribute('placeholder'),
            ]
              .map((part) => part?.trim() ?? '')
              .find((part) => part.length > 0) ?? ''
          );
        };
        return [...controls]
          .filter((element) => element.offsetParent !== null && nameOf(element) === '')
          .map((element) => element.outerHTML.slice(0, 120));
      });
    expect(await unnamed()).toEqual([]);
    await page.getByRole('tab', { name: 'History' }).click();
    expect(await unnamed()).toEqual([]);
    await page.getByRole('button', { name: 'Settings' }).click();
    await expectPage(page.getByLabel('Default autonomy')).toBeVisible();
    expect(await unnamed()).toEqual([]);
    await workbench.screenshot('settings-behaviour');
  });

  it('the behaviour settings are kept, shown again after a reload, and used by new sessions', async () => {
    const workbench = await open();
    const { page, host } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Default autonomy').selectOption('L3');
    await page.getByLabel('Plan threshold').fill('5');
    await page.getByLabel('Model calls per turn budget').fill('40');
    await page.getByLabel('Command priority').selectOption('normal');
    await expectPage
      .poll(async () => {
        const stored = await host.invoke('settings:get', {});
        return stored.ok ? stored.value : null;
      })
      .toMatchObject({ defaultAutonomy: 'L3', planThreshold: 5, maxIterations: 40, commandPriority: 'normal' });
    await page.reload();
    await page.getByRole('button', { name: 'Settings' }).click();
    await expectPage(page.getByLabel('Default autonomy')).toHaveValue('L3');
    await expectPage(page.getByLabel('Plan threshold')).toHaveValue('5');
    await expectPage(page.getByLabel('Model calls per turn budget')).toHaveValue('40');
    await expectPage(page.getByLabel('Command priority')).toHaveValue('normal');
    await page.getByRole('button', { name: 'Close settings' }).click();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    await expectPage(page.getByLabel('Autonomy', { exact: true })).toHaveValue('L3');
  });

  it('light and dark follow the system, and the theme setting overrides it', async () => {
    const workbench = await open();
    const { page } = workbench;
    await page.emulateMedia({ colorScheme: 'dark' });
    const background = (): Promise<string> =>
      page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim());
    expect(await background()).toBe('#16181c');
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Theme').selectOption('light');
    await expectPage(page.locator('html')).toHaveAttribute('data-theme', 'light');
    expect(await background()).toBe('#f6f7f9');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByLabel('Theme').selectOption('dark');
    await expectPage(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    expect(await background()).toBe('#16181c');
    await workbench.screenshot('theme-dark');
    // The choice is a setting: it holds after a reload.
    await page.reload();
    await expectPage(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  });
});
