/*
 * The settings and secret store interfaces.
 */
import type { Settings } from '../../../shared/domain';

/** Settings that are not secrets. Reads are validated; writes are validated before they land. */
export interface SettingsStore {
  get(): Settings;
  set(settings: Settings): Settings;
}

/** API keys and other secrets, encrypted at rest where the platform can. Never logged. */
export interface SecretStore {
  readonly encrypted: boolean;
  get(key: string): string | null;
  set(key: string, value: string): void;
  delete(key: string): void;
}
