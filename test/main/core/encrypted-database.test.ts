import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import { latestSchemaVersion } from '../../../src/main/store/migrations';
import { applyKey, cipherInHeader, openWithKey } from '../../../src/main/store/database-key';
import { CipherKeptDatabaseKey } from '../../../src/main/secrets/cipher-kept-database-key';
import type { SecretCipher } from '../../../src/main/secrets/encrypted-file-secret-store';
import { ended, otherProcessHolding } from '../../database-holder';
import { temporaryFolder } from '../../helpers';
import { LoopbackTransport } from '../../host/loopback-transport';
import { createNodeCore } from '../../host/node-core';
import { memoryKeyCipher } from '../../host/test-cipher';

const noKeychain: SecretCipher = {
  isAvailable: () => false,
  encrypt: () => Buffer.alloc(0),
  decrypt: () => '',
};

const folders: Array<{ remove: () => void }> = [];
const cores: WorkbenchCore[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
  for (const folder of folders.splice(0)) folder.remove();
});

async function start(dataDir: string, keychain: SecretCipher, relaunch?: () => void): Promise<LoopbackTransport> {
  const transport = new LoopbackTransport();
  const databaseKeys = new CipherKeptDatabaseKey(join(dataDir, 'database.key'), keychain);
  cores.push((await createNodeCore({ dataDir, transport, databaseKeys, ...(relaunch ? { relaunch } : {}) })).core);
  return transport;
}

describe('the app on an encrypted database', () => {
  it('says the database is encrypted, keeps sessions across a restart, and refuses a key that does not open it', async () => {
    const folder = temporaryFolder();
    folders.push(folder);
    const keychain = memoryKeyCipher();
    const first = await start(folder.path, keychain);
    const info = await first.invoke('app:info', {});
    expect(info).toMatchObject({
      ok: true,
      value: {
        databaseEncryption: { encrypted: true, description: expect.stringContaining('Encrypted at rest (AEGIS-256)') },
        startupError: null,
      },
    });
    expect(await first.invoke('session:create', { title: 'Kept private', workspacePath: null })).toMatchObject({ ok: true });
    for (const core of cores.splice(0)) await core.close();
    const databasePath = join(folder.path, 'workbench.sqlite');
    expect(readFileSync(databasePath).includes('Kept private')).toBe(false);

    const again = await start(folder.path, keychain);
    expect(await again.invoke('session:list', {})).toMatchObject({ ok: true, value: [{ title: 'Kept private' }] });
    for (const core of cores.splice(0)) await core.close();

    // The keychain of another system (or a reset one) cannot read the key: the app says the database cannot be opened.
    const before = createHash('sha256').update(readFileSync(databasePath)).digest('hex');
    const locked = await start(folder.path, memoryKeyCipher());
    const refused = await locked.invoke('app:info', {});
    expect(refused).toMatchObject({
      ok: true,
      value: { startupError: { code: 'store_key_missing', message: expect.stringContaining('cannot be opened') } },
    });
    expect(await locked.invoke('session:list', {})).toMatchObject({ ok: false, error: { code: 'store_unavailable' } });
    expect(createHash('sha256').update(readFileSync(databasePath)).digest('hex')).toBe(before);
  });

  it('offers the backup that opens when the database cannot be opened, puts it back once, and starts again on it', async () => {
    const folder = temporaryFolder();
    folders.push(folder);
    const keychain = memoryKeyCipher();
    const databasePath = join(folder.path, 'workbench.sqlite');
    const first = await start(folder.path, keychain);
    expect(await first.invoke('session:create', { title: 'Before the damage', workspacePath: null })).toMatchObject({ ok: true });
    for (const core of cores.splice(0)) await core.close();
    // A migration's copy, as the app keeps beside the database; then a session it does not have, and a damaged first page.
    const backupPath = `${databasePath}.backup-v${latestSchemaVersion}-1700000000000`;
    writeFileSync(backupPath, readFileSync(databasePath));
    const second = await start(folder.path, keychain);
    expect(await second.invoke('session:create', { title: 'Lost with the damage', workspacePath: null })).toMatchObject({ ok: true });
    for (const core of cores.splice(0)) await core.close();
    const bytes = readFileSync(databasePath);
    bytes.fill(0, 0, 4096);
    writeFileSync(databasePath, bytes);
    const damaged = createHash('sha256').update(bytes).digest('hex');

    let relaunched = 0;
    const broken = await start(folder.path, keychain, () => (relaunched += 1));
    expect(await broken.invoke('app:info', {})).toMatchObject({
      ok: true,
      value: { startupError: { code: 'store_key_wrong', backupPath } },
    });
    // While another process has the database, the window's restore is refused, naming it, and nothing changes.
    const other = await otherProcessHolding(databasePath, 'the terminal runner', 'hold-only');
    try {
      expect(await broken.invoke('app:restoreBackup', {})).toMatchObject({
        ok: false,
        error: { code: 'store_in_use', message: expect.stringContaining(`open in the terminal runner (pid ${other.pid}, since `) },
      });
      expect(createHash('sha256').update(readFileSync(databasePath)).digest('hex')).toBe(damaged);
    } finally {
      other.stdin?.end();
      await ended(other);
    }
    const restored = await broken.invoke('app:restoreBackup', {});
    expect(restored).toMatchObject({
      ok: true,
      value: { relaunching: true, setAsidePath: expect.stringContaining('workbench.sqlite.unopened-') },
    });
    const setAside = restored.ok ? (restored.value as { setAsidePath: string }).setAsidePath : '';
    expect(createHash('sha256').update(readFileSync(setAside)).digest('hex')).toBe(damaged);
    expect(existsSync(backupPath)).toBe(true);
    // Once: a second answer would set the restored copy aside in turn.
    expect(await broken.invoke('app:restoreBackup', {})).toMatchObject({ ok: false, error: { code: 'invalid_state' } });
    await vi.waitFor(() => expect(relaunched).toBe(1));
    for (const core of cores.splice(0)) await core.close();

    const restarted = await start(folder.path, keychain);
    expect(await restarted.invoke('session:list', {})).toMatchObject({ ok: true, value: [{ title: 'Before the damage' }] });
  }, 30_000);

  it('puts nothing back where no backup opens, and says so', async () => {
    const folder = temporaryFolder();
    folders.push(folder);
    const first = await start(folder.path, memoryKeyCipher());
    expect(await first.invoke('session:create', { title: 'Only here', workspacePath: null })).toMatchObject({ ok: true });
    for (const core of cores.splice(0)) await core.close();
    const databasePath = join(folder.path, 'workbench.sqlite');
    // A copy that needs the key now gone, as every encrypted backup would.
    writeFileSync(`${databasePath}.backup-v${latestSchemaVersion}-5`, readFileSync(databasePath));
    const before = createHash('sha256').update(readFileSync(databasePath)).digest('hex');
    const locked = await start(folder.path, memoryKeyCipher());
    const info = await locked.invoke('app:info', {});
    expect(info.ok && (info.value as { startupError: { backupPath?: string } }).startupError.backupPath).toBeUndefined();
    expect(await locked.invoke('app:restoreBackup', {})).toMatchObject({
      ok: false,
      error: { code: 'invalid_state', message: 'No backup of the database opens here; nothing was changed.' },
    });
    expect(createHash('sha256').update(readFileSync(databasePath)).digest('hex')).toBe(before);
  });

  it('keeps working on a plain database where the system offers no keychain, and says so', async () => {
    const folder = temporaryFolder();
    folders.push(folder);
    const transport = await start(folder.path, noKeychain);
    expect(await transport.invoke('app:info', {})).toMatchObject({
      ok: true,
      value: {
        databaseEncryption: { encrypted: false, description: 'The database is not encrypted: this system offers no keychain.' },
        startupError: null,
      },
    });
    expect(await transport.invoke('session:create', { title: 'Plain', workspacePath: null })).toMatchObject({ ok: true });
  });

  it("says a database in SQLCipher's format from versions before is not yet converted while another process has it, then converts it", async () => {
    const folder = temporaryFolder();
    folders.push(folder);
    const keychain = memoryKeyCipher();
    const databasePath = join(folder.path, 'workbench.sqlite');
    const first = await start(folder.path, keychain);
    expect(await first.invoke('session:create', { title: 'From before', workspacePath: null })).toMatchObject({ ok: true });
    for (const core of cores.splice(0)) await core.close();
    // Written back in the format versions before wrote.
    const key = new CipherKeptDatabaseKey(join(folder.path, 'database.key'), keychain).read();
    const opened = key && openWithKey(databasePath, key);
    if (!key || !opened) throw new Error('the database did not open with its key');
    opened.db.pragma('journal_mode = DELETE');
    applyKey(opened.db, key, 'rekey', 'sqlcipher');
    opened.db.close();
    expect(cipherInHeader(databasePath)).toBe('sqlcipher');

    const other = await otherProcessHolding(databasePath, 'the terminal runner', 'hold-only');
    try {
      const shared = await start(folder.path, keychain);
      expect(await shared.invoke('app:info', {})).toMatchObject({
        ok: true,
        value: {
          databaseEncryption: {
            encrypted: true,
            description: expect.stringMatching(/SQLCipher's format.*Not yet converted to AEGIS-256: the terminal runner \(pid \d+/),
          },
        },
      });
      expect(await shared.invoke('session:list', {})).toMatchObject({ ok: true, value: [{ title: 'From before' }] });
      for (const core of cores.splice(0)) await core.close();
    } finally {
      other.stdin?.end();
      await ended(other);
    }

    const alone = await start(folder.path, keychain);
    expect(await alone.invoke('app:info', {})).toMatchObject({
      ok: true,
      value: { databaseEncryption: { encrypted: true, description: expect.stringContaining('Encrypted at rest (AEGIS-256)') } },
    });
    expect(await alone.invoke('session:list', {})).toMatchObject({ ok: true, value: [{ title: 'From before' }] });
    expect(cipherInHeader(databasePath)).toBe('aegis-256');
  }, 30_000);
});
