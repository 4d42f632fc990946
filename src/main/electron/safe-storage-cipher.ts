/*
 * The cipher of the secret store: Electron's safeStorage, counted as unavailable where it would only use a hard-coded
 * password.
 */

import type { SecretCipher } from '../secrets/encrypted-file-secret-store';

/** The parts of Electron's `safeStorage` the cipher uses. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
  getSelectedStorageBackend?(): string;
}

/**
 * safeStorage as a cipher. On Linux without a keyring it falls back to a hard-coded password
 * ("basic_text"), which is no protection, so that backend counts as unavailable.
 */
export function safeStorageCipher(safeStorage: SafeStorageLike, platform: NodeJS.Platform): SecretCipher {
  return {
    isAvailable: () =>
      safeStorage.isEncryptionAvailable() && !(platform === 'linux' && safeStorage.getSelectedStorageBackend?.() === 'basic_text'),
    encrypt: (plain) => safeStorage.encryptString(plain),
    decrypt: (encrypted) => safeStorage.decryptString(encrypted),
  };
}
