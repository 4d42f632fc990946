/*
 * The Command limits section of Settings: the memory, processes, CPU time and output one of the agent's commands may
 * use before it is stopped.
 */

import { useEffect, useState } from 'react';
import { commandLimitBounds, defaultCommandLimits, type CommandLimits } from '../../../shared/domain';
import { useAppState, type AppStore } from '../store';
import { SettingsSection, settingField } from './SettingsSection';

type Name = keyof CommandLimits;

/** How each limit is shown: its words, its unit, and how a typed number becomes the stored one. */
const fields: ReadonlyArray<{
  name: Name;
  label: string;
  unit: string;
  toStored: (typed: number) => number;
  toShown: (stored: number) => number;
}> = [
  { name: 'memoryMb', label: 'Memory per process', unit: 'MB', toStored: (typed) => typed, toShown: (stored) => stored },
  {
    name: 'processes',
    label: 'Processes and threads at once, in the sandbox',
    unit: '',
    toStored: (typed) => typed,
    toShown: (stored) => stored,
  },
  {
    name: 'cpuSeconds',
    label: 'CPU time per process',
    unit: 'minutes',
    toStored: (typed) => Math.round(typed * 60),
    toShown: (stored) => Math.round((stored / 60) * 100) / 100,
  },
  { name: 'outputMb', label: 'Output of a command', unit: 'MB', toStored: (typed) => typed, toShown: (stored) => stored },
];

type Drafts = Record<Name, string>;

const shown = (limits: CommandLimits): Drafts =>
  Object.fromEntries(fields.map((field) => [field.name, String(field.toShown(limits[field.name]))])) as Drafts;

/** The stored value of what was typed, or why it cannot be one. */
function read(field: (typeof fields)[number], text: string): { value: number } | { problem: string } {
  const typed = Number(text);
  if (text.trim() === '' || !Number.isFinite(typed)) return { problem: 'Enter a number.' };
  const value = field.toStored(typed);
  const { min, max } = commandLimitBounds[field.name];
  if (!Number.isInteger(value)) return { problem: 'Enter a whole number.' };
  if (value < min || value > max) {
    return {
      problem:
        `From ${field.toShown(min).toLocaleString('en-US')} to ${field.toShown(max).toLocaleString('en-US')} ${field.unit}`.trim() + '.',
    };
  }
  return { value };
}

/**
 * The resources one of the agent's commands may use before it is stopped. The numbers are typed freely and saved together,
 * once every one is within its bounds.
 */
export function CommandLimitsSettings({ store }: { store: AppStore }) {
  const limits = useAppState(store, (state) => state.settings?.commandLimits);
  const [drafts, setDrafts] = useState<Drafts>(() => shown(limits ?? defaultCommandLimits));
  const fieldOf = settingField('command-limits');
  const { memoryMb, processes, cpuSeconds, outputMb } = limits ?? defaultCommandLimits;
  // What was saved (here, or before a reload) is shown again.
  useEffect(() => setDrafts(shown({ memoryMb, processes, cpuSeconds, outputMb })), [memoryMb, processes, cpuSeconds, outputMb]);
  if (!limits) return null;
  const readings = fields.map((field) => ({ field, reading: read(field, drafts[field.name]) }));
  const valid = readings.every(({ reading }) => 'value' in reading);
  const changed = fields.some((field) => drafts[field.name] !== shown(limits)[field.name]);
  const save = (next: CommandLimits): void =>
    void store.attempt(async () => store.setSettings(await store.call('settings:update', { commandLimits: next })));
  return (
    <SettingsSection id="command-limits">
      <form
        className="form behaviour"
        aria-label="Limits of the agent's commands"
        onSubmit={(event) => {
          event.preventDefault();
          if (!valid) return;
          save(
            Object.fromEntries(readings.map(({ field, reading }) => [field.name, 'value' in reading ? reading.value : 0])) as CommandLimits,
          );
        }}
      >
        {readings.map(({ field, reading }) => (
          <label key={field.name} {...fieldOf(field.label, `${field.unit} limit of a command`)}>
            {field.label}
            <span className="row">
              <input
                aria-label={field.label}
                type="number"
                min={field.toShown(commandLimitBounds[field.name].min)}
                max={field.toShown(commandLimitBounds[field.name].max)}
                step="any"
                value={drafts[field.name]}
                aria-invalid={'problem' in reading}
                onChange={(event) => setDrafts({ ...drafts, [field.name]: event.target.value })}
              />
              {field.unit && <span className="muted small">{field.unit}</span>}
              {'problem' in reading && (
                <span className="error small" role="alert">
                  {reading.problem}
                </span>
              )}
            </span>
          </label>
        ))}
        <span className="row">
          <button type="submit" className="primary" disabled={!valid || !changed}>
            Save limits
          </button>
          <button type="button" onClick={() => save(defaultCommandLimits)}>
            Use the defaults
          </button>
        </span>
      </form>
      <p className="muted small" {...fieldOf('What a limit does', 'A command that passes a limit is stopped')}>
        A command that passes a limit is stopped, and the agent is told which limit and that you can raise it here. Memory and CPU time
        count for each process (its CPU time summed over its threads). Processes are limited only inside the Linux sandbox: elsewhere the
        system counts them for your whole account, so a limit there would count every program you run. Too much output stops the command as
        a timeout does.
      </p>
    </SettingsSection>
  );
}
