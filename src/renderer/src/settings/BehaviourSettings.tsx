/*
 * The Behaviour section of Settings (the model and autonomy of new sessions, the plan threshold, sub-agents, the
 * commands' CPU priority, the theme) and the Trust grants section.
 */

import type { Autonomy, GateTimeout, Settings } from '../../../shared/domain';
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
      Pick<
        Settings,
        'defaultAutonomy' | 'planThreshold' | 'theme' | 'commandPriority' | 'subAgentConcurrency' | 'subAgentDepth' | 'gateTimeout'
      >
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
        <GateTimeoutFields timeout={settings.gateTimeout} field={field} onChange={(gateTimeout) => update({ gateTimeout })} />
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

/** The time limits a gate may be given, in seconds: none, or a few minutes to an hour. */
const gateLimits: ReadonlyArray<{ seconds: number | null; label: string }> = [
  { seconds: null, label: 'Until answered' },
  { seconds: 60, label: '1 minute' },
  { seconds: 5 * 60, label: '5 minutes' },
  { seconds: 15 * 60, label: '15 minutes' },
  { seconds: 30 * 60, label: '30 minutes' },
  { seconds: 60 * 60, label: '1 hour' },
];

/** How long an approval gate waits at each autonomy level, and what happens when it ends unanswered. */
function GateTimeoutFields({
  timeout,
  field,
  onChange,
}: {
  timeout: GateTimeout;
  field: ReturnType<typeof settingField>;
  onChange: (timeout: GateTimeout) => void;
}) {
  const levels: ReadonlyArray<{ level: Autonomy; name: string }> = [
    { level: 'L0', name: 'L0 observe' },
    { level: 'L1', name: 'L1 recommend' },
    { level: 'L2', name: 'L2 assisted' },
    { level: 'L3', name: 'L3 supervised' },
  ];
  return (
    <fieldset
      className="gate-timeouts"
      {...field('How long a gate waits', 'Gate time limit per autonomy level: after it, the call is denied or the turn stops')}
    >
      <legend>How long a gate waits for your answer</legend>
      {levels.map(({ level, name }) => {
        const seconds = timeout.seconds[level];
        const listed = gateLimits.some((limit) => limit.seconds === seconds);
        return (
          <label key={level} className="row small">
            {name}
            <select
              aria-label={`Gate time limit at ${level}`}
              value={seconds === null ? '' : String(seconds)}
              onChange={(event) =>
                onChange({
                  ...timeout,
                  seconds: { ...timeout.seconds, [level]: event.target.value === '' ? null : Number(event.target.value) },
                })
              }
            >
              {gateLimits.map((limit) => (
                <option key={limit.label} value={limit.seconds === null ? '' : String(limit.seconds)}>
                  {limit.label}
                </option>
              ))}
              {!listed && seconds !== null && <option value={String(seconds)}>{seconds} seconds</option>}
            </select>
          </label>
        );
      })}
      <label className="row small">
        When no answer comes in time
        <select
          aria-label="When a gate times out"
          value={timeout.action}
          onChange={(event) => onChange({ ...timeout, action: event.target.value as GateTimeout['action'] })}
        >
          <option value="deny">Deny the call; the agent goes on</option>
          <option value="stop">Deny the call and stop the turn</option>
        </select>
      </label>
    </fieldset>
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
