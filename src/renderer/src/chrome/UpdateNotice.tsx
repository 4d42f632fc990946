/*
 * The quiet notice of updates above the window's body: an update ready ("Restart to update"), one found that waits to
 * be downloaded, and how a check the person asked for went. Nothing for a check on the schedule that found nothing.
 */

import { useEffect, useState } from 'react';
import type { UpdatesView } from '../../../shared/updates';
import { useAppState, type AppStore } from '../store';
import { updateStateText } from '../update-words';

/** Whether the notice has something to say of the state: what is found always, how a check went only when asked. */
function worthSaying(view: UpdatesView): boolean {
  switch (view.state.kind) {
    case 'ready':
    case 'available':
      return true;
    case 'checking':
    case 'up_to_date':
    case 'downloading':
    case 'error':
      return view.asked;
    case 'idle':
      return false;
    default: {
      const never: never = view.state;
      return Boolean(never);
    }
  }
}

/** The notice of updates: shown until dismissed, and again when the state changes. */
export function UpdateNotice({ store }: { store: AppStore }) {
  const view = useAppState(store, (state) => state.updates);
  const [dismissed, setDismissed] = useState<string | null>(null);
  useEffect(() => {
    void store.attempt(async () => store.setUpdates(await store.call('updates:get', {})));
  }, [store]);
  if (!view || !worthSaying(view)) return null;
  const key = JSON.stringify(view.state);
  if (dismissed === key) return null;
  const { state } = view;
  return (
    <div className={`notice ${state.kind === 'error' ? 'notice-error' : 'notice-info'}`} role="status" aria-label="Updates">
      <span>{updateStateText(state, view.currentVersion)}</span>
      <span className="row">
        {state.kind === 'available' && (
          <button type="button" onClick={() => void store.attempt(async () => store.setUpdates(await store.call('updates:download', {})))}>
            Download
          </button>
        )}
        {state.kind === 'ready' && (
          <button type="button" className="primary" onClick={() => void store.attempt(() => store.call('updates:install', {}))}>
            Restart to update
          </button>
        )}
        <button type="button" className="link" aria-label="Dismiss the update notice" onClick={() => setDismissed(key)}>
          ×
        </button>
      </span>
    </div>
  );
}
