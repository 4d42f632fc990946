import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BashParser } from '../../src/main/shell/bash-parser';
import { builtinTools } from '../../src/main/tools/builtin-tools';
import { temporaryFolder } from '../helpers';
import { sandboxedRunCommand, testTools, toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches, type Workbench } from './fixture';

const shell = await BashParser.load();

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
}

describe('approvals in the workbench', () => {
  const log: string[] = [];
  const open = useWorkbenches(() => {
    log.length = 0;
  });

  // Each story runs twice: with native tool calls, and with a model that only writes them as text.
  describe.each(['native', 'text'] as const)('with %s tool calls', (mode) => {
    const textOnly = mode === 'text';
    /** In text mode, no request that a model answered carried tool definitions, and results went back as messages. */
    const checkProtocol = (workbench: Workbench): void => {
      if (!textOnly) return;
      const last = workbench.server.requests.at(-1)?.body as { tools?: unknown; messages: { content: string }[] };
      expect(last.tools).toBeUndefined();
      expect(last.messages.some((message) => message.content.includes('<tool_result name='))).toBe(true);
    };

    it('a write waits at the gate, is allowed for 5 min, the next one runs without asking, then the grant is revoked', async () => {
      const workbench = await open({ tools: testTools(log).tools }, { textOnly });
      const { page, server } = workbench;
      await workbench.configureScriptedModel();
      await page.getByRole('button', { name: '+ New session' }).first().click();

      server.enqueue(
        { steps: [{ kind: 'text', text: 'Writing the note.' }, toolCall('write_note', { name: 'todo', text: 'buy milk' })] },
        textTurn('Written.'),
      );
      await page.getByRole('textbox', { name: 'Message' }).fill('Write my todo');
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      const gate = page.getByRole('region', { name: 'Approval needed' });
      await expectPage(gate).toContainText('Approve write_note?');
      await expectPage(gate).toContainText('buy milk');
      await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('waiting for you');
      await workbench.screenshotAtSizes(`approval-gate-${mode}`);
      expect(log).toEqual([]);
      await gate.getByRole('button', { name: '5 min' }).click();
      await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Written.');
      expect(log).toEqual(['write todo']);
      const grant = page.getByRole('list', { name: 'Trust grants' }).getByRole('listitem');
      await expectPage(grant).toContainText('write_note');
      await expectPage(grant).toContainText(/4:5\d|5:00/);
      checkProtocol(workbench);

      server.enqueue({ steps: [toolCall('write_note', { name: 'todo', text: 'buy milk' })] }, textTurn('Written again.'));
      await page.getByRole('textbox', { name: 'Message' }).fill('Once more');
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Written again.');
      expect(log).toEqual(['write todo', 'write todo']);
      await workbench.screenshot(`trust-grant-active-${mode}`);

      await grant.getByRole('button', { name: /Revoke/ }).click();
      await expectPage(page.getByRole('list', { name: 'Trust grants' })).toHaveCount(0);
      server.enqueue({ steps: [toolCall('write_note', { name: 'todo', text: 'buy milk' })] }, textTurn('Not written.'));
      await page.getByRole('textbox', { name: 'Message' }).fill('And again');
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      await expectPage(gate).toBeVisible();
      await gate.getByLabel('Reason for denying').fill('enough notes');
      await gate.getByRole('button', { name: 'Deny' }).click();
      await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Not written.');
      expect(log).toEqual(['write todo', 'write todo']);
      // The card says who said no and why, not a run time of 0 ms.
      const denied = page.locator('section[data-state="denied"]');
      await expectPage(denied.getByLabel('Why it did not run')).toHaveText('You denied it: “enough notes”');
      await expectPage(denied.getByRole('button').first()).not.toContainText(' ms');
    });

    it('a plan is proposed, approved, and runs with its tool cards', async () => {
      const workbench = await open({ tools: testTools(log).tools }, { textOnly });
      const { page, server } = workbench;
      await workbench.configureScriptedModel();
      await page.getByRole('button', { name: '+ New session' }).first().click();
      server.enqueue(
        {
          steps: [
            { kind: 'text', text: 'Read two notes, then write one.' },
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
      await expectPage(plan).toContainText('Read two notes, then write one.');
      await expectPage(plan.getByRole('listitem')).toHaveCount(3);
      await workbench.screenshot(`plan-proposed-${mode}`);
      await plan.getByRole('button', { name: 'Approve plan' }).click();
      await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Summary written.');
      expect(log).toEqual(['read a', 'read b', 'write c']);
      await expectPage(page.locator('section[data-state="succeeded"]')).toHaveCount(3);
      // The plan panel shows every step done, with its progress full.
      await expectPage(plan).toContainText('3 of 3 steps done');
      await expectPage(plan.getByRole('progressbar', { name: 'Plan progress' })).toHaveAttribute('value', '3');
      await expectPage(plan.locator('li[data-state="succeeded"]')).toHaveCount(3);
      await workbench.screenshot(`plan-finished-${mode}`);
      checkProtocol(workbench);
    });
  });

  describe('a command that asks for more than the sandbox', () => {
    it('waits at L3 with Deny and Allow once; network is trusted only through its own choice, no sandbox never', async () => {
      const workbench = await open({
        tools: [...testTools(log).tools, sandboxedRunCommand(log)],
        sandbox: { available: true, kind: 'bubblewrap', path: 'bwrap' },
      });
      const { page, server, host } = workbench;
      await host.invoke('settings:update', { defaultAutonomy: 'L3' });
      await workbench.configureScriptedModel();
      await page.getByRole('button', { name: '+ New session' }).first().click();
      await expectPage(page.getByLabel('Autonomy')).toHaveValue('L3');
      const send = async (text: string): Promise<void> => {
        await page.getByRole('textbox', { name: 'Message' }).fill(text);
        await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      };
      const answer = page.getByRole('article', { name: 'Answer' }).last();
      const gate = page.getByRole('region', { name: 'Approval needed' });
      const trustNetwork = gate.getByRole('group', { name: 'Trust network access for this command' });

      server.enqueue({ steps: [toolCall('run_command', { command: 'npm install', sandbox: 'network' })] }, textTurn('Installed.'));
      await send('Install the packages');
      await expectPage(gate.getByRole('note', { name: 'Escalation' })).toContainText('Network access: this call asks for network access');
      await expectPage(gate.getByRole('button', { name: 'Deny' })).toBeVisible();
      await expectPage(gate.getByRole('button', { name: 'Allow once' })).toBeVisible();
      // The usual durations are not among the answers: a grant for the escalation is its own, plainly worded choice.
      await expectPage(gate.getByRole('group', { name: 'Allow for' })).toHaveCount(0);
      await expectPage(trustNetwork).toContainText('Trust network access for this command for');
      await workbench.screenshot('escalation-gate-network');
      expect(log).toEqual([]);
      await trustNetwork.getByRole('button', { name: '30 min' }).click();
      await expectPage(answer).toHaveText('Installed.');
      const grant = page.getByRole('list', { name: 'Trust grants' }).getByRole('listitem');
      await expectPage(grant).toContainText('with network access');

      server.enqueue({ steps: [toolCall('run_command', { command: 'npm install', sandbox: 'network' })] }, textTurn('Installed again.'));
      await send('Once more');
      await expectPage(answer).toHaveText('Installed again.');
      expect(log).toEqual(['run npm install (network)', 'run npm install (network)']);

      server.enqueue({ steps: [toolCall('run_command', { command: 'npm install', sandbox: 'none' })] }, textTurn('Installed outside.'));
      await send('Without the sandbox');
      await expectPage(gate.getByRole('note', { name: 'Escalation' })).toContainText(
        'No sandbox: this call asks to run outside the sandbox',
      );
      await expectPage(trustNetwork).toHaveCount(0);
      await expectPage(gate.getByRole('group', { name: 'Allow for' })).toHaveCount(0);
      await expectPage(gate).toContainText('Destructive actions are approved one at a time.');
      await workbench.screenshot('escalation-gate-no-sandbox');
      await gate.getByRole('button', { name: 'Allow once' }).click();
      await expectPage(answer).toHaveText('Installed outside.');
      expect(log).toEqual(['run npm install (network)', 'run npm install (network)', 'run npm install (none)']);
      await expectPage(grant).toHaveCount(1);
    });
  });

  it('a write that changes nothing and an edit that cannot apply fail at once, without asking', async () => {
    const workbench = await open({
      tools: builtinTools({ shell, dataDir: join('/tmp', 'unused-trash'), newId: () => `t${Date.now()}`, now: () => Date.now() }),
    });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-project-');
    onTestFinished(folder.remove);
    writeFileSync(join(folder.path, 'notes.txt'), 'hello\nhello\n');
    // The usual autonomy: writes ask first.
    const created = await workbench.host.invoke('session:create', { title: 'Checks', workspacePath: folder.path });
    if (!created.ok) throw new Error(created.error.message);
    const sessionId = (created.value as { id: string }).id;
    await page.reload();
    await page.getByRole('button', { name: /^Checks/ }).click();
    const gate = page.getByRole('region', { name: 'Approval needed' });
    const answers = page.getByRole('article', { name: 'Answer' });

    server.enqueue(
      { steps: [toolCall('edit_file', { path: 'notes.txt', oldText: 'goodbye', newText: 'bye' }, 'e1')] },
      textTurn('The edit did not apply.'),
    );
    await send(page, 'Edit the notes');
    await expectPage(answers.last()).toContainText('The edit did not apply.');
    // The app names calls its own way: the cards are found by their tool, in order.
    const edits = page.getByRole('region', { name: 'Tool edit_file' });
    const edit = edits.nth(0);
    await expectPage(edit).toHaveAttribute('data-state', 'failed');
    await expectPage(edit.getByLabel('Output')).toContainText('oldText was not found in notes.txt');

    server.enqueue(
      { steps: [toolCall('edit_file', { path: 'notes.txt', oldText: 'hello', newText: 'bye' }, 'e2')] },
      textTurn('The edit was ambiguous.'),
    );
    await send(page, 'Edit the notes again');
    await expectPage(answers.last()).toContainText('The edit was ambiguous.');
    await expectPage(edits.nth(1)).toHaveAttribute('data-state', 'failed');
    await expectPage(edits.nth(1).getByLabel('Output')).toContainText('oldText occurs 2 times in notes.txt');

    server.enqueue(
      { steps: [toolCall('write_file', { path: 'notes.txt', content: 'hello\nhello\n' }, 'w1')] },
      textTurn('Nothing to write.'),
    );
    await send(page, 'Write the notes');
    await expectPage(answers.last()).toContainText('Nothing to write.');
    const write = page.getByRole('region', { name: 'Tool write_file' }).nth(0);
    await expectPage(write).toHaveAttribute('data-state', 'failed');
    await expectPage(write.getByLabel('Output')).toContainText('notes.txt already holds exactly this text');
    // No gate was opened for any of them: the model heard at once.
    await expectPage(gate).toHaveCount(0);
    const audit = await workbench.host.invoke('audit:list', { sessionId });
    expect(audit.ok && (audit.value as { rows: Array<{ kind: string }> }).rows.filter((row) => row.kind === 'gate')).toEqual([]);

    // A write that changes something still asks.
    server.enqueue({ steps: [toolCall('write_file', { path: 'notes.txt', content: 'bye\n' }, 'w2')] }, textTurn('Written.'));
    await send(page, 'Write new notes');
    await expectPage(gate).toContainText('Approve write_file?');
    await gate.getByRole('button', { name: 'Deny' }).click();
  });
});
