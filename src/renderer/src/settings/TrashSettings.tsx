/*
 * The Trash section of Settings: what the agent deleted, newest first, each with Restore; an entry that does not open
 * is shown with why.
 */

import { useEffect, useState } from 'react';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import type { AppStore } from '../store';
import { SettingsSection, settingField } from './SettingsSection';

type Listed = ChannelOutput<'trash:list'>[number];
type Entry = Exclude<Listed, { error: unknown }>;
type Unreadable = Extract<Listed, { error: unknown }>;

/** What the agent deleted, newest first, each with Restore. */
export function TrashSettings({ store }: { store: AppStore }) {
  const [listed, setListed] = useState<Listed[]>([]);
  const field = settingField('trash');
  const refresh = (): void => void store.attempt(async () => setListed(await store.call('trash:list', {})));
  const entries = listed.filter((entry): entry is Entry => !('error' in entry));
  const unreadable = listed.filter((entry): entry is Unreadable => 'error' in entry);
  useEffect(refresh, [store]);
  return (
    <SettingsSection id="trash">
      {listed.length === 0 && (
        <p className="muted small" {...field('Deleted files', 'Nothing deleted by the agent.')}>
          Nothing deleted by the agent.
        </p>
      )}
      <ul className="providers">
        {entries.map((entry) => (
          <li key={entry.id} className="card row" {...field(entry.relativePath, `${entry.workspacePath} deleted restore`)}>
            <code className="small">
              {entry.relativePath}
              {entry.directory ? '/' : ''}
            </code>
            <span className="muted small">
              {entry.workspacePath} · {new Date(entry.deletedAt).toLocaleString()}
            </span>
            <span className="spacer" />
            <button
              type="button"
              aria-label={`Restore ${entry.relativePath}`}
              onClick={() =>
                void store.attempt(async () => {
                  await store.call('trash:restore', { id: entry.id });
                  store.noteWorkspaceChanged(entry.workspacePath);
                  refresh();
                })
              }
            >
              Restore
            </button>
          </li>
        ))}
        {unreadable.map((entry) => (
          <li key={entry.id} className="card row" role="alert" {...field(`Entry ${entry.id}`, 'does not open sealed key')}>
            <span className="small">{entry.error.message}</span>
          </li>
        ))}
      </ul>
    </SettingsSection>
  );
}
