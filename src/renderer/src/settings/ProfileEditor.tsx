import { useState } from 'react';
import type { Autonomy, ModelChoice } from '../../../shared/domain';
import { maxProfileInstructions, type Profile, type ProfileSettings } from '../../../shared/profiles';
import { builtInToolGroups, toolGroupLabel, type ToolGroup } from '../../../shared/tool-groups';
import { errorMessage } from '../client';
import { useAppState, type AppStore } from '../store';

/** The form's text fields, kept as typed until saved. */
interface Draft {
  name: string;
  description: string;
  instructions: string;
  model: ModelChoice | null;
  fallbackModel: ModelChoice | null;
  temperature: string;
  maxAnswerTokens: string;
  autonomy: Autonomy | null;
  toolGroupsOff: ToolGroup[];
  scope: 'global' | 'workspace';
  /** Each budget as typed; empty: the one in Settings. */
  limits: Record<LimitKey, string>;
}

type LimitKey = keyof Profile['limits'];
const limitFields: ReadonlyArray<{ key: LimitKey; label: string }> = [
  { key: 'modelCalls', label: 'Model calls a turn' },
  { key: 'toolCalls', label: 'Tool calls a turn' },
  { key: 'wallMinutes', label: 'Minutes a turn' },
  { key: 'sessionTokens', label: 'Tokens a session' },
  { key: 'sessionCostUsd', label: 'Dollars a session' },
];

export function draftOf(profile: Profile | null, copy: boolean): Draft {
  return {
    name: profile ? (copy ? `${profile.name} (copy)` : profile.name) : '',
    description: profile?.description ?? '',
    instructions: profile?.instructions ?? '',
    model: profile?.model ?? null,
    fallbackModel: profile?.fallbackModel ?? null,
    temperature: profile?.temperature === null || profile?.temperature === undefined ? '' : String(profile.temperature),
    maxAnswerTokens: profile?.maxAnswerTokens ? String(profile.maxAnswerTokens) : '',
    autonomy: profile?.autonomy ?? null,
    toolGroupsOff: [...(profile?.toolGroupsOff ?? [])],
    scope: profile?.scope === 'workspace' ? 'workspace' : 'global',
    limits: Object.fromEntries(
      limitFields.map(({ key }) => {
        const value = profile?.limits[key];
        return [key, value === undefined || value === null ? '' : String(value)];
      }),
    ) as Record<LimitKey, string>,
  };
}

/** The draft as the channel takes it; numbers the person left empty are the server's or the app's defaults. */
export function settingsOf(draft: Draft): ProfileSettings {
  return {
    name: draft.name,
    description: draft.description,
    instructions: draft.instructions,
    model: draft.model,
    fallbackModel: draft.fallbackModel,
    temperature: draft.temperature.trim() === '' ? null : Number(draft.temperature),
    maxAnswerTokens: draft.maxAnswerTokens.trim() === '' ? null : Number(draft.maxAnswerTokens),
    autonomy: draft.autonomy,
    toolGroupsOff: draft.toolGroupsOff,
    limits: Object.fromEntries(
      limitFields.filter(({ key }) => draft.limits[key].trim() !== '').map(({ key }) => [key, Number(draft.limits[key])]),
    ),
  };
}

function ModelField({
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

/** Creates a profile, or saves a new version of one: every field of a profile, checked by the main process when saved. */
export function ProfileEditor({
  store,
  editing,
  initial,
  workspacePath,
  onSaved,
  onCancel,
}: {
  store: AppStore;
  /** The profile a new version is made of; null for a new profile. */
  editing: Profile | null;
  initial: Draft;
  workspacePath: string | null;
  onSaved: (profile: Profile) => void;
  onCancel: () => void;
}) {
  // The object itself is selected: a new array of its keys at every read would never settle.
  const servers = useAppState(store, (state) => state.settings?.mcpServers);
  const mcpServers = Object.keys(servers ?? {});
  const [draft, setDraft] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]): void => setDraft((current) => ({ ...current, [key]: value }));
  const groups: ToolGroup[] = [...builtInToolGroups, ...mcpServers.map((name): ToolGroup => `mcp:${name}`)];
  const save = async (): Promise<void> => {
    try {
      onSaved(
        await store.call('profile:save', {
          ...(editing ? { profileId: editing.id } : {}),
          scope: draft.scope,
          workspacePath,
          settings: settingsOf(draft),
        }),
      );
    } catch (failure) {
      setError(errorMessage(failure));
    }
  };
  return (
    <form
      className="form profile-editor"
      aria-label={editing ? `Edit ${editing.name}` : 'New profile'}
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <label>
        Name
        <input value={draft.name} maxLength={80} onChange={(event) => set('name', event.target.value)} />
      </label>
      <label>
        Description
        <input value={draft.description} maxLength={300} onChange={(event) => set('description', event.target.value)} />
      </label>
      <label>
        Instructions
        <textarea
          rows={6}
          value={draft.instructions}
          maxLength={maxProfileInstructions}
          onChange={(event) => set('instructions', event.target.value)}
        />
      </label>
      <ModelField store={store} label="Model" value={draft.model} onChange={(next) => set('model', next)} />
      <ModelField store={store} label="Fallback model" value={draft.fallbackModel} onChange={(next) => set('fallbackModel', next)} />
      <div className="row small">
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
      {!editing && (
        <label className="small">
          For
          <select value={draft.scope} onChange={(event) => set('scope', event.target.value as Draft['scope'])}>
            <option value="global">every workspace</option>
            <option value="workspace" disabled={!workspacePath}>
              this workspace only
            </option>
          </select>
        </label>
      )}
      {error && (
        <p role="alert" className="message-error small">
          {error}
        </p>
      )}
      <div className="row">
        <button type="submit">{editing ? `Save as version ${editing.version + 1}` : 'Create profile'}</button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
