/*
 * One agent profile in the Settings list: its name, scope, version and description, its actions, and its versions when
 * asked for.
 */

import type { Profile } from '../../../shared/profiles';
import { toolGroupLabel } from '../../../shared/tool-groups';
import { settingField } from './SettingsSection';

const scopeLabels: Record<Profile['scope'], string> = { builtin: 'Built-in', global: 'Every workspace', workspace: 'This workspace' };

/** What can be done with a profile from its row. A built-in profile is copied, never edited, listed or deleted. */
export interface ProfileRowActions {
  readonly onEdit: () => void;
  readonly onCopy: () => void;
  readonly onExport: () => void;
  readonly onVersions: () => void;
  readonly onDelete: () => void;
}

/** One profile in the list: its name, where it applies, its version and what it is for, and its versions when shown. */
export function ProfileRow({
  profile,
  versions,
  actions,
}: {
  profile: Profile;
  /** Its versions, when the person asked for them. */
  versions: readonly Profile[] | null;
  actions: ProfileRowActions;
}) {
  const own = profile.scope !== 'builtin';
  const field = settingField('profiles');
  return (
    <li className="card profile-row" {...field(profile.name, `${scopeLabels[profile.scope]} profile ${profile.description}`)}>
      <div className="row">
        <strong>{profile.name}</strong>
        <span className="badge">{scopeLabels[profile.scope]}</span>
        {own && <span className="muted small">v{profile.version}</span>}
        <span className="spacer" />
        {own && (
          <button type="button" className="link small" onClick={actions.onEdit}>
            Edit
          </button>
        )}
        <button type="button" className="link small" aria-label={`Copy ${profile.name}`} onClick={actions.onCopy}>
          Copy
        </button>
        <button type="button" className="link small" aria-label={`Export ${profile.name}`} onClick={actions.onExport}>
          Export
        </button>
        {own && (
          <>
            <button type="button" className="link small" aria-label={`Versions of ${profile.name}`} onClick={actions.onVersions}>
              Versions
            </button>
            <button type="button" className="link small" aria-label={`Delete ${profile.name}`} onClick={actions.onDelete}>
              Delete
            </button>
          </>
        )}
      </div>
      <p className="muted small">
        {profile.description || profile.instructions.slice(0, 140)}
        {profile.toolGroupsOff.length > 0 && ` Off: ${profile.toolGroupsOff.map(toolGroupLabel).join(', ')}.`}
      </p>
      {versions && (
        <ol className="small" aria-label={`Versions of ${profile.name}`}>
          {versions.map((item) => (
            <li key={item.version}>
              v{item.version}, {new Date(item.createdAt).toLocaleString()}: {item.instructions.slice(0, 80)}
            </li>
          ))}
        </ol>
      )}
    </li>
  );
}
