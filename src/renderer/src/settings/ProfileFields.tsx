/*
 * The profile editor's groups of fields: a model and its endpoint, the temperature, answer tokens and starting
 * autonomy, the budgets, and the tools.
 */

import type { Autonomy, ModelChoice } from '../../../shared/domain';
import { toolGroupLabel, type ToolGroup } from '../../../shared/tool-groups';
import { useAppState, type AppStore } from '../store';
import { limitFields, type Draft, type SetDraftField } from './profile-draft';

/** A model of a profile: an endpoint, or none, and a model it lists (or any name typed). */
export function ModelField({
  store,
  label,
  value,
  onChange,
}: {
  store: AppStore;
  label: string;
  value: ModelChoice | null;
  onChange: (next: ModelChoice | null) => void;
}) {
  const providers = useAppState(store, (state) => state.providers);
  const endpoints = useAppState(store, (state) => state.endpoints);
  const known = value ? endpoints[value.providerId] : undefined;
  const listId = `${label.replace(/\W+/g, '-')}-models`;
  return (
    <fieldset className="row small profile-model">
      <legend>{label}</legend>
      <select
        aria-label={`${label}: endpoint`}
        value={value?.providerId ?? ''}
        onChange={(event) => onChange(event.target.value === '' ? null : { providerId: event.target.value, model: value?.model ?? '' })}
      >
        <option value="">None</option>
        {providers.map((provider) => (
          <option key={provider.id} value={provider.id}>
            {provider.name}
          </option>
        ))}
      </select>
      {value && (
        <>
          <input
            aria-label={`${label}: model`}
            list={listId}
            value={value.model}
            onChange={(event) => onChange({ ...value, model: event.target.value })}
          />
          <datalist id={listId}>
            {known?.state === 'ok' && known.models.map((model) => <option key={model.id} value={model.id} />)}
          </datalist>
        </>
      )}
    </fieldset>
  );
}

/** How a profile's model answers and how much it may do at first: temperature, answer tokens, starting autonomy. */
export function TuningFields({ draft, set }: { draft: Draft; set: SetDraftField }) {
  return (
    <div className="row small profile-tuning">
      <label>
        Temperature
        <input
          type="number"
          min={0}
          max={2}
          step={0.1}
          placeholder="server default"
          value={draft.temperature}
          onChange={(event) => set('temperature', event.target.value)}
        />
      </label>
      <label>
        Answer tokens
        <input
          type="number"
          min={256}
          max={128000}
          step={256}
          placeholder="from Settings"
          value={draft.maxAnswerTokens}
          onChange={(event) => set('maxAnswerTokens', event.target.value)}
        />
      </label>
      <label>
        Starting autonomy
        <select
          value={draft.autonomy ?? ''}
          onChange={(event) => set('autonomy', event.target.value === '' ? null : (event.target.value as Autonomy))}
        >
          <option value="">From Settings</option>
          <option value="L0">L0 observe</option>
          <option value="L1">L1 recommend</option>
          <option value="L2">L2 assisted</option>
          <option value="L3">L3 supervised</option>
        </select>
      </label>
    </div>
  );
}

/** A profile's own budgets; an empty one is the budget in Settings. */
export function LimitFields({ draft, set }: { draft: Draft; set: SetDraftField }) {
  return (
    <fieldset className="row small profile-limits">
      <legend>Budgets (empty: as in Settings)</legend>
      {limitFields.map(({ key, label }) => (
        <label key={key}>
          {label}
          <input
            type="number"
            min={key === 'sessionCostUsd' ? 0.01 : 1}
            step={key === 'sessionCostUsd' ? 0.01 : 1}
            value={draft.limits[key]}
            onChange={(event) => set('limits', { ...draft.limits, [key]: event.target.value })}
          />
        </label>
      ))}
    </fieldset>
  );
}

/** The tool groups a profile offers the model, each with a switch. */
export function ToolGroupFields({ draft, set, groups }: { draft: Draft; set: SetDraftField; groups: readonly ToolGroup[] }) {
  return (
    <fieldset className="small">
      <legend>Tools</legend>
      {groups.map((group) => (
        <label key={group} className="row">
          <input
            type="checkbox"
            checked={!draft.toolGroupsOff.includes(group)}
            onChange={(event) =>
              set(
                'toolGroupsOff',
                event.target.checked ? draft.toolGroupsOff.filter((other) => other !== group) : [...draft.toolGroupsOff, group],
              )
            }
          />
          {toolGroupLabel(group)}
        </label>
      ))}
    </fieldset>
  );
}
