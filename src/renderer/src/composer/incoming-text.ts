/*
 * Text put in the message box from elsewhere: a message handed back to edit, or a file attached from a preview as
 * `@path`.
 */

import { useEffect } from 'react';
import { useAppState, type AppStore } from '../store';
import { insertReference } from './file-references';

/**
 * Text put in the box from elsewhere: a message to edit again replaces what is there; "Attach to message" in a
 * preview adds the file as `@path` at the end.
 */
export function useIncomingText(
  store: AppStore,
  sessionId: string,
  setText: (update: (current: string) => string) => void,
  onAttached: () => void,
  focus: () => void,
): void {
  const draft = useAppState(store, (state) => state.drafts[sessionId] ?? null);
  const mentions = useAppState(store, (state) => state.mentions[sessionId] ?? null);

  useEffect(() => {
    if (draft === null) return;
    setText(() => draft);
    store.setDraft(sessionId, null);
    focus();
  }, [draft, store, sessionId]);

  useEffect(() => {
    if (mentions === null) return;
    setText((current) => mentions.reduce((joined, path) => insertReference(joined, joined.length, path).text, current));
    store.mention(sessionId, null);
    onAttached();
    focus();
  }, [mentions, store, sessionId]);
}
