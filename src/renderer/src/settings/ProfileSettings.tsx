import { useEffect, useState } from 'react';
import type { Profile } from '../../../shared/profiles';
import { toolGroupLabel } from '../../../shared/tool-groups';
import { errorMessage } from '../client';
import { useLifetime } from '../disposables';
import { download } from '../download';
import { useAppState, type AppStore } from '../store';
import { draftOf, ProfileEditor } from './ProfileEditor';

const scopeLabels: Record<Profile['scope'], string> = { builtin: 'Built-in', global: 'Every workspace', workspace: 'This workspace' };

/** What editing is under way: a new profile (maybe a copy of one), or a new version of one. */
type Editing = { readonly kind: 'new'; readonly from: Profile | null } | { readonly kind: 'version'; readonly of: Profile };

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
  const defaultId = useAppState(store, (state) => state.settings?.defaultProfileId ?? 'builtin:code');
  const lifetime = useLifetime();
  const [profiles, setProfiles] = useState<Profile[]>([]);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [versions, setVersions] = useState<{ id: string; list: Profile[] } | null>(null);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
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

  return (
    <section aria-label="Agent profiles">
      <h3>Agent profiles</h3>
      <p className="muted small">
        Who the agent is in a session: its instructions, model and fallback, temperature, starting autonomy and tools. Editing a profile
        makes a new version; each turn records the version it ran with.
      </p>
      <label className="row small">
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
      <ul className="profile-list" aria-label="Profiles">
        {profiles.map((profile) => (
          <li key={profile.id} className="card profile-row">
            <div className="row">
              <strong>{profile.name}</strong>
              <span className="badge">{scopeLabels[profile.scope]}</span>
              {profile.scope !== 'builtin' && <span className="muted small">v{profile.version}</span>}
              <span className="spacer" />
              {profile.scope !== 'builtin' && (
                <button type="button" className="link small" onClick={() => setEditing({ kind: 'version', of: profile })}>
                  Edit
                </button>
              )}
              <button
                type="button"
                className="link small"
                aria-label={`Copy ${profile.name}`}
                onClick={() => setEditing({ kind: 'new', from: profile })}
              >
                Copy
              </button>
              <button
                type="button"
                className="link small"
                aria-label={`Export ${profile.name}`}
                onClick={() =>
                  void act(async () => {
                    const { fileName, document: text } = await store.call('profile:export', { profileId: profile.id });
                    download(lifetime.current, fileName, text);
                    return `Exported ${profile.name} as ${fileName}.`;
                  })
                }
              >
                Export
              </button>
              {profile.scope !== 'builtin' && (
                <>
                  <button
                    type="button"
                    className="link small"
                    aria-label={`Versions of ${profile.name}`}
                    onClick={() =>
                      void store
                        .call('profile:versions', { profileId: profile.id })
                        .then((list) => setVersions(versions?.id === profile.id ? null : { id: profile.id, list }))
                    }
                  >
                    Versions
                  </button>
                  <button
                    type="button"
                    className="link small"
                    aria-label={`Delete ${profile.name}`}
                    onClick={() =>
                      void act(async () => (await store.call('profile:delete', { profileId: profile.id }), `Deleted ${profile.name}.`))
                    }
                  >
                    Delete
                  </button>
                </>
              )}
            </div>
            <p className="muted small">
              {profile.description || profile.instructions.slice(0, 140)}
              {profile.toolGroupsOff.length > 0 && ` Off: ${profile.toolGroupsOff.map(toolGroupLabel).join(', ')}.`}
            </p>
            {versions?.id === profile.id && (
              <ol className="small" aria-label={`Versions of ${profile.name}`}>
                {versions.list.map((item) => (
                  <li key={item.version}>
                    v{item.version}, {new Date(item.createdAt).toLocaleString()}: {item.instructions.slice(0, 80)}
                  </li>
                ))}
              </ol>
            )}
          </li>
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
            setMessage({ text: `Saved ${saved.name}, version ${saved.version}.`, error: false });
            setVersion((value) => value + 1);
          }}
          onCancel={() => setEditing(null)}
        />
      ) : (
        <div className="row">
          <button type="button" onClick={() => setEditing({ kind: 'new', from: null })}>
            New profile
          </button>
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
                if (file)
                  void act(async () => {
                    const imported = await store.call('profile:import', { document: await file.text(), scope: 'global', workspacePath });
                    return `Imported ${imported.name}.`;
                  });
              }}
            />
          </label>
        </div>
      )}
      {message && (
        <p role={message.error ? 'alert' : 'status'} className={message.error ? 'message-error small' : 'small'}>
          {message.text}
        </p>
      )}
    </section>
  );
}
