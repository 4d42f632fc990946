import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { CipherKeptDatabaseKey } from '../../src/main/secrets/cipher-kept-database-key';
import type { SecretCipher } from '../../src/main/secrets/encrypted-file-secret-store';
import { memoryKeyCipher } from './test-cipher';

/**
 * A keychain for the tests, benchmarks and crash harness that stays the same across processes (a child started on
 * the same data folder reads the key its parent kept): AES-256-GCM with a fixed key, standing in for safeStorage.
 */
export function testKeychain(): SecretCipher {
  return memoryKeyCipher(createHash('sha256').update('agent-workbench test keychain').digest());
}

/** The database key of a data folder, kept as the app keeps it (`database.key`), with the test keychain. */
export function testDatabaseKeys(dataDir: string): CipherKeptDatabaseKey {
  return new CipherKeptDatabaseKey(join(dataDir, 'database.key'), testKeychain());
}
