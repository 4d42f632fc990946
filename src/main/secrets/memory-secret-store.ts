/*
 * Secrets held in memory only, for the headless runner, which must leave nothing on disk.
 */

import type { SecretStore } from '../agent/ports/settings';

/** Secrets held in memory only, for a run that must leave nothing on disk (the headless runner). */
export class MemorySecretStore implements SecretStore {
  readonly encrypted = true;
  private readonly values = new Map<string, string>();

  get(key: string): string | null {
    return this.values.get(key) ?? null;
  }

  set(key: string, value: string): void {
    this.values.set(key, value);
  }

  delete(key: string): void {
    this.values.delete(key);
  }
}
