import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CipherKeptDatabaseKey } from '../../src/main/secrets/cipher-kept-database-key';
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
    await expectPage(page.getByLabel('Database encryption')).toContainText('Encrypted at rest (SQLCipher)');
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
});
