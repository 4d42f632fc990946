/*
 * The Behaviour section of Settings (the model and autonomy of new sessions, the plan threshold, sub-agents, the
 * commands' CPU priority, the theme) and the Trust grants section.
 */

import type { Autonomy, Settings } from '../../../shared/domain';
import { useAppState, type AppStore } from '../store';
import { AutonomyOptions } from '../status-bar/AutonomyOptions';
import { DefaultModelSettings } from './DefaultModelSettings';
import { TrustGrants } from '../status-bar/TrustGrants';
import { SettingsSection, settingField } from './SettingsSection';

/** How the agent behaves by default. */
export function BehaviourSettings({ store }: { store: AppStore }) {
  const settings = useAppState(store, (state) => state.settings);
  const field = settingField('behaviour');
  if (!settings) return null;
  const update = (
    change: Partial<
      Pick<Settings, 'defaultAutonomy' | 'planThreshold' | 'theme' | 'commandPriority' | 'subAgentConcurrency' | 'subAgentDepth'>
    >,
  ): void => void store.attempt(async () => store.setSettings(await store.call('settings:update', change)));
  return (
    <SettingsSection id="behaviour">
      <DefaultModelSettings store={store} />
      <div className="form behaviour">
        <label {...field('Autonomy of new sessions', 'observe, recommend, assisted, supervised')}>
          Autonomy of new sessions
          <select
            aria-label="Default autonomy"
            value={settings.defaultAutonomy}
            onChange={(event) => update({ defaultAutonomy: event.target.value as Autonomy })}
          >
            <AutonomyOptions />
          </select>
        </label>
        <label {...field('Show a plan from this many tool calls', 'Plan threshold')}>
          Show a plan from this many tool calls
          <input
            aria-label="Plan threshold"
            type="number"
            min={2}
            max={50}
            value={settings.planThreshold}
            onChange={(event) => event.target.valueAsNumber >= 2 && update({ planThreshold: event.target.valueAsNumber })}
          />
        </label>
        <label
          {...field(
            'Sub-agents at once',
            'How many sub-agents work at the same time, over every session; no more than a llama.cpp server has slots',
          )}
        >
          Sub-agents at once
          <input
            aria-label="Sub-agents at once"
            type="number"
            min={1}
            max={8}
            value={settings.subAgentConcurrency}
            onChange={(event) =>
              event.target.valueAsNumber >= 1 &&
              event.target.valueAsNumber <= 8 &&
              update({ subAgentConcurrency: event.target.valueAsNumber })
            }
          />
        </label>
        <label {...field('How deep sub-agents may hand work on', 'Delegation depth: 0 turns sub-agents off')}>
          How deep sub-agents may hand work on (0: none)
          <input
            aria-label="Sub-agent depth"
            type="number"
            min={0}
            max={4}
            value={settings.subAgentDepth}
            onChange={(event) =>
              event.target.valueAsNumber >= 0 && event.target.valueAsNumber <= 4 && update({ subAgentDepth: event.target.valueAsNumber })
            }
          />
        </label>
        <label {...field("CPU priority of the agent's commands", 'Lower than the app: it stays responsive while they run')}>
          CPU priority of the agent&apos;s commands
          <select
            aria-label="Command priority"
            value={settings.commandPriority}
            onChange={(event) => update({ commandPriority: event.target.value as Settings['commandPriority'] })}
          >
            <option value="lower">Lower than the app: it stays responsive while they run</option>
            <option value="normal">The same as the app</option>
          </select>
        </label>
        <label {...field('Theme', 'Light, dark or as the system')}>
          Theme
          <select
            aria-label="Theme"
            value={settings.theme}
            onChange={(event) => update({ theme: event.target.value as 'system' | 'light' | 'dark' })}
          >
            <option value="system">As the system</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
      </div>
    </SettingsSection>
  );
}

/** The trust grants in force, each with its countdown and a way to revoke it. */
export function TrustGrantSettings({ store }: { store: AppStore }) {
  const field = settingField('trust');
  return (
    <SettingsSection id="trust">
      <div {...field('Trust grants in force', 'Answer a gate with a duration to make one; revoke it here.')}>
        <TrustGrants store={store} empty={<p className="muted small">None. Answer a gate with a duration to make one.</p>} />
      </div>
    </SettingsSection>
  );
}
