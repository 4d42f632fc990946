import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import { builtinTools } from '../../src/main/tools/builtin-tools';
import { BashParser } from '../../src/main/shell/bash-parser';
import { temporaryFolder } from '../helpers';
import { toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

const shell = await BashParser.load();

/* Grants by pattern: "allow writes under src/ for 30 minutes", chosen at the gate, as well as the exact call. */
describe('a grant for a folder', () => {
  const open = useWorkbenches();
  const folders: Array<{ remove: () => void }> = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) folder.remove();
  });

  it('is chosen at the gate, covers writes anywhere in that folder, and a write elsewhere still asks', async () => {
    const workspace = temporaryFolder('workbench-folder-grant-');
    folders.push(workspace);
    const workbench = await open({
      tools: builtinTools({ shell, dataDir: join('/tmp', 'unused-trash'), newId: () => `t${Date.now()}`, now: () => Date.now() }),
      folderPicker: { pickFolder: async () => workspace.path },
    });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    await page.getByRole('button', { name: 'Choose folder…' }).click();
    server.enqueue(
      { steps: [toolCall('write_file', { path: 'src/ui/button.ts', content: 'export const button = 1;\n' }, 'w1')] },
      { steps: [toolCall('write_file', { path: 'src/model/total.ts', content: 'export const total = 2;\n' }, 'w2')] },
      { steps: [toolCall('write_file', { path: 'docs/notes.md', content: '# Notes\n' }, 'w3')] },
      textTurn('Wrote what I could.'),
    );
    await page.getByRole('textbox', { name: 'Message' }).fill('Write the three files');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const gate = page.getByRole('region', { name: 'Approval needed' });
    const covers = gate.getByRole('combobox', { name: 'What the grant covers' });
    await expectPage(covers.getByRole('option')).toHaveText([
      'This call (src/ui/button.ts (25 characters))',
      'write_file in src/ui/',
      'write_file in src/',
      'write_file anywhere in the workspace',
    ]);
    await covers.selectOption({ label: 'write_file in src/' });
    await workbench.screenshot('folder-grant-gate');
    await gate.getByRole('group', { name: 'Allow for' }).getByRole('button', { name: '30 min' }).click();

    // The second write is in src/: it runs on the grant. The third is not: it asks.
    await expectPage(gate).toContainText('docs/notes.md');
    expect(existsSync(join(workspace.path, 'src/model/total.ts'))).toBe(true);
    const grant = page.getByRole('list', { name: 'Trust grants' }).getByRole('listitem');
    await expectPage(grant).toContainText('write_file in src/');
    await gate.getByRole('button', { name: 'Deny' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Wrote what I could.');
    expect(existsSync(join(workspace.path, 'docs/notes.md'))).toBe(false);
  });
});
