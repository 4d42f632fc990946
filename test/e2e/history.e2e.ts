import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it, onTestFinished } from 'vitest';
import { builtinTools } from '../../src/main/tools/builtin-tools';
import { startLife } from '../crash/life';
import { toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { temporaryFolder } from '../helpers';
import { bash, needs } from '../platform';
import { useWorkbenches, type Workbench } from './fixture';
import { BashParser } from '../../src/main/shell/bash-parser';

const shell = await BashParser.load();

async function send(workbench: Workbench, text: string): Promise<void> {
  const box = workbench.page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

describe('versions, checkpoints and recovery in the workbench', () => {
  const open = useWorkbenches();

  it('edits a sent message into a second version, switches between them, and retries an answer', async () => {
    const workbench = await open();
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue(textTurn('A1'), textTurn('A2'), textTurn('A1 edited'), textTurn('A1 edited, again'));
    const answers = page.getByRole('article', { name: 'Answer' });
    await send(workbench, 'Q1');
    await expectPage(answers.last()).toHaveText(/A1/);
    await send(workbench, 'Q2');
    await expectPage(answers.last()).toHaveText(/A2/);

    await page.getByRole('button', { name: 'Edit', exact: true }).first().click();
    const editor = page.getByRole('form', { name: 'Edit your message' });
    await editor.getByRole('textbox', { name: 'Edited message' }).fill('Q1 edited');
    await editor.getByRole('button', { name: 'Save and run' }).click();
    await expectPage(answers.last()).toHaveText(/A1 edited/);
    await expectPage(page.getByRole('article', { name: 'Your message' })).toHaveCount(1);
    const versions = page.getByRole('navigation', { name: 'Versions of this message' });
    await expectPage(versions).toContainText('2 / 2');
    await workbench.screenshot('versions-edited');

    await versions.getByRole('button', { name: 'Previous version' }).click();
    await expectPage(versions).toContainText('1 / 2');
    await expectPage(page.getByRole('article', { name: 'Your message' })).toHaveText(['Q1', 'Q2']);
    await expectPage(answers).toHaveCount(2);
    await versions.getByRole('button', { name: 'Next version' }).click();
    await expectPage(page.getByRole('article', { name: 'Your message' })).toHaveText(['Q1 edited']);

    await page.getByRole('button', { name: 'Retry' }).last().click();
    await expectPage(answers.last()).toHaveText(/A1 edited, again/);
    await expectPage(page.getByRole('navigation', { name: 'Versions of this message' }).last()).toContainText('2 / 2');
    // The versions say what made them.
    await page.getByRole('button', { name: 'History' }).first().click();
    const tree = page.getByRole('list', { name: 'Versions of this session' });
    await expectPage(tree).toContainText('First version');
    await expectPage(tree).toContainText('Edited message');
    await expectPage(tree).toContainText('Retried answer');
    await expectPage(tree).not.toContainText('(');
  });

  it.each(['native', 'text'] as const)(
    'restores a checkpoint’s files and conversation from the history, with a preview, and undoes it (%s tool calls)',
    async (mode) => {
      const workbench = await open(
        { tools: builtinTools({ shell, dataDir: join('/tmp', 'unused-trash'), newId: () => `t${Date.now()}`, now: () => Date.now() }) },
        { textOnly: mode === 'text' },
      );
      const { page, server, host } = workbench;
      await workbench.configureScriptedModel();
      const folder = temporaryFolder('workbench-project-');
      const workspace = folder.path;
      writeFileSync(join(workspace, 'app.ts'), 'v1\n');
      const created = await host.invoke('session:create', { title: 'Files', workspacePath: workspace });
      if (!created.ok) throw new Error(created.error.message);
      await host.invoke('session:setAutonomy', { sessionId: (created.value as { id: string }).id, autonomy: 'L3' });
      await page.reload();
      await page.getByRole('button', { name: /^Files/ }).click();

      server.enqueue({ steps: [toolCall('write_file', { path: 'app.ts', content: 'v2\n' }, 'w1')] }, textTurn('Rewrote app.ts.'));
      await send(workbench, 'Rewrite app.ts');
      await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Rewrote app.ts.');
      expect(readFileSync(join(workspace, 'app.ts'), 'utf8')).toBe('v2\n');

      await page.getByRole('button', { name: 'History' }).click();
      const history = page.getByRole('region', { name: 'History' });
      const steps = history.getByRole('list', { name: 'Checkpoints' });
      await expectPage(steps).toContainText('1 file changed');
      // Each row says what happened there.
      await expectPage(steps.getByRole('listitem', { name: 'Step 1' })).toContainText('You: “Rewrite app.ts”');
      await expectPage(steps.getByRole('listitem', { name: 'Step 3' })).toContainText('write_file app.ts');
      await history.getByRole('button', { name: 'Restore step 1' }).click();
      const dialog = page.getByRole('dialog', { name: 'Restore step 1' });
      await expectPage(dialog.getByLabel('Files that will change')).toContainText('app.ts changed back');
      await workbench.screenshotAtSizes(`restore-preview-${mode}`);
      await dialog.getByRole('button', { name: 'Restore' }).click();
      const bar = page.getByRole('status', { name: 'Files restored' });
      await expectPage(bar).toContainText('1 written');
      expect(readFileSync(join(workspace, 'app.ts'), 'utf8')).toBe('v1\n');
      // The conversation is back at step 1: the message, no answer yet.
      await expectPage(page.getByRole('article', { name: 'Answer' })).toHaveCount(0);
      await expectPage(history.getByRole('list', { name: 'Versions of this session' })).toContainText('Restored to an earlier step');

      await bar.getByRole('button', { name: 'Undo restore' }).click();
      await expectPage(page.getByRole('status', { name: 'Files restored' })).toContainText('Restore undone');
      expect(readFileSync(join(workspace, 'app.ts'), 'utf8')).toBe('v2\n');
      // One undo brings both back: the conversation is again the one that wrote the file, and the empty restored
      // version is not kept.
      await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Rewrote app.ts.');
      await expectPage(history.getByText('Restored to an earlier step')).toHaveCount(0);
      // The bar was news once: showing the history again does not bring it back.
      await page.getByRole('status', { name: 'Files restored' }).getByRole('button', { name: 'Dismiss' }).click();
      await page.reload();
      await page.getByRole('button', { name: /^Files/ }).click();
      await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Rewrote app.ts.');
      await expectPage(page.getByRole('status', { name: 'Files restored' })).toHaveCount(0);

      // The same restore from the message itself: the history opens it under its step.
      await page.getByRole('button', { name: 'Hide details' }).last().click();
      await page.getByRole('button', { name: 'Restore to here' }).first().click();
      await expectPage(page.getByRole('dialog', { name: 'Restore step 1' })).toBeVisible();
      await expectPage(page.getByRole('listitem', { name: 'Step 1' }).getByRole('dialog')).toBeVisible();
      folder.remove();
    },
  );

  it('editing an earlier message offers to put the files back as they were before it, and does', async () => {
    const workbench = await open({
      tools: builtinTools({ shell, dataDir: join('/tmp', 'unused-trash'), newId: () => `t${Date.now()}`, now: () => Date.now() }),
    });
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-edit-files-');
    const workspace = folder.path;
    writeFileSync(join(workspace, 'app.ts'), 'v1\n');
    const created = await host.invoke('session:create', { title: 'Files back', workspacePath: workspace });
    if (!created.ok) throw new Error(created.error.message);
    await host.invoke('session:setAutonomy', { sessionId: (created.value as { id: string }).id, autonomy: 'L3' });
    await page.reload();
    await page.getByRole('button', { name: /^Files back/ }).click();
    server.enqueue({ steps: [toolCall('write_file', { path: 'app.ts', content: 'v2\n' }, 'w1')] }, textTurn('Rewrote app.ts.'));
    await send(workbench, 'Rewrite app.ts');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Rewrote app.ts.');
    server.enqueue(textTurn('Nothing to change.'));
    await send(workbench, 'Anything else?');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Nothing to change.');
    expect(readFileSync(join(workspace, 'app.ts'), 'utf8')).toBe('v2\n');

    // The last message changed no file: editing it offers nothing about files.
    await page.getByRole('button', { name: 'Edit', exact: true }).last().click();
    const editor = page.getByRole('form', { name: 'Edit your message' });
    await expectPage(editor.getByRole('checkbox')).toHaveCount(0);
    await editor.getByRole('button', { name: 'Cancel' }).click();

    // The first one's turn wrote app.ts: editing it offers the files back too.
    await page.getByRole('button', { name: 'Edit', exact: true }).first().click();
    await editor.getByRole('textbox', { name: 'Edited message' }).fill('Leave app.ts alone and say hello');
    const back = editor.getByRole('checkbox', { name: /put the files back as they were before this message/ });
    await expectPage(back).not.toBeChecked();
    await back.check();
    server.enqueue(textTurn('Hello, app.ts is as it was.'));
    await editor.getByRole('button', { name: 'Save and run' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Hello, app.ts is as it was.');
    expect(readFileSync(join(workspace, 'app.ts'), 'utf8')).toBe('v1\n');
    await expectPage(page.getByRole('article', { name: 'Your message' })).toHaveText(['Leave app.ts alone and say hello']);

    // One undo takes both back: the files as they were before the edit, and the version before it shown again.
    const bar = page.getByRole('status', { name: 'Files restored' });
    await expectPage(bar).toContainText('Files put back as they were before your message: 1 written');
    await bar.getByRole('button', { name: 'Undo restore' }).click();
    await expectPage(page.getByRole('article', { name: 'Your message' })).toHaveText(['Rewrite app.ts', 'Anything else?']);
    expect(readFileSync(join(workspace, 'app.ts'), 'utf8')).toBe('v2\n');
    await expectPage(bar).toContainText('Restore undone');
    // The edited version is kept, one switch away.
    await expectPage(page.getByRole('navigation', { name: 'Versions of this message' })).toContainText('1 / 2');
    folder.remove();
  });

  it('the Files tree drops a folder that a restore removed, and shows it again when the restore is undone', async () => {
    const workbench = await open({
      tools: builtinTools({ shell, dataDir: join('/tmp', 'unused-trash'), newId: () => `t${Date.now()}`, now: () => Date.now() }),
    });
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-project-');
    onTestFinished(folder.remove);
    writeFileSync(join(folder.path, 'app.ts'), 'v1\n');
    const created = await workbench.host.invoke('session:create', { title: 'Folders', workspacePath: folder.path });
    if (!created.ok) throw new Error(created.error.message);
    await workbench.host.invoke('session:setAutonomy', { sessionId: (created.value as { id: string }).id, autonomy: 'L3' });
    await page.reload();
    await page.getByRole('button', { name: /^Folders/ }).click();
    const tree = page.getByRole('tree', { name: 'Workspace files' });
    await expectPage(tree.getByRole('button', { name: 'app.ts' })).toBeVisible();

    server.enqueue({ steps: [toolCall('write_file', { path: 'lib/util.ts', content: 'export {};\n' }, 'w1')] }, textTurn('Added lib.'));
    await send(workbench, 'Add a lib folder');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Added lib.');
    await expectPage(tree.getByRole('button', { name: /lib/ })).toBeVisible();

    await page.getByRole('button', { name: 'History' }).click();
    const history = page.getByRole('region', { name: 'History' });
    await history.getByRole('button', { name: 'Restore step 1' }).click();
    await page.getByRole('dialog', { name: 'Restore step 1' }).getByRole('button', { name: 'Restore' }).click();
    const bar = page.getByRole('status', { name: 'Files restored' });
    await expectPage(bar).toBeVisible();
    expect(existsSync(join(folder.path, 'lib', 'util.ts'))).toBe(false);
    await expectPage(tree.getByRole('button', { name: /lib/ })).toHaveCount(0);
    await expectPage(tree.getByRole('button', { name: 'app.ts' })).toBeVisible();

    await bar.getByRole('button', { name: 'Undo restore' }).click();
    await expectPage(page.getByRole('status', { name: 'Files restored' })).toContainText('Restore undone');
    await expectPage(tree.getByRole('button', { name: /lib/ })).toBeVisible();
  });

  it('after a crash, shows what was running and resumes from the last checkpoint', needs(bash), async () => {
    const workbench = await open();
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    const workspace = join(workbench.dataDir, 'work');
    mkdirSync(workspace);
    server.enqueue(
      { steps: [{ kind: 'text', text: 'Running the long check.' }, toolCall('run_command', { command: 'echo started; sleep 30' }, 'c1')] },
      textTurn('The check was cut off; the rest is done.'),
    );
    await workbench.restartAfter(async () => {
      // Another life of the app runs the turn and is killed with SIGKILL while the command runs.
      // Killed once the command's first output is journalled, so the banner has it to show. The life's database is plain,
      // as the test host that opens it next has no key.
      const life = startLife(
        workbench.dataDir,
        server.openaiBaseUrl,
        workspace,
        (line, self) => {
          if (line.startsWith('phase output')) self.kill();
        },
        false,
        false,
        { CRASH_PLAIN: '1' },
      );
      await life.exited;
    });
    await page.getByRole('button', { name: /^task / }).click();
    const banner = page.getByRole('region', { name: 'Interrupted turn' });
    await expectPage(banner).toContainText('run_command');
    await expectPage(banner.getByLabel('Output so far')).toContainText('started');
    await workbench.screenshot('interrupted-turn');
    await banner.getByRole('button', { name: 'Resume' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('The check was cut off; the rest is done.');
    await expectPage(banner).toHaveCount(0);
  });
});
