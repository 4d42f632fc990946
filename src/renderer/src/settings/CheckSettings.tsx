/*
 * The Checks after edits section of Settings: which languages' servers check the files the agent changes, how long an
 * edit waits for them, and the folders where the person let a server run.
 */

import { checkedLanguageNames, checkedLanguages, type DiagnosticsSettings } from '../../../shared/diagnostics';
import { useAppState, type AppStore } from '../store';
import { SettingsSection, settingField } from './SettingsSection';

const timeLimits = [5_000, 10_000, 20_000, 30_000, 60_000];

/** The languages checked, the time limit, and the servers allowed per folder, each of which can be taken back. */
export function CheckSettings({ store }: { store: AppStore }) {
  const settings = useAppState(store, (state) => state.settings);
  const field = settingField('checks');
  if (!settings) return null;
  const checks = settings.diagnostics;
  const update = (change: Partial<DiagnosticsSettings>): void =>
    void store.attempt(async () => store.setSettings(await store.call('settings:update', { diagnostics: change })));
  return (
    <SettingsSection
      id="checks"
      description="After the agent changes a file, a language server of the workspace (or of your PATH) is asked for its problems, which the model reads with the change. A server is a program that runs in the folder, so it runs only where you allow it, read-only and sandboxed where there is a sandbox."
    >
      <fieldset className="form" {...field('Languages checked', 'language servers')}>
        <legend>Languages checked</legend>
        {checkedLanguages.map((language) => {
          const { language: name, server } = checkedLanguageNames[language];
          return (
            <label key={language} className="row">
              <input
                type="checkbox"
                checked={checks.languages.includes(language)}
                onChange={(event) =>
                  update({
                    languages: event.target.checked
                      ? checkedLanguages.filter((item) => item === language || checks.languages.includes(item))
                      : checks.languages.filter((item) => item !== language),
                  })
                }
              />
              {name} <span className="muted small">({server})</span>
            </label>
          );
        })}
      </fieldset>
      <label {...field('How long an edit waits for the problems', 'Time limit')}>
        How long an edit waits for the problems
        <select
          aria-label="Check time limit"
          value={String(checks.timeLimitMs)}
          onChange={(event) => update({ timeLimitMs: Number(event.target.value) })}
        >
          {[...new Set([...timeLimits, checks.timeLimitMs])]
            .sort((a, b) => a - b)
            .map((ms) => (
              <option key={ms} value={String(ms)}>
                {ms / 1000} s
              </option>
            ))}
        </select>
      </label>
      {checks.allowed.length > 0 && (
        <ul className="allowed-servers" aria-label="Servers you allowed" {...field('Servers you allowed', 'folders')}>
          {checks.allowed.map((item) => (
            <li key={`${item.workspacePath}|${item.language}`} className="row">
              <span>
                {checkedLanguageNames[item.language].server} in <code>{item.workspacePath}</code>
              </span>
              <button
                type="button"
                aria-label={`Take back ${checkedLanguageNames[item.language].server} in ${item.workspacePath}`}
                onClick={() => update({ allowed: checks.allowed.filter((other) => other !== item) })}
              >
                Take back
              </button>
            </li>
          ))}
        </ul>
      )}
    </SettingsSection>
  );
}
