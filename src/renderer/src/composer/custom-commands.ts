/*
 * The person's own `/` commands for the message box, asked of main when a `/` is typed and again when a command is
 * sent, so a command file changed meanwhile is read as it is now.
 */

import { useState } from 'react';
import type { CustomCommandList } from '../../../shared/custom-commands';
import { useDisposables } from '../disposables';
import type { AppStore } from '../store';

const none: CustomCommandList = { commands: [], notes: [], instructionFiles: null };

/** The commands known for a session, and a way to read them again now. */
export interface CustomCommands {
  readonly list: CustomCommandList;
  /** Reads them again; when main cannot answer, the list known so far. */
  readonly refresh: () => Promise<CustomCommandList>;
}

/** Whether the box's text is a command being typed: a `/` at its start, not `//`. */
export function typesCommand(text: string): boolean {
  const start = text.trimStart();
  return start.startsWith('/') && !start.startsWith('//');
}

/**
 * The session's own commands (`commands:list`), asked of main each time the box starts a command, so the `/` list
 * shows files added since. None until the first answer; a failed answer leaves the list as it was.
 */
export function useCustomCommands(store: AppStore, sessionId: string, text: string): CustomCommands {
  const [known, setKnown] = useState<{ sessionId: string; list: CustomCommandList } | null>(null);
  const asking = typesCommand(text);
  useDisposables(
    (disposables) => {
      if (!asking) return;
      store.call('commands:list', { sessionId }).then(
        (list) => !disposables.isDisposed && setKnown({ sessionId, list }),
        () => undefined,
      );
    },
    [store, sessionId, asking],
  );
  const list = known?.sessionId === sessionId ? known.list : none;
  return {
    list,
    refresh: async () => {
      try {
        const fresh = await store.call('commands:list', { sessionId });
        setKnown({ sessionId, list: fresh });
        return fresh;
      } catch {
        return list;
      }
    },
  };
}
