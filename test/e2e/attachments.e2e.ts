import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { textTurn } from '../scripted-model-server';
import { tinyPng } from '../tiny-png';
import type { ScriptedModelServerOptions } from '../scripted-model-server';
import { useWorkbenches, type Workbench } from './fixture';

/* Pointing at files: `@` lists the workspace's files, a completed path, a dragged, chosen or pasted file is attached and reaches the model, a bad one is said inline. */
describe('attaching files to a message', () => {
  const open = useWorkbenches();
  const folders: Array<{ remove: () => void }> = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) folder.remove();
  });

  async function start(serverOptions: ScriptedModelServerOptions = {}): Promise<Workbench> {
    const workspace = temporaryFolder('workbench-attach-e2e-');
    folders.push(workspace);
    mkdirSync(join(workspace.path, 'src'));
    mkdirSync(join(workspace.path, 'build'));
    writeFileSync(
      join(workspace.path, 'src', 'app.ts'),
      Array.from({ length: 30 }, (_, index) => `export const line${index + 1} = ${index + 1};`).join('\n'),
    );
    writeFileSync(join(workspace.path, 'notes.md'), '# Notes\n\nThe owls are not what they seem.\n');
    writeFileSync(join(workspace.path, '.gitignore'), 'build/\n');
    writeFileSync(join(workspace.path, 'build', 'app.js'), 'built');
    const workbench = await open({ folderPicker: { pickFolder: async () => workspace.path } }, serverOptions);
    await workbench.configureScriptedModel();
    await workbench.page.getByRole('button', { name: '+ New session' }).first().click();
    await workbench.page.getByRole('button', { name: 'Choose folder…' }).click();
    await expectPage(workbench.page.getByRole('tree', { name: 'Workspace files' })).toBeVisible();
    return workbench;
  }

  /** The last user message the model was sent. */
  const sentToModel = (workbench: Workbench): string => {
    const messages = (workbench.server.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> }).messages;
    return messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
  };

  it('lists the workspace files that match what follows @, leaving ignored ones out', async () => {
    const workbench = await start();
    const message = workbench.page.getByRole('textbox', { name: 'Message' });
    await message.fill('Explain @app');
    const files = workbench.page.getByRole('listbox', { name: 'Files' });
    await expectPage(files.getByRole('option')).toHaveText(['src/app.ts']);
    for (const [width, height] of [
      [1024, 640],
      [1920, 1080],
      [1280, 800],
    ] as const) {
      await workbench.page.setViewportSize({ width, height });
      await workbench.screenshot(`attachments-at-menu-${width}x${height}`);
    }
  });

  it('attaches the completed file with its line range, and the model gets those lines with their path', async () => {
    const workbench = await start();
    const { page, server } = workbench;
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('Explain @app');
    await expectPage(page.getByRole('listbox', { name: 'Files' }).getByRole('option')).toHaveText(['src/app.ts']);
    await message.press('Enter');
    await expectPage(message).toHaveValue('Explain @src/app.ts ');
    await message.press('Backspace');
    await message.pressSequentially('#L3-4 please');
    await expectPage(page.getByLabel('Files to attach')).toContainText('src/app.ts#L3-4');
    server.enqueue(textTurn('Lines 3 and 4 export constants.'));
    await message.press('Enter');
    await expectPage(page.getByText('Lines 3 and 4 export constants.')).toBeVisible();
    expect(sentToModel(workbench)).toContain(
      '<attached_file path="src/app.ts" lines="3-4">\nexport const line3 = 3;\nexport const line4 = 4;\n</attached_file>',
    );
    const chip = page.getByRole('article', { name: 'Your message' }).getByRole('button', { name: /src\/app\.ts#L3-4/ });
    await expectPage(chip).toContainText('B');
    await workbench.screenshot('attachments-sent-1280x800');
    // The chip shows what was sent, numbered from the range's first line.
    await chip.click();
    const shown = page.getByRole('dialog', { name: 'Attached src/app.ts' });
    await expectPage(shown.getByLabel('File text')).toContainText('export const line4 = 4;');
    await expectPage(shown.getByLabel('File text')).not.toContainText('line5');
  });

  it('says inline that an @ path does not exist, and sends nothing', async () => {
    const workbench = await start();
    const { page, server } = workbench;
    const message = page.getByRole('textbox', { name: 'Message' });
    const before = server.requests.length;
    await message.fill('Read @missing.md now');
    await message.press('Enter');
    await expectPage(page.getByRole('alert', { name: 'Attachment problem' })).toHaveText('@missing.md does not exist in the workspace.');
    await expectPage(message).toHaveValue('Read @missing.md now');
    expect(server.requests.length).toBe(before);
    await expectPage(page.getByRole('article', { name: 'Your message' })).toHaveCount(0);
  });

  it('says inline that an @ path leaving the workspace is refused, and sends nothing', async () => {
    const workbench = await start();
    const { page, server } = workbench;
    const message = page.getByRole('textbox', { name: 'Message' });
    const before = server.requests.length;
    await message.fill('Read @../secret.txt');
    await message.press('Enter');
    await expectPage(page.getByRole('alert', { name: 'Attachment problem' })).toContainText('leaves the workspace');
    expect(server.requests.length).toBe(before);
  });

  it('attaches a file dragged from the file tree onto the message box', async () => {
    const workbench = await start();
    const { page, server } = workbench;
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('Summarize');
    await page.getByRole('tree', { name: 'Workspace files' }).getByRole('button', { name: 'notes.md' }).dragTo(message);
    await expectPage(message).toHaveValue('Summarize @notes.md ');
    server.enqueue(textTurn('The owls.'));
    await message.press('Enter');
    await expectPage(page.getByText('The owls.')).toBeVisible();
    expect(sentToModel(workbench)).toContain('The owls are not what they seem.');
  });

  it('attaches a text file dropped from the desktop, and does not take it for a workspace folder', async () => {
    const workbench = await start();
    const { page, server } = workbench;
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('What is this?');
    const transfer = await page.evaluateHandle(() => {
      const data = new DataTransfer();
      data.items.add(new File(['dropped words\n'], 'todo.txt', { type: 'text/plain' }));
      return data;
    });
    await page.locator('form.composer').dispatchEvent('drop', { dataTransfer: transfer });
    await expectPage(page.getByLabel('Files to attach')).toContainText('todo.txt');
    server.enqueue(textTurn('A to-do list.'));
    await message.press('Enter');
    await expectPage(page.getByText('A to-do list.')).toBeVisible();
    expect(sentToModel(workbench)).toContain('<attached_file path="todo.txt">\ndropped words\n\n</attached_file>');
  });

  it('says inline that the model does not take images when one is dropped, and sends nothing', async () => {
    const workbench = await start();
    const { page, server } = workbench;
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('What is in this picture?');
    const transfer = await page.evaluateHandle((base64) => {
      const bytes = Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], 'logo.png', { type: 'image/png' }));
      return data;
    }, tinyPng.toString('base64'));
    await page.locator('form.composer').dispatchEvent('drop', { dataTransfer: transfer });
    await expectPage(page.getByLabel('Files to attach')).toContainText('logo.png · image');
    const before = server.requests.length;
    await message.press('Enter');
    await expectPage(page.getByRole('alert', { name: 'Attachment problem' })).toContainText('scripted-model does not take images');
    expect(server.requests.length).toBe(before);
    await expectPage(page.getByRole('article', { name: 'Your message' })).toHaveCount(0);
  });

  it('previews a file read-only from the tree, and its Attach button puts it in the message', async () => {
    const workbench = await start();
    const { page } = workbench;
    await page.getByRole('tree', { name: 'Workspace files' }).getByRole('button', { name: 'notes.md' }).click();
    const preview = page.getByRole('dialog', { name: 'Preview of notes.md' });
    await expectPage(preview.getByLabel('File text')).toContainText('The owls are not what they seem.');
    await expectPage(preview).toContainText('read-only');
    await expectPage(preview.getByRole('textbox')).toHaveCount(0);
    await workbench.screenshot('attachments-preview-1280x800');
    await preview.getByRole('button', { name: 'Attach to message' }).click();
    await expectPage(preview).toHaveCount(0);
    await expectPage(page.getByRole('textbox', { name: 'Message' })).toHaveValue('@notes.md ');
  });

  /** Pastes into the message box what a DataTransfer made in the page holds, as a paste from the clipboard would. */
  const paste = (workbench: Workbench, items: { png?: string; text?: string }): Promise<boolean> =>
    workbench.page.evaluate(({ png, text }) => {
      const data = new DataTransfer();
      if (png !== undefined)
        data.items.add(new File([Uint8Array.from(atob(png), (character) => character.charCodeAt(0))], 'image.png', { type: 'image/png' }));
      if (text !== undefined) data.setData('text/plain', text);
      const box = document.querySelector('textarea[aria-label="Message"]');
      const event = new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true });
      box?.dispatchEvent(event);
      return event.defaultPrevented;
    }, items);

  it('attaches the files chosen with the attach button, as dropped ones are, and they reach the model', async () => {
    const workbench = await start();
    const { page, server } = workbench;
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('What are these?');
    const choosing = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Attach files' }).click();
    const chooser = await choosing;
    expect(chooser.isMultiple()).toBe(true);
    await chooser.element().setInputFiles([
      { name: 'todo.txt', mimeType: 'text/plain', buffer: Buffer.from('chosen words\n') },
      { name: 'plan.md', mimeType: 'text/markdown', buffer: Buffer.from('# Plan\n') },
    ]);
    const chips = page.getByLabel('Files to attach');
    await expectPage(chips).toContainText('todo.txt');
    await expectPage(chips).toContainText('plan.md');
    await workbench.screenshot('attachments-chosen-1280x800');
    server.enqueue(textTurn('A to-do list and a plan.'));
    await message.press('Enter');
    await expectPage(page.getByText('A to-do list and a plan.')).toBeVisible();
    expect(sentToModel(workbench)).toContain('<attached_file path="todo.txt">\nchosen words\n\n</attached_file>');
    expect(sentToModel(workbench)).toContain('<attached_file path="plan.md">\n# Plan\n\n</attached_file>');
    await expectPage(chips).toHaveCount(0);
  });

  it('attaches a pasted image, and a model that takes images gets it in its request', async () => {
    const workbench = await start({ models: [{ id: 'scripted-model', contextLength: 32768, vision: true }, { id: 'scripted-large' }] });
    const { page, server } = workbench;
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('What is in this screenshot?');
    expect(await paste(workbench, { png: tinyPng.toString('base64') })).toBe(true);
    await expectPage(page.getByLabel('Files to attach')).toContainText('image.png · image');
    await expectPage(message).toHaveValue('What is in this screenshot?');
    server.enqueue(textTurn('A single transparent pixel.'));
    await message.press('Enter');
    await expectPage(page.getByText('A single transparent pixel.')).toBeVisible();
    const messages = (server.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> }).messages;
    const content = messages.filter((entry) => entry.role === 'user').at(-1)?.content;
    expect(content).toContainEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${tinyPng.toString('base64')}` } });
    expect(JSON.stringify(content)).toContain('What is in this screenshot?');
  });

  it('says inline that the model does not take a pasted image, and sends nothing', async () => {
    const workbench = await start();
    const { page, server } = workbench;
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('What is this?');
    expect(await paste(workbench, { png: tinyPng.toString('base64') })).toBe(true);
    await expectPage(page.getByLabel('Files to attach')).toContainText('image.png · image');
    const before = server.requests.length;
    await message.press('Enter');
    await expectPage(page.getByRole('alert', { name: 'Attachment problem' })).toContainText('scripted-model does not take images');
    expect(server.requests.length).toBe(before);
  });

  it('pastes text as text, even with an image beside it on the clipboard', async () => {
    const workbench = await start();
    const { page } = workbench;
    const message = page.getByRole('textbox', { name: 'Message' });
    // The page's own handling is left to the browser: the paste is not taken, and no chip is made.
    expect(await paste(workbench, { text: 'copied words', png: tinyPng.toString('base64') })).toBe(false);
    expect(await paste(workbench, { text: 'copied words' })).toBe(false);
    await expectPage(page.getByLabel('Files to attach')).toHaveCount(0);
    // A real paste from the clipboard puts the text in the box.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
    await page.evaluate(() => navigator.clipboard.writeText('copied words'));
    await message.fill('Explain: ');
    await message.press('ControlOrMeta+V');
    await expectPage(message).toHaveValue('Explain: copied words');
    await expectPage(page.getByLabel('Files to attach')).toHaveCount(0);
  });
});
