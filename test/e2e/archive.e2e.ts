import { readFileSync } from 'node:fs';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { testTools, toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

describe('archive and audit in the workbench', () => {
  const log: string[] = [];
  const open = useWorkbenches(() => {
    log.length = 0;
  });

  it('a deleted session leaves the list, and is restored from Settings with its conversation', async () => {
    const workbench = await open();
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue(textTurn('Hello back.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Hello there');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Hello back.');
    const sessions = page.locator('.sessions > li');
    await expectPage(sessions.filter({ hasText: 'Hello there' })).toHaveCount(1);

    await page.getByRole('button', { name: 'Delete Hello there' }).click();
    await expectPage(sessions.filter({ hasText: 'Hello there' })).toHaveCount(0);

    await page.getByRole('button', { name: 'Settings' }).click();
    const archived = page.getByRole('list', { name: 'Archived sessions' }).getByRole('listitem', { name: 'Hello there' });
    await expectPage(archived).toContainText('archived');
    // Kept for the default 30 days: the date it will be purged is said.
    await expectPage(archived).toContainText('purged');
    await expectPage(page.getByLabel('Keep deleted sessions for')).toHaveValue('30');
    await archived.scrollIntoViewIfNeeded();
    await workbench.screenshot('archived-sessions');
    await archived.getByRole('button', { name: 'Restore Hello there' }).click();
    await expectPage(archived).toHaveCount(0);
    await page.getByRole('button', { name: 'Close settings' }).click();

    await expectPage(sessions.filter({ hasText: 'Hello there' })).toHaveCount(1);
    await sessions.filter({ hasText: 'Hello there' }).getByRole('button').first().click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Hello back.');
    // And it goes on as before.
    server.enqueue(textTurn('Still here.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Are you back?');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Still here.');
  });

  it('the audit view lists a gate with its answer, who gave it and the policy row, and exports it as CSV', async () => {
    const workbench = await open({ tools: testTools(log).tools });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue({ steps: [toolCall('write_note', { name: 'todo', text: 'buy milk, "fresh"' })] }, textTurn('Written.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Write my todo');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const gate = page.getByRole('region', { name: 'Approval needed' });
    await expectPage(gate).toContainText('Approve write_note?');
    await gate.getByRole('button', { name: 'Allow once' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Written.');

    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByRole('button', { name: 'Decisions (audit)' }).click();
    const decisions = page.getByRole('list', { name: 'Decisions' }).getByRole('listitem');
    await expectPage(decisions).toHaveCount(1);
    const row = decisions.first();
    await expectPage(row).toHaveAccessibleName('Gate: write_note');
    await expectPage(row.getByLabel('Answer')).toHaveText(/^Allowed once · by You at /);
    await expectPage(row.getByLabel('Policy')).toHaveText('L1 recommend · write_low → ask');
    await workbench.screenshot('audit-view');

    const downloaded = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await downloaded;
    expect(file.suggestedFilename()).toBe('Write my todo.audit.csv');
    const csv = readFileSync((await file.path()) ?? '', 'utf8');
    const [header, line] = csv.replace(/^\uFEFF/, '').split('\r\n');
    expect(header).toBe(
      'time,kind,tool,summary,risk,reason,answer,answer reason,decided by,decided at,policy,grant,turn,tool call,journal row',
    );
    expect(line).toMatch(/^\d{4}-\d\d-\d\dT[^,]+,gate,write_note,/);
    expect(line).toContain(',write_low,');
    expect(line).toContain(',allow_once,,You,');
    expect(line).toContain(',L1 recommend · write_low → ask,');
  });
});
