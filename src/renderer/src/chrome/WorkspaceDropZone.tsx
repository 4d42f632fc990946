/*
 * The drop zone of the whole window: a folder dropped on it becomes the workspace of the open session, or of a new
 * one.
 */

import { useState, type DragEvent, type ReactNode } from 'react';
import type { AppStore } from '../store';

/** The whole window accepts a dropped folder: it becomes the workspace of the open session, or of a new one. */
export function WorkspaceDropZone({ store, children }: { store: AppStore; children: ReactNode }) {
  const [over, setOver] = useState(false);
  const onDrop = (event: DragEvent): void => {
    event.preventDefault();
    setOver(false);
    const file = event.dataTransfer.files[0];
    if (!file) return;
    const path = store.api.pathForFile(file);
    if (!path) {
      store.notify({ kind: 'error', text: 'The dropped item has no folder path. Use “Choose folder…” instead.' });
      return;
    }
    const selected = store.getState().selectedId;
    void store.attempt(async () => {
      if (selected) store.upsertSession(await store.call('workspace:set', { sessionId: selected, path }));
      else await store.createSession(path);
    });
  };
  return (
    <div
      className={over ? 'drop-zone drop-over' : 'drop-zone'}
      onDragOver={(event) => {
        if (event.dataTransfer.types.includes('Files')) {
          event.preventDefault();
          setOver(true);
        }
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      {children}
      {over && (
        <div className="drop-overlay" aria-hidden="true">
          Drop a folder to use it as the workspace
        </div>
      )}
    </div>
  );
}
