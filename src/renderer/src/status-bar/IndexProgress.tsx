/*
 * A first index of a large workspace's code, in the status bar while it runs: how many of its files have been read.
 */

import { useState } from 'react';
import type { Disposable } from '../../../shared/lifecycle';
import { subscription, useDisposables } from '../disposables';
import { useAppState, type AppStore } from '../store';

/** An index shorter than this is not shown: a workspace brought up to date quickly says nothing. */
const shownAfterMs = 700;

/** "Indexing code: 1,200 of 5,000 files" for the selected session's workspace, while its index takes a while. */
export function IndexProgress({ store }: { store: AppStore }) {
  const workspacePath = useAppState(
    store,
    (state) => state.sessions.find((session) => session.id === state.selectedId)?.workspacePath ?? null,
  );
  const [progress, setProgress] = useState<{ workspacePath: string; done: number; total: number; shown: boolean } | null>(null);
  useDisposables(
    (disposables) => {
      let timer: Disposable | null = null;
      disposables.add(
        subscription(
          store.api.on['code-map:progress']((payload) => {
            if (payload.done >= payload.total) {
              if (timer) void disposables.release(timer);
              timer = null;
              setProgress(null);
              return;
            }
            setProgress((current) => ({ ...payload, shown: current?.workspacePath === payload.workspacePath && current.shown }));
            timer ??= disposables.timeout(() => {
              timer = null;
              setProgress((current) => (current ? { ...current, shown: true } : current));
            }, shownAfterMs);
          }),
        ),
      );
    },
    [store],
  );
  if (!progress?.shown || workspacePath === null || !sameFolder(progress.workspacePath, workspacePath)) return null;
  return (
    <span className="index-progress small muted" role="status" aria-label="Indexing code">
      Indexing code: {progress.done.toLocaleString('en-US')} of {progress.total.toLocaleString('en-US')} files
    </span>
  );
}

/** The index names a folder by its real path, the session by the path it was opened with (the same but for a slash at the end). */
function sameFolder(indexed: string, opened: string): boolean {
  return indexed.replace(/[\\/]+$/, '') === opened.replace(/[\\/]+$/, '');
}
