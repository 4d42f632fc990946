/*
 * The Trash section of Settings: what the agent deleted, newest first, each with Restore; an entry that does not open
 * is shown with why, and so is a restore that fails, at its entry.
 */

import { useEffect, useState } from 'react';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import { errorMessage } from '../client';
import type { AppStore } from '../store';
import { SettingsSection, settingField } from './SettingsSection';
import { trashRows, type TrashListEntry } from './trash-rows';

/** What the agent deleted, newest first, each with Restore. */
export function TrashSettings({ store }: { store: AppStore }) {
  const [listed, setListed] = useState<ChannelOutput<'trash:list'>>([]);
  /** The message of each entry's last restore that failed: said at the entry, as the dialog covers the app's notice. */
  const [failures, setFailures] = useState<ReadonlyMap<string, string>>(new Map());
  const field = settingField('trash');
  const refresh = (): void => void store.attempt(async () => setListed(await store.call('trash:list', {})));
  const failed = (id: string, message: string | null): void =>
    setFailures((before) => {
      const after = new Map(before);
      if (message === null) after.delete(id);
      else after.set(id, message);
      return after;
    });
  const restore = async (entry: TrashListEntry): Promise<void> => {
    failed(entry.id, null);
    try {
      await store.call('trash:restore', { id: entry.id });
      store.noteWorkspaceChanged(entry.workspacePath);
    } catch (error) {
      failed(entry.id, errorMessage(error));
    }
    refresh();
  };
  useEffect(refresh, [store]);
  return (
    <SettingsSection id="trash">
      {listed.length === 0 && (
        <p className="muted small" {...field('Deleted files', 'Nothing deleted by the agent.')}>
          Nothing deleted by the agent.
        </p>
      )}
      <ul className="providers" aria-label="Deleted files">
        {trashRows(listed, failures).map((row) =>
          row.kind === 'entry' ? (
            <li key={row.entry.id} className="card row" {...field(row.entry.relativePath, `${row.entry.workspacePath} deleted restore`)}>
              <code className="small">
                {row.entry.relativePath}
                {row.entry.directory ? '/' : ''}
              </code>
              <span className="muted small">
                {row.entry.workspacePath} · {new Date(row.entry.deletedAt).toLocaleString()}
              </span>
              <span className="spacer" />
              <button type="button" aria-label={`Restore ${row.entry.relativePath}`} onClick={() => void restore(row.entry)}>
                Restore
              </button>
              {row.failure !== null && (
                <p className="error small trash-failure" role="alert">
                  {row.failure}
                </p>
              )}
            </li>
          ) : (
            <li key={row.id} className="card row" {...field(`Entry ${row.id}`, 'does not open sealed key')}>
              <span className="small" role="alert">
                {row.message}
              </span>
            </li>
          ),
        )}
      </ul>
    </SettingsSection>
  );
}
