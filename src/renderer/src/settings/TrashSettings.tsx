/*
 * The Trash section of Settings: what the agent deleted, newest first, each with Restore.
 */

import { useEffect, useState } from 'react';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import type { AppStore } from '../store';
import { SettingsSection, settingField } from './SettingsSection';

type Entry = ChannelOutput<'trash:list'>[number];

/** What the agent deleted, newest first, each with Restore. */
export function TrashSettings({ store }: { store: AppStore }) {
  const [entries, setEntries] = useState<Entry[]>([]);
  const field = settingField('trash');
  const refresh = (): void => void store.attempt(async () => setEntries(await store.call('trash:list', {})));
  useEffect(refresh, [store]);
  return (
    <SettingsSection id="trash">
      {entries.length === 0 && (
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
      </ul>
    </SettingsSection>
  );
}
