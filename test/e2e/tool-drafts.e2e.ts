import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { builtinTools } from '../../src/main/tools/builtin-tools';
import { temporaryFolder } from '../helpers';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';
import { BashParser } from '../../src/main/shell/bash-parser';

const shell = await BashParser.load();

describe('a tool call while the model writes it', () => {
  const open = useWorkbenches();

  it('a long write_file fills in its card as it streams, then becomes the call waiting at its gate', async () => {
    const workbench = await open({
      tools: builtinTools({ shell, dataDir: join('/tmp', 'unused-trash'), newId: () => `t${Date.now()}`, now: () => Date.now() }),
    });
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-drafts-');
    try {
      const created = await host.invoke('session:create', { title: 'Drafts', workspacePath: folder.path });
      if (!created.ok) throw new Error(created.error.message);
      await page.reload();
      await page.getByRole('button', { name: /^Drafts/ }).click();

      // 300 lines in 150 pieces 25 ms apart: some four seconds of a small local model writing a file.
      const content = Array.from({ length: 300 }, (_, index) => `line ${index + 1}: const value${index} = ${index};`).join('\n');
      const args = JSON.stringify({ path: 'src/long.ts', content });
      server.enqueue(
        { steps: [{ kind: 'tool_call', id: 'call_0', name: 'write_file', arguments: args, chunks: 150 }], chunkDelayMs: 25 },
        textTurn('Wrote src/long.ts.'),
      );
      await page.getByRole('textbox', { name: 'Message' }).fill('Write a long file');
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');

      const draft = page.getByRole('region', { name: 'Tool write_file being written' });
      await expectPage(draft).toContainText('src/long.ts');
      const written = draft.getByLabel('Content so far');
      await expectPage(written).toContainText(/line \d+: const value/);
      // Part of the content, before the call is complete: the last line has not come yet, nothing asks.
      const seen = (await written.textContent()) ?? '';
      expect(seen).not.toContain('line 300:');
      await expectPage(page.getByRole('region', { name: 'Approval needed' })).toHaveCount(0);
      await expectPage(draft).toContainText(/line (1\d\d|2\d\d):/);
      await workbench.screenshot('tool-call-drafting');

      // The response is complete: the draft gives way to the call's own card, at its gate.
      const gate = page.getByRole('region', { name: 'Approval needed' });
      await expectPage(gate).toContainText('Approve write_file?');
      await expectPage(draft).toHaveCount(0);
      const card = page.getByRole('region', { name: 'Tool write_file' });
      await expectPage(card).toHaveAttribute('data-state', 'waiting');
      expect(existsSync(join(folder.path, 'src/long.ts'))).toBe(false);
      await workbench.screenshot('tool-call-drafted-gate');

      await gate.getByRole('button', { name: 'Allow once' }).click();
      await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Wrote src/long.ts.');
      expect(readFileSync(join(folder.path, 'src/long.ts'), 'utf8')).toBe(content);

      // Read again from the journal, the session shows the finished call, and no draft.
      await page.reload();
      await page.getByRole('button', { name: /^Drafts/ }).click();
      await expectPage(page.getByRole('region', { name: 'Tool write_file' })).toHaveAttribute('data-state', 'succeeded');
      await expectPage(page.getByRole('region', { name: 'Tool write_file being written' })).toHaveCount(0);
    } finally {
      folder.remove();
    }
  });
});
