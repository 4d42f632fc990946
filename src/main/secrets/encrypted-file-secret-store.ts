/*
 * Secrets such as API keys, kept in one file, each encrypted by the system (Electron's safeStorage).
 */

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { WorkbenchError } from '../../shared/errors';
import type { SecretStore } from '../agent/ports/settings';

/** Encrypts and decrypts secrets: Electron's safeStorage in the app. */
export interface SecretCipher {
  isAvailable(): boolean;
  encrypt(plain: string): Buffer;
  decrypt(encrypted: Buffer): string;
}

const fileSchema = z.object({ version: z.literal(1), secrets: z.record(z.string(), z.string()) });

/**
 * Secrets in one JSON file, each value encrypted by the cipher and base64-encoded. When the
 * platform offers no encryption the store refuses to save rather than write a key in clear.
 */
export class EncryptedFileSecretStore implements SecretStore {
  private secrets: Record<string, string>;

  constructor(
    private readonly path: string,
    private readonly cipher: SecretCipher,
  ) {
    this.secrets = {};
    if (existsSync(path)) {
      const parsed = fileSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
      if (parsed.success) this.secrets = parsed.data.secrets;
    }
  }

  get encrypted(): boolean {
    return this.cipher.isAvailable();
  }

  get(key: string): string | null {
    const stored = this.secrets[key];
    if (stored === undefined || !this.cipher.isAvailable()) return null;
    try {
      return this.cipher.decrypt(Buffer.from(stored, 'base64'));
    } catch {
      return null;
    }
  }

  set(key: string, value: string): void {
    if (!this.cipher.isAvailable()) {
      throw new WorkbenchError(
        'secret_storage_unavailable',
        'This system offers no encrypted storage for keys, so the key was not saved. Set ANTHROPIC_API_KEY in the environment instead.',
      );
    }
    this.secrets = { ...this.secrets, [key]: this.cipher.encrypt(value).toString('base64') };
    this.save();
  }

  delete(key: string): void {
    if (!(key in this.secrets)) return;
    const { [key]: _removed, ...rest } = this.secrets;
    this.secrets = rest;
    this.save();
  }

  private save(): void {
    const temporary = `${this.path}.tmp`;
    writeFileSync(temporary, JSON.stringify({ version: 1, secrets: this.secrets }), { mode: 0o600 });
    renameSync(temporary, this.path);
  }
}
