import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import { CipherKeptDatabaseKey } from '../../../src/main/secrets/cipher-kept-database-key';
import type { SecretCipher } from '../../../src/main/secrets/encrypted-file-secret-store';
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

async function start(dataDir: string, keychain: SecretCipher): Promise<LoopbackTransport> {
  const transport = new LoopbackTransport();
  const databaseKeys = new CipherKeptDatabaseKey(join(dataDir, 'database.key'), keychain);
  cores.push((await createNodeCore({ dataDir, transport, databaseKeys })).core);
  return transport;
}

describe('the app on an encrypted database', () => {
  it('says the database is encrypted, keeps sessions across a restart, and refuses a key that does not open it', async () => {
    const folder = temporaryFolder();
    folders.push(folder);
    const keychain = memoryKeyCipher();
    const first = await start(folder.path, keychain);
    const info = await first.invoke('app:info', {});
    expect(info).toMatchObject({ ok: true, value: { databaseEncryption: { encrypted: true }, startupError: null } });
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
});
