/*
 * The profile editor: the form that creates a profile or saves a new version of one.
 */

import { useState } from 'react';
import { maxProfileInstructions, type Profile } from '../../../shared/profiles';
import { builtInToolGroups, type ToolGroup } from '../../../shared/tool-groups';
import { errorMessage } from '../client';
import { useAppState, type AppStore } from '../store';
import { settingsOf, type Draft, type SetDraftField } from './profile-draft';
import { LimitFields, ModelField, ToolGroupFields, TuningFields } from './ProfileFields';

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
  const set: SetDraftField = (key, value) => setDraft((current) => ({ ...current, [key]: value }));
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
      <TuningFields draft={draft} set={set} />
      <LimitFields draft={draft} set={set} />
      <ToolGroupFields draft={draft} set={set} groups={groups} />
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
