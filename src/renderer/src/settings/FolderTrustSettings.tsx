/*
 * The Trusted folders section of Settings: the person's decisions about folders, each turned around or taken back,
 * and a folder (with every folder under it) trusted from a dialog.
 */

import { useEffect, useState } from 'react';
import type { FolderTrustEntry, FolderTrustList } from '../../../shared/folder-trust';
import { useAppState, type AppStore } from '../store';
import { SettingsSection, settingField } from './SettingsSection';

const scopeWords = (entry: FolderTrustEntry): string => (entry.scope === 'tree' ? 'and every folder under it' : 'this folder only');

/** The decisions kept, with what each covers; the problem with the trust file when it could not be used. */
export function FolderTrustSettings({ store }: { store: AppStore }) {
  const announced = useAppState(store, (state) => state.folderTrust);
  const [list, setList] = useState<FolderTrustList | null>(null);
  const field = settingField('folders');
  useEffect(() => {
    void store.attempt(async () => setList(await store.call('folder-trust:list', {})));
  }, [store, announced]);
  const change = (work: () => Promise<FolderTrustList>): void => void store.attempt(async () => setList(await work()));
  const folders = [...(list?.folders ?? [])].sort((a, b) => a.path.localeCompare(b.path));
  return (
    <SettingsSection id="folders">
      <p className="muted small" {...field('Folder trust', 'trust restricted mode instruction files autonomy')}>
        A folder you trust may steer the agent: its instruction files go to the model and its autonomy is yours. Any other runs restricted:
        its instruction files are held back and every change asks. Kept in <code>{list?.file}</code>, which you may edit by hand.
      </p>
      {list?.problem && (
        <p className="error small" role="alert">
          {list.problem}
        </p>
      )}
      {folders.length === 0 && <p className="muted small">No folder decided yet: each is asked about when a session first uses it.</p>}
      <ul className="providers">
        {folders.map((entry) => (
          <li
            key={`${entry.scope}:${entry.path}`}
            className="card row"
            {...field(entry.path, `${entry.trusted ? 'trusted' : 'restricted'} folder`)}
          >
            <code className="small">{entry.path}</code>
            <span className="muted small">
              {entry.trusted ? 'Trusted' : 'Restricted'}, {scopeWords(entry)}
            </span>
            <span className="spacer" />
            <button
              type="button"
              aria-label={`${entry.trusted ? 'Restrict' : 'Trust'} ${entry.path}`}
              onClick={() =>
                change(() => store.call('folder-trust:set', { path: entry.path, scope: entry.scope, trusted: !entry.trusted }))
              }
            >
              {entry.trusted ? 'Restrict' : 'Trust'}
            </button>
            <button
              type="button"
              aria-label={`Forget ${entry.path}`}
              onClick={() => change(() => store.call('folder-trust:forget', { path: entry.path, scope: entry.scope }))}
            >
              Forget
            </button>
          </li>
        ))}
      </ul>
      <div className="row">
        <button type="button" onClick={() => change(() => store.call('folder-trust:pick', {}))}>
          Trust a parent folder…
        </button>
      </div>
    </SettingsSection>
  );
}
