import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { builtinTools } from '../../src/main/tools/builtin-tools';
import { temporaryFolder } from '../helpers';
import { factOf, finalAnswer, noteCount, notesModel, notesTask, writeNotes } from '../twenty-notes';
import { BashParser } from '../../src/main/shell/bash-parser';
import { useWorkbenches } from './fixture';
import { logsAnswer, logsModel, logsTask, writeLogs } from '../six-logs';

const shell = await BashParser.load();

describe('long work on a small local model', () => {
  const open = useWorkbenches();

  it('follows twenty long notes on an 8,192-token window, shows the meter and the summaries, and never overflows', async () => {
    const workbench = await open(
      { tools: builtinTools({ shell, dataDir: join('/tmp', 'unused-trash'), newId: () => `t${Date.now()}`, now: () => Date.now() }) },
      { personality: 'llama.cpp', contextWindow: 8192, fallback: notesModel },
    );
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-notes-');
    writeNotes(folder.path);
    const created = await host.invoke('session:create', { title: 'Notes', workspacePath: folder.path });
    if (!created.ok) throw new Error(created.error.message);
    await page.reload();
    await page.getByRole('button', { name: /^Notes/ }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill(notesTask);
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');

    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText(finalAnswer, { timeout: 60_000 });
    // The answer shows before its turn has finished writing; a summary is only taken once the session is free.
    await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('done', { timeout: 30_000 });
    // The older part of the work was summarized, and the dividers say so; a summary can be read.
    const dividers = page.getByRole('separator', { name: 'Conversation summarized' });
    expect(await dividers.count()).toBeGreaterThanOrEqual(1);
    await dividers.first().locator('summary').click();
    await expectPage(dividers.first()).toContainText('Notes read so far');
    // The meter shows the last request against the window the server reported.
    const meter = page.getByRole('button', { name: 'Context window' });
    await expectPage(meter).toContainText('/ 8,192');
    await workbench.screenshot('long-work-compacted');

    const chats = server.requests.filter((request) => request.path === '/v1/chat/completions');
    for (const request of chats) expect(request.promptTokens + Number(request.body['max_tokens'])).toBeLessThanOrEqual(8192);
    const sent = chats.map((request) => JSON.stringify(request.body));
    for (let index = 1; index <= noteCount; index += 1) expect(sent.some((body) => body.includes(factOf(index)))).toBe(true);

    // Summarizing on demand, with instructions the summary request carries.
    const sessionId = (created.value as { id: string }).id;
    const compactions = (): number =>
      (host.core.core?.store.journal(sessionId) ?? []).filter((entry) => entry.event.type === 'context_compacted').length;
    expect(compactions()).toBeGreaterThanOrEqual(2);
    // Where the automatic summaries fell depends on the counts of the run, and the last one may have left nothing old
    // to summarize: one more exchange (the last note read again) makes sure there is.
    await page.getByRole('textbox', { name: 'Message' }).fill('Read the last note once more.');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).filter({ hasText: finalAnswer })).toHaveCount(2, { timeout: 60_000 });
    await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('done', { timeout: 30_000 });
    const before = compactions();
    await meter.click();
    await page.getByRole('textbox', { name: 'What the summary should keep' }).fill('Keep every fact code.');
    await page.getByRole('button', { name: 'Summarize older messages now' }).click();
    // When reading a summary above moved the view away from the end, back to it, where the new divider is.
    await expectPage.poll(compactions, { timeout: 20_000 }).toBe(before + 1);
    const jump = page.getByRole('button', { name: 'Jump to the latest message' });
    if (await jump.isVisible()) await jump.click();
    await expectPage(dividers.filter({ hasText: 'as you asked' })).toBeVisible();
    // The summary is asked as the conversation's continuation (or apart, when that does not fit): the person's words go with it.
    expect(JSON.stringify(server.requests.at(-1)?.body['messages'])).toContain('Keep every fact code.');
    folder.remove();
  }, 120_000);

  it('reviews six logs one by one on a 4,096-token window to the right answer, and the meter says how much of each prompt was kept', async () => {
    const workbench = await open(
      { tools: builtinTools({ shell, dataDir: join('/tmp', 'unused-trash'), newId: () => `t${Date.now()}`, now: () => Date.now() }) },
      { personality: 'llama.cpp', contextWindow: 4096, llamaSlots: { total: 1 }, fallback: logsModel },
    );
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-logs-');
    writeLogs(folder.path);
    const created = await host.invoke('session:create', { title: 'Logs', workspacePath: folder.path });
    if (!created.ok) throw new Error(created.error.message);
    await page.reload();
    await page.getByRole('button', { name: /^Logs/ }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill(logsTask);
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText(logsAnswer, { timeout: 60_000 });
    await expectPage(page.getByRole('status', { name: 'Session state' })).toHaveText('done', { timeout: 30_000 });
    const chats = server.requests.filter((request) => request.path === '/v1/chat/completions');
    for (const request of chats) expect(request.promptTokens + Number(request.body['max_tokens'])).toBeLessThanOrEqual(4096);
    // The meter's popover says how much of the last request was unchanged, and how much of the session's was read again.
    const meter = page.getByRole('button', { name: 'Context window' });
    await expectPage(meter).toContainText('/ 4,096');
    await meter.click();
    const popover = page.getByRole('form', { name: 'Summarize the conversation' });
    await expectPage(popover).toContainText(/Unchanged beginning: about \d+ of \d+ tokens \(\d+%\)/);
    await expectPage(popover).toContainText(
      /This session: \d+% of \d+ prompt tokens read again; the servers reported \d+ read from their caches\./,
    );
    await workbench.screenshot('long-work-small-window');
    folder.remove();
  }, 120_000);
});
