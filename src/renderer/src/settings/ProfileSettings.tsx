/*
 * The Agent profiles section of Settings: the built-in profiles and the person's own with their versions, to create,
 * copy, edit, export, import and delete.
 */

import { useEffect, useState } from 'react';
import type { Profile } from '../../../shared/profiles';
import { errorMessage } from '../client';
import { useLifetime } from '../disposables';
import { download } from '../download';
import { useAppState, type AppStore } from '../store';
import { draftOf } from './profile-draft';
import { ProfileEditor } from './ProfileEditor';
import { ProfileRow } from './ProfileRow';
import { SettingsSection, settingField } from './SettingsSection';

/** What editing is under way: a new profile (maybe a copy of one), or a new version of one. */
type Editing = { readonly kind: 'new'; readonly from: Profile | null } | { readonly kind: 'version'; readonly of: Profile };

/** What came of the last thing done with the profiles, said under the list. */
type ProfilesMessage = { readonly text: string; readonly error: boolean };

/**
 * The profiles there are for the workspace, asked again after each change. `act` runs a change and says what came of
 * it; `changed` asks again after a change made elsewhere (the editor's save).
 */
function useProfiles(store: AppStore, workspacePath: string | null) {
  const [profiles, setProfiles] = useState<Profile[]>([]);
  const [message, setMessage] = useState<ProfilesMessage | null>(null);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let live = true;
    store.call('profile:list', { workspacePath }).then(
      (found) => live && setProfiles(found),
      (failure: unknown) => live && setMessage({ text: errorMessage(failure), error: true }),
    );
    return () => {
      live = false;
    };
  }, [store, workspacePath, version]);

  const act = async (work: () => Promise<string>): Promise<void> => {
    try {
      setMessage({ text: await work(), error: false });
      setVersion((value) => value + 1);
    } catch (failure) {
      setMessage({ text: errorMessage(failure), error: true });
    }
  };
  const changed = (text: string): void => {
    setMessage({ text, error: false });
    setVersion((value) => value + 1);
  };
  return { profiles, message, act, changed };
}

/** The profile new sessions start with. */
function DefaultProfile({ store, profiles }: { store: AppStore; profiles: readonly Profile[] }) {
  const defaultId = useAppState(store, (state) => state.settings?.defaultProfileId ?? 'builtin:code');
  const field = settingField('profiles');
  return (
    <label className="row small" {...field('New sessions start with', 'Default profile')}>
      New sessions start with
      <select
        aria-label="Default profile"
        value={defaultId}
        onChange={(event) =>
          void store.attempt(async () => store.setSettings(await store.call('settings:update', { defaultProfileId: event.target.value })))
        }
      >
        {profiles.map((profile) => (
          <option key={profile.id} value={profile.id}>
            {profile.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** "Import a profile…": a profile's JSON, as exported, made a profile for every workspace. */
function ProfileImport({ onFile }: { onFile: (file: File) => void }) {
  return (
    <label className="import-session link small">
      Import a profile…
      <input
        type="file"
        accept=".json,application/json"
        aria-label="Import a profile"
        hidden
        onChange={(event) => {
          const file = event.target.files?.[0];
          event.target.value = '';
          if (file) onFile(file);
        }}
      />
    </label>
  );
}

/**
 * Agent profiles: the built-in ones to start from, the person's own (for every workspace or the selected session's),
 * each with its versions; new, copy, edit (a new version), export and import as JSON, delete, and the default for new
 * sessions.
 */
export function ProfileSettings({ store }: { store: AppStore }) {
  const workspacePath = useAppState(
    store,
    (state) => state.sessions.find((session) => session.id === state.selectedId)?.workspacePath ?? null,
  );
  const lifetime = useLifetime();
  const { profiles, message, act, changed } = useProfiles(store, workspacePath);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [versions, setVersions] = useState<{ id: string; list: Profile[] } | null>(null);
  const field = settingField('profiles');

  return (
    <SettingsSection
      id="profiles"
      description="Who the agent is in a session: its instructions, model and fallback, temperature, starting autonomy and tools. Editing a profile makes a new version; each turn records the version it ran with."
    >
      <DefaultProfile store={store} profiles={profiles} />
      <ul className="profile-list" aria-label="Profiles">
        {profiles.map((profile) => (
          <ProfileRow
            key={profile.id}
            profile={profile}
            versions={versions?.id === profile.id ? versions.list : null}
            actions={{
              onEdit: () => setEditing({ kind: 'version', of: profile }),
              onCopy: () => setEditing({ kind: 'new', from: profile }),
              onExport: () =>
                void act(async () => {
                  const { fileName, document: text } = await store.call('profile:export', { profileId: profile.id });
                  download(lifetime.current, fileName, text);
                  return `Exported ${profile.name} as ${fileName}.`;
                }),
              onVersions: () =>
                void store
                  .call('profile:versions', { profileId: profile.id })
                  .then((list) => setVersions(versions?.id === profile.id ? null : { id: profile.id, list })),
              onDelete: () =>
                void act(async () => (await store.call('profile:delete', { profileId: profile.id }), `Deleted ${profile.name}.`)),
            }}
          />
        ))}
      </ul>
      {editing ? (
        <ProfileEditor
          key={editing.kind === 'new' ? `new-${editing.from?.id ?? ''}` : `${editing.of.id}-${editing.of.version}`}
          store={store}
          editing={editing.kind === 'version' ? editing.of : null}
          initial={draftOf(editing.kind === 'new' ? editing.from : editing.of, editing.kind === 'new' && editing.from !== null)}
          workspacePath={workspacePath}
          onSaved={(saved) => {
            setEditing(null);
            changed(`Saved ${saved.name}, version ${saved.version}.`);
          }}
          onCancel={() => setEditing(null)}
        />
      ) : (
        <div className="row" {...field('New profile', 'Import a profile from JSON')}>
          <button type="button" onClick={() => setEditing({ kind: 'new', from: null })}>
            New profile
          </button>
          <ProfileImport
            onFile={(file) =>
              void act(async () => {
                const imported = await store.call('profile:import', { document: await file.text(), scope: 'global', workspacePath });
                return `Imported ${imported.name}.`;
              })
            }
          />
        </div>
      )}
      {message && (
        <p role={message.error ? 'alert' : 'status'} className={message.error ? 'message-error small' : 'small'}>
          {message.text}
        </p>
      )}
    </SettingsSection>
  );
}
