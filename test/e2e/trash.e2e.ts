import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it, onTestFinished } from 'vitest';
import { temporaryFolder } from '../helpers';
import { testDatabaseKeys } from '../host/test-keychain';
import { toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { seriousFindings } from './axe';
import { useWorkbenches } from './fixture';

/** Every file under `folder`, its path and bytes (the trash's own files: sealed blobs, indexes, manifests). */
function filesUnder(folder: string): Array<{ path: string; bytes: Buffer }> {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((name) => join(folder, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, bytes: readFileSync(path) }));
}

/** Changes one byte in the middle of a file, as a fault of the disk or a hand would. */
function flipByte(path: string): void {
  const bytes = readFileSync(path);
  const middle = bytes.length >> 1;
  bytes[middle] = (bytes[middle] ?? 0) ^ 0x01;
  writeFileSync(path, bytes);
}

/* What the agent deleted, seen and put back from Settings → Trash, where the database is encrypted and the trash sealed. */
describe('Settings → Trash on an encrypted database', () => {
  const open = useWorkbenches();

  it('lists what the agent deleted (sealed on disk), puts a file back whole, and keeps a damaged entry, saying why', async () => {
    const keys = temporaryFolder('workbench-key-');
    const workspace = temporaryFolder('workbench-trash-e2e-');
    onTestFinished(() => {
      keys.remove();
      workspace.remove();
    });
    // Text no sealed file could hold by chance, with bytes a careless copy would change (no end of line, \r\n, UTF-8).
    const notes = Buffer.from('Minutes of the owl council\r\nThe quorum was seventeen owls · Eulenrat tagte bis 03:14 Uhr', 'utf8');
    const budget = Buffer.from('item,amount\nbarn-rafters-oak,41931\nmouse-stock-reserve,88217\n', 'utf8');
    writeFileSync(join(workspace.path, 'meeting-notes.txt'), notes);
    writeFileSync(join(workspace.path, 'budget-2027.csv'), budget);

    const workbench = await open({ builtinTools: true, databaseKeys: testDatabaseKeys(keys.path) });
    const { page, server, host, dataDir } = workbench;
    await workbench.configureScriptedModel();
    const created = await host.invoke('session:create', { title: 'Tidy up', workspacePath: workspace.path });
    if (!created.ok) throw new Error(created.error.message);
    await page.reload();

    const deletedFrom = Date.now();
    server.enqueue(
      { steps: [toolCall('delete', { path: 'meeting-notes.txt' }, 'd1'), toolCall('delete', { path: 'budget-2027.csv' }, 'd2')] },
      textTurn('Both are in the trash.'),
    );
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Delete the notes and the budget');
    await box.press('Enter');
    // A delete is asked about, each one.
    const gate = page.getByRole('region', { name: 'Approval needed' });
    for (const path of ['meeting-notes.txt', 'budget-2027.csv']) {
      await expectPage(gate).toContainText('Approve delete?');
      await expectPage(gate).toContainText(path);
      await gate.getByRole('button', { name: 'Allow once' }).click();
    }
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toHaveText('Both are in the trash.');
    const deletedUntil = Date.now();
    expect(readdirSync(workspace.path)).toEqual([]);

    // On disk the trash holds neither file's text nor its name: only sealed blobs, a sealed index and a sealed manifest.
    const trashFolder = join(dataDir, 'trash');
    const listed = await host.invoke('trash:list', {});
    if (!listed.ok) throw new Error(listed.error.message);
    const entries = listed.value as Array<{ id: string; relativePath: string; deletedAt: number }>;
    const idOf = (path: string): string => entries.find((entry) => entry.relativePath === path)?.id ?? 'missing';
    const kept = filesUnder(trashFolder);
    expect(kept.map((file) => file.path.slice(trashFolder.length + 1)).sort()).toEqual(
      [idOf('meeting-notes.txt'), idOf('budget-2027.csv')]
        .flatMap((id) => [`${id}/blobs/0`, `${id}/contents`, `${id}/manifest.json`])
        .sort(),
    );
    for (const file of kept) {
      expect(file.bytes.length).toBeGreaterThan(0);
      for (const secret of [notes, budget, Buffer.from('owl council'), Buffer.from('barn-rafters-oak'), Buffer.from('meeting-notes')])
        expect(file.bytes.includes(secret), `${file.path} holds "${secret.toString('utf8')}"`).toBe(false);
    }

    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByRole('navigation', { name: 'Sections of Settings' }).getByRole('button', { name: 'Trash', exact: true }).click();
    await expectPage(dialog.getByLabel('Database encryption')).toContainText('Encrypted at rest (AEGIS-256)');
    const section = dialog.getByRole('region', { name: 'Trash', exact: true });
    const deleted = section.getByRole('list', { name: 'Deleted files' });
    /** What axe-core finds serious or critical in the Trash section, in the light theme and the dark one. */
    const trashFindings = async (): Promise<string[]> => {
      const found: string[] = [];
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        for (const finding of await seriousFindings(page, '#settings-section-trash'))
          found.push(`${colorScheme}: ${finding.rule} (${finding.help}) at ${finding.targets.join(' | ')}`);
      }
      await page.emulateMedia({ colorScheme: 'light' });
      return found;
    };
    const entry = (path: string) => deleted.getByRole('listitem').filter({ hasText: path });
    await expectPage(deleted.getByRole('listitem')).toHaveCount(2);
    // Each entry says where it was and when, in the person's own way of writing a time.
    for (const listedEntry of entries) {
      expect(listedEntry.deletedAt).toBeGreaterThanOrEqual(deletedFrom);
      expect(listedEntry.deletedAt).toBeLessThanOrEqual(deletedUntil);
      const when = await page.evaluate((time) => new Date(time).toLocaleString(), listedEntry.deletedAt);
      await expectPage(entry(listedEntry.relativePath)).toContainText(`${workspace.path} · ${when}`);
    }
    expect(await trashFindings()).toEqual([]);
    await workbench.screenshot('trash-settings');

    await entry('meeting-notes.txt').getByRole('button', { name: 'Restore meeting-notes.txt' }).click();
    await expectPage(entry('meeting-notes.txt')).toHaveCount(0);
    expect(readFileSync(join(workspace.path, 'meeting-notes.txt')).equals(notes)).toBe(true);
    expect(existsSync(join(trashFolder, idOf('meeting-notes.txt')))).toBe(false);

    // One byte of the budget's sealed file changed on disk: it does not open, and nothing of it reaches the workspace.
    const damagedId = idOf('budget-2027.csv');
    flipByte(join(trashFolder, damagedId, 'blobs', '0'));
    const before = filesUnder(join(trashFolder, damagedId));

    await entry('budget-2027.csv').getByRole('button', { name: 'Restore budget-2027.csv' }).click();
    const why = entry('budget-2027.csv').getByRole('alert');
    await expectPage(why).toContainText('budget-2027.csv does not open from the trash');
    await expectPage(why).toContainText('Nothing was restored or removed.');
    expect(readdirSync(workspace.path)).toEqual(['meeting-notes.txt']);
    expect(filesUnder(join(trashFolder, damagedId))).toEqual(before);
    expect(await trashFindings()).toEqual([]);
    await workbench.screenshot('trash-settings-damaged');

    // Settings opened again: the damaged entry is still there, to be tried again or looked at.
    await page.getByRole('button', { name: 'Close settings' }).click();
    await page.getByRole('button', { name: 'Settings' }).click();
    await expectPage(entry('budget-2027.csv')).toHaveCount(1);
    await expectPage(entry('budget-2027.csv').getByRole('button', { name: 'Restore budget-2027.csv' })).toBeVisible();

    // Its manifest damaged too: the list says the entry does not open, in place of its path, and offers no Restore.
    await page.getByRole('button', { name: 'Close settings' }).click();
    flipByte(join(trashFolder, damagedId, 'manifest.json'));
    await page.getByRole('button', { name: 'Settings' }).click();
    await expectPage(deleted.getByRole('listitem')).toHaveCount(1);
    const unreadable = deleted.getByRole('listitem').first();
    await expectPage(unreadable.getByRole('alert')).toHaveText(
      `Trash entry ${damagedId} does not open: it was sealed with another key, or changed since. It is kept as it is.`,
    );
    await expectPage(unreadable.getByRole('button')).toHaveCount(0);
    expect(await trashFindings()).toEqual([]);
    expect(readdirSync(workspace.path)).toEqual(['meeting-notes.txt']);

    // And the restored file is in the workspace's tree.
    await page.getByRole('button', { name: 'Close settings' }).click();
    await expectPage(page.getByRole('tree', { name: 'Workspace files' }).getByRole('button', { name: 'meeting-notes.txt' })).toBeVisible();
  });
});
