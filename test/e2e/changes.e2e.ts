import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { builtinTools } from '../../src/main/tools/builtin-tools';
import { BashParser } from '../../src/main/shell/bash-parser';
import { toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { temporaryFolder } from '../helpers';
import { bash, needs } from '../platform';
import { useWorkbenches } from './fixture';

const shell = await BashParser.load();

const original = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`).join('\n') + '\n';
const withTop = original.replace('line 2\n', 'line 2 by the agent\n');
const withBoth = withTop.replace('line 19\n', 'line 19 by the agent\n');

describe('reviewing the changes the agent made', () => {
  const open = useWorkbenches();

  it(
    'opens a turn’s changes from its answer, shows each diff, reverts one part and a made file, and undoes a revert',
    needs(bash),
    async () => {
      const workbench = await open({
        tools: builtinTools({ shell, dataDir: join('/tmp', 'unused-trash'), newId: () => `t${Date.now()}`, now: () => Date.now() }),
      });
      const { page, server, host } = workbench;
      await workbench.configureScriptedModel();
      const folder = temporaryFolder('workbench-changes-');
      const workspace = folder.path;
      const file = (path: string): string | null =>
        existsSync(join(workspace, path)) ? readFileSync(join(workspace, path), 'utf8') : null;
      writeFileSync(join(workspace, 'lines.txt'), original);
      const created = await host.invoke('session:create', { title: 'Changes', workspacePath: workspace });
      if (!created.ok) throw new Error(created.error.message);
      await host.invoke('session:setAutonomy', { sessionId: (created.value as { id: string }).id, autonomy: 'L3' });
      await page.reload();
      await page
        .getByRole('button', { name: /^Changes/ })
        .first()
        .click();

      server.enqueue(
        { steps: [toolCall('edit_file', { path: 'lines.txt', oldText: 'line 2\n', newText: 'line 2 by the agent\n' }, 'e1')] },
        { steps: [toolCall('edit_file', { path: 'lines.txt', oldText: 'line 19\n', newText: 'line 19 by the agent\n' }, 'e2')] },
        { steps: [toolCall('run_command', { command: 'mkdir -p out && printf "a\\nb\\n" > out/made.txt' }, 'r1')] },
        textTurn('Edited and made a file.'),
      );
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill('Edit lines and make a file');
      await box.press('Enter');
      await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Edited and made a file.');

      await page.getByRole('group', { name: 'Turn summary' }).getByRole('button', { name: '3 paths changed' }).click();
      const changes = page.getByRole('region', { name: 'File changes' });
      await expectPage(changes.getByRole('combobox', { name: 'Changes of' })).toHaveValue(/.+/);
      const rows = changes.getByRole('list', { name: 'Changed paths' }).getByRole('listitem');
      await expectPage(rows).toHaveCount(3);
      await expectPage(rows.nth(0)).toContainText('lines.txt');
      await expectPage(rows.nth(0)).toContainText('+2 −2');
      await expectPage(rows.nth(1)).toContainText('out/');
      await expectPage(rows.nth(2)).toContainText('out/made.txt');
      await expectPage(rows.nth(2)).toContainText('+2 −0');

      await rows.nth(0).getByRole('button', { name: 'changed lines.txt' }).click();
      await expectPage(changes.getByLabel('Part 2 of lines.txt')).toContainText('+line 19 by the agent');
      await workbench.screenshotAtSizes('changes');
      // Long lines read whole in a wider view, side by side.
      await rows.nth(0).getByRole('button', { name: 'Wider view, side by side' }).click();
      const wide = page.getByRole('dialog', { name: 'Changes in lines.txt' });
      await expectPage(wide.getByRole('table', { name: 'Part 2 of lines.txt, side by side' })).toContainText('line 19 by the agent');
      await expectPage(wide.getByRole('table', { name: 'Part 2 of lines.txt, side by side' }).getByRole('row').nth(1)).toBeVisible();
      await workbench.screenshot('changes-side-by-side');
      await page.keyboard.press('Escape');
      await expectPage(wide).toHaveCount(0);

      await rows.nth(0).getByRole('button', { name: 'Revert this part' }).nth(1).click();
      await expectPage(changes.getByRole('status')).toContainText('Reverted part 2 of lines.txt.');
      expect(file('lines.txt')).toBe(withTop);
      // A turn's view keeps showing what the turn did: the part taken back is marked so, without its diff or a revert,
      // and the file is not called changed by someone else.
      await expectPage(rows.nth(0)).toContainText('partly reverted');
      await expectPage(rows.nth(0)).not.toContainText('changed since');
      await expectPage(changes.getByLabel('Part 2 of lines.txt')).toHaveCount(0);
      await expectPage(rows.nth(0).locator('.change-hunk.reverted')).toContainText('reverted');
      await expectPage(rows.nth(0).getByRole('button', { name: 'Revert this part' })).toHaveCount(0);
      // One way back, not two: the panel's Undo, and no banner over the conversation.
      await expectPage(page.getByRole('button', { name: /^Undo/ })).toHaveCount(1);
      await expectPage(page.getByRole('status', { name: 'Files restored' })).toHaveCount(0);

      await changes.getByRole('status').getByRole('button', { name: 'Undo' }).click();
      await expectPage(changes.getByRole('status')).toContainText('The revert was undone.');
      expect(file('lines.txt')).toBe(withBoth);
      await expectPage(rows.nth(0)).not.toContainText('reverted');
      await expectPage(rows.nth(0)).not.toContainText('changed since');
      await expectPage(page.getByRole('status', { name: 'Files restored' })).toHaveCount(0);

      await changes.getByRole('button', { name: 'Revert out/made.txt' }).click();
      await expectPage(changes.getByRole('status')).toContainText('Reverted out/made.txt.');
      expect(file('out/made.txt')).toBeNull();
      await expectPage(rows.nth(2)).toContainText('reverted');
      await expectPage(rows.nth(2)).not.toContainText('changed since');
      await expectPage(changes.getByRole('button', { name: 'Revert out/made.txt' })).toHaveCount(0);

      // The whole session compares with the files now: the reverted file is no longer a change.
      await changes.getByRole('combobox', { name: 'Changes of' }).selectOption({ label: 'The whole session' });
      await expectPage(rows).toHaveCount(2);
      await expectPage(changes).toContainText('2 paths · +2 −2');
      folder.remove();
    },
  );

  it('says what the Changes tab is for before the agent changed any file', async () => {
    const workbench = await open();
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue(textTurn('Only words.'));
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Hello');
    await box.press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Only words.');
    await expectPage(page.getByRole('group', { name: 'Turn summary' })).toBeVisible();
    await expectPage(page.getByRole('button', { name: /paths? changed/ })).toHaveCount(0);
    await page.getByRole('tab', { name: 'Changes' }).click();
    await expectPage(page.getByRole('region', { name: 'File changes' })).toContainText(
      'Files the agent creates, changes or deletes show here',
    );
  });
});
