import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import { BashParser } from '../../src/main/shell/bash-parser';
import { builtinTools } from '../../src/main/tools/builtin-tools';
import { toolCall } from '../main/agent/harness';
import { temporaryFolder } from '../helpers';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

const shell = await BashParser.load();

describe('budgets in the workbench', () => {
  const open = useWorkbenches();
  const folders: Array<ReturnType<typeof temporaryFolder>> = [];
  afterEach(() => folders.splice(0).forEach((folder) => folder.remove()));

  it('a budget of 2 model calls pauses a model that keeps calling tools at a gate, and Continue with +10 (Alt+C) lets it finish', async () => {
    const workbench = await open({
      tools: builtinTools({ shell, dataDir: join('/tmp', 'unused-trash'), newId: () => `t${Date.now()}`, now: () => Date.now() }),
    });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-budgets-');
    folders.push(folder);
    writeFileSync(join(folder.path, 'notes.md'), '# Notes\n\nBuy milk.\n');
    const created = await workbench.host.invoke('session:create', { title: 'Budgets', workspacePath: folder.path });
    if (!created.ok) throw new Error(created.error.message);

    await page.getByRole('button', { name: 'Settings' }).click();
    const modelCalls = page.getByLabel('Model calls per turn budget');
    await expectPage(modelCalls).toHaveValue('25');
    // 0 is refused with a message saying why, and the budget keeps what it had.
    await modelCalls.fill('0');
    await expectPage(page.getByRole('alert', { name: 'Budget refused' })).toContainText('The model-call budget cannot be 0');
    await expectPage(modelCalls).toHaveValue('25');
    await modelCalls.fill('2');
    await expectPage(page.getByRole('alert', { name: 'Budget refused' })).toHaveCount(0);
    const saved = await workbench.host.invoke('settings:get', {});
    expect(saved.ok && (saved.value as { maxIterations: number }).maxIterations).toBe(2);
    await page.getByRole('button', { name: 'Close settings' }).click();
    await page.reload();

    server.enqueue(
      { steps: [{ kind: 'text', text: 'Reading.' }, toolCall('read_file', { path: 'notes.md' }, 'r1')] },
      { steps: [toolCall('read_file', { path: 'notes.md' }, 'r2')] },
      { steps: [toolCall('read_file', { path: 'notes.md' }, 'r3')] },
      textTurn('Your notes say to buy milk.'),
    );
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('What is in my notes?');
    await box.press('Enter');

    const gate = page.getByRole('region', { name: 'Budget reached' });
    await expectPage(gate).toContainText('Budget reached: model calls in this turn');
    await expectPage(gate.getByLabel('Budget figures')).toHaveText('2 of 2 used.');
    await expectPage(gate.getByRole('button', { name: 'Continue with +10' })).toBeVisible();
    await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('waiting for you');
    expect(server.requests).toHaveLength(2);
    await workbench.screenshotAtSizes('budget-gate');

    // Its shortcut answers it: Continue with +10.
    await page.keyboard.press('Alt+c');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Your notes say to buy milk.');
    await expectPage(gate).toHaveCount(0);
    // Continue counted from the figure reached: no second gate at the very next request.
    expect(server.requests).toHaveLength(4);
  });
});
