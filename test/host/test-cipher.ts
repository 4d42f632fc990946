import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretCipher } from '../../src/main/secrets/encrypted-file-secret-store';

/**
 * AES-256-GCM with a key held in memory, standing in for Electron's safeStorage where there is no
 * Electron: the secrets file is really encrypted, with a key that lives as long as the process.
 */
export function memoryKeyCipher(key: Buffer = randomBytes(32)): SecretCipher {
  return {
    isAvailable: () => true,
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    decrypt(encrypted) {
      const decipher = createDecipheriv('aes-256-gcm', key, encrypted.subarray(0, 12));
      decipher.setAuthTag(encrypted.subarray(12, 28));
      return Buffer.concat([decipher.update(encrypted.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}
