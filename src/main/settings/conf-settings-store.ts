/*
 * The settings, kept in a `conf` file and checked against their schema; the defaults when the file is not valid.
 */

import { defaultSettings, settingsSchema, type Settings } from '../../shared/domain';
import { InvalidInputError } from '../../shared/errors';
import type { SettingsStore } from '../agent/ports/settings';

/** The part of `conf` (and of electron-store, which extends it) this store uses. */
export interface ConfLike {
  store: Record<string, unknown>;
}

/**
 * Settings kept in a `conf` file: electron-store in the app, plain `conf` under Node, one code
 * path. A file that fails the schema (hand-edited, older, damaged) is set aside in memory and the
 * defaults are used, so a bad file never crashes the app; it is overwritten only on the next save.
 */
export class ConfSettingsStore implements SettingsStore {
  private current: Settings;
  readonly problem: string | null;

  constructor(private readonly conf: ConfLike) {
    const parsed = settingsSchema.safeParse({ ...defaultSettings, ...conf.store });
    this.current = parsed.success ? parsed.data : defaultSettings;
    this.problem = parsed.success
      ? null
      : `The settings file was not valid and defaults are in use: ${parsed.error.issues[0]?.message ?? 'invalid'}`;
  }

  get(): Settings {
    return this.current;
  }

  set(settings: Settings): Settings {
    const parsed = settingsSchema.safeParse(settings);
    if (!parsed.success) throw new InvalidInputError(`Settings were not saved: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    this.conf.store = parsed.data as unknown as Record<string, unknown>;
    this.current = parsed.data;
    return parsed.data;
  }
}
