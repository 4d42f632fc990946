/*
 * The downloads of models as main announces them, and a download's progress bar with Pause, Resume and Cancel.
 */

import { useRef, useState } from 'react';
import type { DownloadView } from '../../../shared/model-catalogue';
import { subscription, useDisposables } from '../disposables';
import { progressWords } from './local-model-words';
import type { AppStore } from '../store';

/**
 * The downloads of models, by id, as main announces them: loaded once, then kept by the progress events. `onDone` hears
 * each download that finishes while shown.
 */
export function useModelDownloads(store: AppStore, onDone?: (view: DownloadView) => void): ReadonlyMap<string, DownloadView> {
  const [downloads, setDownloads] = useState<ReadonlyMap<string, DownloadView>>(new Map());
  const done = useRef(onDone);
  done.current = onDone;
  useDisposables(
    (disposables) => {
      let live = true;
      disposables.add({ dispose: () => void (live = false) });
      void store.attempt(async () => {
        const listed = await store.call('local-model:downloads', {});
        if (live) setDownloads((current) => new Map([...listed.map((view) => [view.id, view] as const), ...current]));
      });
      disposables.add(
        subscription(
          store.api.on['local-model:progress']((payload) => {
            setDownloads((current) => new Map(current).set(payload.download.id, payload.download));
            if (payload.download.state === 'done') done.current?.(payload.download);
          }),
        ),
      );
    },
    [store],
  );
  return downloads;
}

/** A download's bar, speed and time left, Pause / Resume / Cancel, and what went wrong. */
export function DownloadProgress({ store, view }: { store: AppStore; view: DownloadView }) {
  const active = view.state === 'downloading' || view.state === 'verifying';
  const act = (channel: 'local-model:pause' | 'local-model:resume' | 'local-model:cancel'): void =>
    void store.attempt(async () => {
      await store.call(channel, { id: view.id });
    });
  const value = view.totalBytes ? Math.min(view.receivedBytes, view.totalBytes) : undefined;
  return (
    <div className="model-download" role="group" aria-label={`Download of ${view.name}`}>
      {view.state !== 'failed' && view.state !== 'done' && (
        <progress aria-label={`${view.name} downloaded`} max={view.totalBytes ?? undefined} value={value} />
      )}
      <span className="small" role="status">
        {progressWords(view)}
      </span>
      {view.state === 'downloading' && (
        <button type="button" onClick={() => act('local-model:pause')} aria-label={`Pause ${view.name}`}>
          Pause
        </button>
      )}
      {(view.state === 'paused' || view.state === 'interrupted') && (
        <button type="button" onClick={() => act('local-model:resume')} aria-label={`Resume ${view.name}`}>
          Resume
        </button>
      )}
      {(active || view.state === 'paused' || view.state === 'interrupted') && (
        <button type="button" className="link" onClick={() => act('local-model:cancel')} aria-label={`Cancel ${view.name}`}>
          Cancel
        </button>
      )}
      {view.error && view.error.code !== 'cancelled' && (
        <p className="setup-model-problem small" role="alert">
          {view.error.message}
        </p>
      )}
    </div>
  );
}
