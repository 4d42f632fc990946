import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { builtinTools } from '../../src/main/tools/builtin-tools';
import { temporaryFolder } from '../helpers';
import { bash, needs } from '../platform';
import { toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';
import { BashParser } from '../../src/main/shell/bash-parser';

const shell = await BashParser.load();

describe('commands in the workbench', () => {
  const open = useWorkbenches();

  it('shows a command’s output live in a terminal, and Stop ends it', needs(bash), async () => {
    const folder = temporaryFolder('workbench-term-');
    const workbench = await open({
      tools: builtinTools({ shell, dataDir: folder.path, newId: () => `t${Date.now()}`, now: () => Date.now() }),
    });
    const { page, server, host } = workbench;
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await workbench.configureScriptedModel();
    const created = await host.invoke('session:create', { title: 'Long command', workspacePath: folder.path });
    if (!created.ok) throw new Error(created.error.message);
    await host.invoke('session:setAutonomy', { sessionId: (created.value as { id: string }).id, autonomy: 'L3' });
    await page.reload();
    await page.getByRole('button', { name: /^Long command/ }).click();

    server.enqueue(
      {
        steps: [
          toolCall(
            'run_command',
            { command: 'for i in 1 2 3; do echo "line $i"; done; printf "\\033[32mgreen\\033[0m\\n"; sleep 30' },
            'c1',
          ),
        ],
      },
      textTurn('never'),
    );
    await page.getByRole('textbox', { name: 'Message' }).fill('Run the long job');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const gate = page.getByRole('region', { name: 'Approval needed' });
    if (await gate.isVisible().catch(() => false)) await gate.getByRole('button', { name: 'Allow once' }).click();
    const terminal = page.getByRole('log', { name: 'Terminal output' });
    await expectPage(terminal).toBeVisible();
    await expectPage(terminal).not.toHaveAttribute('data-output-length', '0');
    await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('running run_command');
    await expectPage(terminal.locator('.xterm-screen')).toBeVisible();
    await workbench.screenshot('terminal-running');

    const started = Date.now();
    await page.getByRole('button', { name: 'Stop' }).click();
    await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('stopped');
    expect(Date.now() - started).toBeLessThan(3_000);
    await expectPage(page.locator('section[data-state="cancelled"]')).toHaveCount(1);
    expect(consoleErrors.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
    folder.remove();
  });

  it(
    'a short command’s terminal is as tall as its output, and the finished card folds to one line with its exit code',
    needs(bash),
    async () => {
      const folder = temporaryFolder('workbench-term-');
      const workbench = await open({
        tools: builtinTools({ shell, dataDir: folder.path, newId: () => `t${Date.now()}`, now: () => Date.now() }),
      });
      const { page, server, host } = workbench;
      await workbench.configureScriptedModel();
      const created = await host.invoke('session:create', { title: 'Short commands', workspacePath: folder.path });
      if (!created.ok) throw new Error(created.error.message);
      await host.invoke('session:setAutonomy', { sessionId: (created.value as { id: string }).id, autonomy: 'L3' });
      await page.reload();
      await page.getByRole('button', { name: /^Short commands/ }).click();
      server.enqueue(
        { steps: [toolCall('run_command', { command: 'echo one-line' }, 'c1'), toolCall('run_command', { command: 'exit 3' }, 'c2')] },
        textTurn('Both ran.'),
      );
      await page.getByRole('textbox', { name: 'Message' }).fill('Run them');
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      const gate = page.getByRole('region', { name: 'Approval needed' });
      if (await gate.isVisible().catch(() => false)) await gate.getByRole('button', { name: 'Allow once' }).click();
      await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Both ran.');
      const ok = page.locator('section[data-state="succeeded"]');
      const failed = page.locator('section[data-state="failed"]');
      await expectPage(ok.getByRole('button').first()).toContainText('exit 0');
      await expectPage(ok.getByRole('button').first()).toHaveAttribute('aria-expanded', 'false');
      await expectPage(ok.getByRole('log', { name: 'Terminal output' })).toHaveCount(0);
      await expectPage(failed.getByRole('button').first()).toContainText('exit 3');
      await expectPage(failed.getByRole('button').first()).toHaveAttribute('aria-expanded', 'true');

      await ok.getByRole('button').first().click();
      const terminal = ok.getByRole('log', { name: 'Terminal output' });
      await expectPage(terminal).toBeVisible();
      // Two lines (the output and its exit code) take two rows, not a fixed 220 pixels.
      const box = await terminal.boundingBox();
      expect(box?.height ?? 0).toBeLessThan(60);
      await workbench.screenshotAtSizes('terminal-short-folded');
      folder.remove();
    },
  );
});
