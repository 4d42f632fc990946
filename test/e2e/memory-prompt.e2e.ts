import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { temporaryFolder } from '../helpers';
import { useWorkbenches } from './fixture';

describe('memory and what the model saw', () => {
  const open = useWorkbenches();

  it('remembers a fact at the gate in one session, uses it in the next, and shows the prompt the model saw', async () => {
    const workbench = await open();
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-memory-');
    writeFileSync(join(folder.path, 'AGENTS.md'), 'Write commit messages in the imperative mood.');
    const create = async (title: string): Promise<void> => {
      const created = await host.invoke('session:create', { title, workspacePath: folder.path });
      if (!created.ok) throw new Error(created.error.message);
      await page.reload();
      await page.getByRole('button', { name: title }).first().click();
    };
    const send = async (text: string): Promise<void> => {
      await page.getByRole('textbox', { name: 'Message' }).fill(text);
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    };
    const answer = page.getByRole('article', { name: 'Answer' }).last();

    // First session: the agent asks to remember; at L1 a low-risk write waits at the gate like any other.
    await create('First');
    server.enqueue(
      { steps: [toolCall('remember', { fact: 'The staging server is called bramble and deploys from the release branch.' }, 'm1')] },
      textTurn('Noted for next time.'),
    );
    await send('Remember that staging is bramble, deployed from the release branch.');
    const gate = page.getByRole('region', { name: 'Approval needed' });
    await expectPage(gate).toContainText('remember: The staging server is called bramble');
    await gate.getByRole('button', { name: 'Allow once' }).click();
    await expectPage(answer).toHaveText('Noted for next time.');

    await page.getByRole('tab', { name: 'Memory' }).click();
    const memories = page.getByRole('list', { name: 'Memories' }).getByRole('listitem');
    await expectPage(memories).toHaveCount(1);
    await expectPage(memories.first()).toContainText('The staging server is called bramble');
    await expectPage(memories.first()).toContainText('Saved by the agent');
    await expectPage(memories.first()).toContainText('This workspace');

    // Second session: a related request gets the memory; an unrelated one does not.
    await create('Second');
    server.reset();
    server.enqueue(textTurn('Deploy from the release branch to bramble.'), textTurn('Here is a limerick.'));
    await send('How do I deploy to staging?');
    await expectPage(answer).toHaveText('Deploy from the release branch to bramble.');
    await send('Write me a limerick about owls.');
    await expectPage(answer).toHaveText('Here is a limerick.');
    const system = (index: number): string =>
      ((server.requests[index]?.body['messages'] as Array<{ role: string; content: string }> | undefined) ?? []).find(
        (message) => message.role === 'system',
      )?.content ?? '';
    const asked = (index: number): string =>
      ((server.requests[index]?.body['messages'] as Array<{ role: string; content: string }> | undefined) ?? []).findLast(
        (message) => message.role === 'user',
      )?.content ?? '';
    // The memory goes with the message it bears on; the system prompt, the same for both requests, has the instructions.
    expect(asked(0)).toContain('The staging server is called bramble');
    expect(asked(1)).not.toContain('bramble');
    expect(system(0)).toContain('Write commit messages in the imperative mood.');
    expect(system(1)).toBe(system(0));
    // The message shows the memory it was given with.
    await expectPage(page.getByText('1 memory given to the model with this message')).toBeVisible();
    await page.getByText('1 memory given to the model with this message').click();
    await expectPage(page.locator('.recalled-memories')).toContainText('The staging server is called bramble');

    await page.getByRole('article', { name: 'Answer' }).first().waitFor();
    await page.getByRole('button', { name: 'What the model saw' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'What the model saw' });
    await expectPage(dialog).toContainText('Environment');
    await expectPage(dialog).toContainText('AGENTS.md');
    // What the model saw of the system prompt has no memory part: memories go with the messages.
    await expectPage(dialog.locator('details[data-kind="memory"]')).toHaveCount(0);
    await workbench.screenshotAtSizes('prompt-view');
    await dialog.getByRole('button', { name: 'Close the prompt' }).click();

    // The person adds, edits and deletes memories in the panel.
    const panel = page.getByRole('tabpanel');
    await panel.getByRole('textbox', { name: 'New memory' }).fill('   ');
    await expectPage(panel.getByRole('button', { name: 'Remember' })).toBeDisabled();
    await panel.getByRole('textbox', { name: 'New memory' }).fill('The person reviews every migration by hand.');
    await panel.getByRole('combobox', { name: 'Memory scope' }).selectOption('global');
    await panel.getByRole('button', { name: 'Remember' }).click();
    await expectPage(memories).toHaveCount(2);
    await expectPage(memories.first()).toContainText('Every workspace');
    await expectPage(memories.first()).toContainText('Added by you');
    await memories.first().getByRole('button', { name: 'Edit' }).click();
    await memories.first().getByRole('textbox', { name: 'Memory text' }).fill('');
    await memories.first().getByRole('button', { name: 'Save' }).click();
    await expectPage(panel.getByRole('alert')).toContainText('A memory cannot be empty.');
    await memories.first().getByRole('textbox', { name: 'Memory text' }).fill('The person reviews every database migration by hand.');
    await memories.first().getByRole('button', { name: 'Save' }).click();
    await expectPage(memories.first()).toContainText('every database migration');
    await panel.getByRole('searchbox', { name: 'Search memories' }).fill('staging');
    await expectPage(memories).toHaveCount(1);
    await panel.getByRole('searchbox', { name: 'Search memories' }).fill('');
    await workbench.screenshotAtSizes('memory-panel');
    await memories
      .first()
      .getByRole('button', { name: /^Delete memory/ })
      .click();
    await memories.first().getByRole('button', { name: 'Delete it' }).click();
    await expectPage(memories).toHaveCount(1);
    await expectPage(memories.first()).toContainText('bramble');
    folder.remove();
  });
});
