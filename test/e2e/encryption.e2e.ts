import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CipherKeptDatabaseKey } from '../../src/main/secrets/cipher-kept-database-key';
import { latestSchemaVersion } from '../../src/main/store/migrations';
import type { SecretCipher } from '../../src/main/secrets/encrypted-file-secret-store';
import { temporaryFolder } from '../helpers';
import { testKeychain } from '../host/test-keychain';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

const noKeychain: SecretCipher = { isAvailable: () => false, encrypt: () => Buffer.alloc(0), decrypt: () => '' };

/** A key kept outside the data folder the fixture makes (its path is known only once it is made). */
function keysIn(keychain: SecretCipher): CipherKeptDatabaseKey {
  const folder = temporaryFolder('workbench-key-');
  onTestFinished(() => folder.remove());
  return new CipherKeptDatabaseKey(join(folder.path, 'database.key'), keychain);
}

/* The database encrypted at rest as the window tells it, and exports that redact secrets unless asked not to. */
describe('encryption at rest and redacted exports in the window', () => {
  const open = useWorkbenches();

  it('says in Settings that the database is encrypted, and exports a session with its secrets redacted or raw', async () => {
    const workbench = await open({ databaseKeys: keysIn(testKeychain()) });
    const { page, server } = workbench;
    await page.getByRole('button', { name: 'Settings' }).click();
    await expectPage(page.getByLabel('Database encryption')).toContainText('Encrypted at rest (AEGIS-256)');
    await page.getByRole('button', { name: 'Close settings' }).click();

    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue(textTurn('Noted.'));
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('Deploy with GITHUB_TOKEN=ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5 please');
    await message.press('Enter');
    await expectPage(page.getByText('Noted.')).toBeVisible();

    const redacted = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const redactedText = readFileSync((await (await redacted).path()) ?? '', 'utf8');
    expect(redactedText).toContain('GITHUB_TOKEN=[REDACTED]');
    expect(redactedText).not.toContain('ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5');
    await expectPage(page.getByRole('status').filter({ hasText: 'Exported with' })).toContainText(/Exported with \d+ secrets? redacted/);

    const raw = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export raw' }).click();
    expect(readFileSync((await (await raw).path()) ?? '', 'utf8')).toContain('GITHUB_TOKEN=ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5');
  });

  it('says plainly that the database is not encrypted where the system offers no keychain, and works', async () => {
    const workbench = await open({ databaseKeys: keysIn(noKeychain) });
    const { page } = workbench;
    await page.getByRole('button', { name: 'Settings' }).click();
    await expectPage(page.getByLabel('Database encryption')).toHaveText('The database is not encrypted: this system offers no keychain.');
    await expectPage(page.getByLabel('Database encryption').locator('strong')).toBeVisible();
  });

  it('offers to put back a backup of the database that opens when the database cannot be opened, and starts again on it', async () => {
    let relaunched = 0;
    const workbench = await open({ databaseKeys: keysIn(testKeychain()), relaunch: () => (relaunched += 1) });
    const { page } = workbench;
    const databasePath = join(workbench.dataDir, 'workbench.sqlite');
    const backupPath = `${databasePath}.backup-v${latestSchemaVersion}-1700000000000`;
    expect(await workbench.host.invoke('session:create', { title: 'Kept in the backup', workspacePath: null })).toMatchObject({ ok: true });
    // A migration's copy of the database, as the app keeps beside it.
    await workbench.restartAfter(async () => writeFileSync(backupPath, readFileSync(databasePath)));
    expect(await workbench.host.invoke('session:create', { title: 'Made after the backup', workspacePath: null })).toMatchObject({
      ok: true,
    });
    // The file's first page damaged while the app was closed.
    await workbench.restartAfter(async () => {
      const bytes = readFileSync(databasePath);
      bytes.fill(0, 0, 4096);
      writeFileSync(databasePath, bytes);
    });

    await expectPage(page.getByRole('heading', { name: 'Your data could not be opened' })).toBeVisible();
    await expectPage(page.getByRole('alert')).toContainText('A backup taken 2023-11-14T22:13:20.000Z opens');
    await expectPage(page.getByText(backupPath)).toBeVisible();
    await expectPage(page.getByText(/What changed after .* stays only in the database file, which is kept beside it/)).toBeVisible();
    await page.getByRole('button', { name: 'Put the backup back' }).click();
    const done = page.getByRole('status');
    await expectPage(done).toContainText('The backup is back in place. The database that could not be opened was kept as');
    await expectPage(done).toContainText('workbench.sqlite.unopened-');
    await expectPage(done).toContainText('The app starts again');
    await expect.poll(() => relaunched).toBe(1);

    await workbench.restart();
    await expectPage(page.getByText('Kept in the backup').first()).toBeVisible();
    await expectPage(page.getByText('Made after the backup')).toHaveCount(0);
  });
});
