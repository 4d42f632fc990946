/*
 * The completion of `@` paths: the workspace files matching the reference being typed, asked of main once typing
 * pauses.
 */

import { useState } from 'react';
import { useDisposables } from '../disposables';
import { referenceAt, type TypedReference } from './file-references';
import type { AppStore } from '../store';

/** A file or folder the `@` list offers. */
export interface FoundEntry {
  readonly path: string;
  readonly directory: boolean;
}

/** How long typing pauses before the workspace is asked: one request per pause, not per key. */
const pauseMs = 60;
const listed = 12;

/**
 * The workspace paths that match the `@…` being typed at the caret, asked of main (`workspace:find`) once typing
 * pauses. Empty when the caret is not in a reference, when the person closed the list for this one (`dismissedAt`
 * is where it starts), or when the session has no workspace.
 */
export function useFileCompletion(
  store: AppStore,
  sessionId: string,
  text: string,
  caret: number,
  dismissedAt: number | null,
): { typed: TypedReference | null; entries: readonly FoundEntry[] } {
  const typed = text.startsWith('/') ? null : referenceAt(text, caret);
  const query = typed && typed.start !== dismissedAt ? typed.query.replace(/#.*$/, '') : null;
  const [found, setFound] = useState<{ query: string; entries: readonly FoundEntry[] } | null>(null);
  useDisposables(
    (disposables) => {
      if (query === null) return;
      disposables.timeout(() => {
        store.call('workspace:find', { sessionId, query, limit: listed }).then(
          (result) => !disposables.isDisposed && setFound({ query, entries: result.entries }),
          // No workspace, or it cannot be read: the list stays empty, and sending says why.
          () => !disposables.isDisposed && setFound({ query, entries: [] }),
        );
      }, pauseMs);
    },
    [store, sessionId, query],
  );
  if (query === null || found === null) return { typed: null, entries: [] };
  return { typed, entries: found.entries };
}
