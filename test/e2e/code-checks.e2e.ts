import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { temporaryFolder } from '../helpers';
import { bash, needs } from '../platform';
import { useWorkbenches } from './fixture';

describe('the code map and the checks after edits, as the person sees them', () => {
  const open = useWorkbenches();

  it('shows the map given with a message, lets a language server run, and shows the problems under the card and in the status bar', async () => {
    const workbench = await open({
      builtinTools: true,
      languageServerEnvironment: { ...process.env, PATH: `${resolve('node_modules/.bin')}${delimiter}${process.env['PATH'] ?? ''}` },
    });
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-checks-');
    const workspace = folder.path;
    mkdirSync(join(workspace, 'src'), { recursive: true });
    writeFileSync(join(workspace, 'src/cart.ts'), 'export function count(items: string[]): number {\n  return items.length;\n}\n');
    writeFileSync(join(workspace, 'src/checkout.ts'), "import { count } from './cart';\nexport const total = count(['a']);\n");
    const created = await host.invoke('session:create', { title: 'Checks', workspacePath: workspace });
    if (!created.ok) throw new Error(created.error.message);
    const sessionId = (created.value as { id: string }).id;
    await host.invoke('session:setAutonomy', { sessionId, autonomy: 'L3' });
    await page.reload();

    server.enqueue(
      { steps: [toolCall('edit_file', { path: 'src/cart.ts', oldText: 'return items.length;', newText: 'return items.join();' }, 'e1')] },
      textTurn('Joined.'),
    );
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Make count join the items');
    await box.press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Joined.');

    // The map the model was given with the message, folded under it.
    const map = page.locator('details.code-map').first();
    await expectPage(map).toContainText(/Code map given to the model with this message: \d+ definitions? from \d+ files? of 2 indexed/);
    await map.locator('summary').click();
    await expectPage(map.locator('pre')).toContainText('export function count(items: string[]): number {');

    // The server waits for the person: the card says so, with the way to allow it.
    const card = page.getByRole('region', { name: 'Tool edit_file' }).last();
    const problems = card.getByRole('group', { name: 'Problems after this change' });
    await expectPage(problems).toContainText('are not checked until the person allows typescript-language-server');
    await problems.getByRole('button', { name: 'Allow typescript-language-server in this folder' }).click();
    await expect
      .poll(async () => {
        const settings = await host.invoke('settings:get', {});
        return settings.ok ? (settings.value as { diagnostics: { allowed: unknown[] } }).diagnostics.allowed : [];
      })
      .toEqual([{ workspacePath: workspace, language: 'typescript' }]);

    server.enqueue(
      {
        steps: [toolCall('edit_file', { path: 'src/cart.ts', oldText: 'return items.join();', newText: 'return items.join(", ");' }, 'e2')],
      },
      textTurn('Still a string, I see.'),
    );
    await box.fill('Use a comma and a space');
    await box.press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Still a string, I see.');
    const checked = page.getByRole('region', { name: 'Tool edit_file' }).last().getByRole('group', { name: 'Problems after this change' });
    await expectPage(checked).toContainText('1 error, 0 warnings in src/cart.ts');
    await expectPage(checked.getByRole('list', { name: 'Problems' })).toContainText(
      "src/cart.ts:2:3 error Type 'string' is not assignable to type 'number'.",
    );
    await expectPage(page.getByRole('status', { name: 'Problems' })).toHaveText('✖ 1 · ⚠ 0');
    expect(readFileSync(join(workspace, 'src/cart.ts'), 'utf8')).toContain('items.join(", ")');
    await workbench.screenshot('problems-under-card');

    // Settings lists the server allowed in this folder, and takes it back.
    await page.getByRole('button', { name: 'Settings' }).click();
    const section = page.locator('#settings-section-checks');
    await expectPage(section.getByRole('list', { name: 'Servers you allowed' })).toContainText(
      `typescript-language-server in ${workspace}`,
    );
    await section.getByRole('button', { name: `Take back typescript-language-server in ${workspace}` }).click();
    await expectPage(section.getByRole('list', { name: 'Servers you allowed' })).toHaveCount(0);
    folder.remove();
  });

  it('lets the person change a write at its gate before allowing it, and says on the card that their version ran', async () => {
    const workbench = await open({ builtinTools: true });
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-gate-edit-');
    const created = await host.invoke('session:create', { title: 'Gate edit', workspacePath: folder.path });
    if (!created.ok) throw new Error(created.error.message);
    await page.reload();
    server.enqueue(
      { steps: [toolCall('write_file', { path: 'notes.md', content: '# Notes\nTODO\n' }, 'w1')] },
      textTurn('Wrote your notes.'),
    );
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Start my notes');
    await box.press('Enter');
    const gate = page.getByRole('region', { name: 'Approval needed' });
    await gate.getByRole('button', { name: 'Edit before approving…' }).click();
    const mine = gate.getByRole('textbox', { name: 'Your version' });
    await expectPage(mine).toHaveValue('# Notes\nTODO\n');
    await mine.fill('# Notes\nBuy milk.\n');
    await expectPage(gate).toContainText('Your version runs when you allow the call.');
    await workbench.screenshot('gate-edit');
    await gate.getByRole('button', { name: 'Allow once' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Wrote your notes.');
    expect(readFileSync(join(folder.path, 'notes.md'), 'utf8')).toBe('# Notes\nBuy milk.\n');
    const card = page.getByRole('region', { name: 'Tool write_file' }).last();
    await expectPage(card).toContainText('You changed this before allowing it: your version ran');
    const told = (server.requests.at(-1)?.body['messages'] as Array<{ role: string; content: string }>).findLast(
      (message) => message.role === 'tool',
    );
    expect(told?.content).toContain('<person_version>\n# Notes\nBuy milk.\n\n</person_version>');
    folder.remove();
  });

  it(
    'sets the folder’s check from what the project suggests, runs it after a turn, and hands a failure to the agent',
    needs(bash),
    async () => {
      const workbench = await open({ builtinTools: true });
      const { page, server, host } = workbench;
      await workbench.configureScriptedModel();
      const folder = temporaryFolder('workbench-check-');
      writeFileSync(join(folder.path, 'package.json'), JSON.stringify({ scripts: { test: 'node --test' } }));
      const created = await host.invoke('session:create', { title: 'Check', workspacePath: folder.path });
      if (!created.ok) throw new Error(created.error.message);
      await host.invoke('session:setAutonomy', { sessionId: (created.value as { id: string }).id, autonomy: 'L3' });
      await page.reload();

      await page.getByRole('button', { name: 'Set a check…' }).click();
      const form = page.getByRole('dialog', { name: 'Check of this folder' });
      await expectPage(form.getByRole('list', { name: 'Suggested checks' })).toContainText('npm test from package.json script "test"');
      await form.getByRole('textbox', { name: 'Check command' }).fill('test -f done.txt');
      await form.getByRole('button', { name: 'Save check' }).click();
      await expectPage(page.getByRole('button', { name: 'Check: test -f done.txt' })).toBeVisible();

      server.enqueue({ steps: [toolCall('write_file', { path: 'notes.txt', content: 'notes\n' }, 'w1')] }, textTurn('Wrote the notes.'));
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill('Write notes');
      await box.press('Enter');
      const failed = page.getByRole('group', { name: 'Check after the turn' }).last();
      await expectPage(failed).toContainText('Check test -f done.txt failed (exit 1)');
      await workbench.screenshot('check-after-turn');

      server.enqueue({ steps: [toolCall('write_file', { path: 'done.txt', content: 'done\n' }, 'w2')] }, textTurn('Fixed.'));
      await failed.locator('summary').click();
      await failed.getByRole('button', { name: 'Ask the agent to fix this' }).click();
      await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Fixed.');
      await expectPage(page.getByRole('group', { name: 'Check after the turn' }).last()).toContainText('Check test -f done.txt passed');
      const asked = (server.requests.at(-2)?.body['messages'] as Array<{ role: string; content: string }>).findLast(
        (message) => message.role === 'user',
      );
      expect(asked?.content).toMatch(/^The check `test -f done\.txt` failed after your changes \(exit 1\)/);
      folder.remove();
    },
  );
});
