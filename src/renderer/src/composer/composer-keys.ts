/*
 * The message box's keys: Enter sends, Escape stops the turn (unless a dialog is open), the arrows move through the
 * list of commands or files, and Tab completes one.
 */

import type { Dispatch, KeyboardEvent, SetStateAction } from 'react';
import type { CustomCommand } from '../../../shared/custom-commands';
import { modalOpen } from '../chrome/top-layer';
import { useDisposables } from '../disposables';
import type { AppStore } from '../store';
import { readComposerText } from './slash-commands';

/** Which list the box offers below it while typing: the commands, the workspace's files, or none. */
export type ComposerMenuKind = 'commands' | 'files' | null;

/** What the composer's keys act on. */
export interface ComposerKeyTargets {
  readonly store: AppStore;
  readonly sessionId: string;
  /** A turn runs: Escape anywhere stops it. */
  readonly busy: boolean;
  readonly text: string;
  /** The person's own commands: a whole one of their names is sent by Enter, not completed. */
  readonly customCommands: readonly CustomCommand[];
  readonly menu: ComposerMenuKind;
  readonly menuLength: number;
  readonly highlighted: number;
  readonly setHighlighted: Dispatch<SetStateAction<number>>;
  /** Closes the list of files for the reference being typed. */
  readonly dismissFiles: () => void;
  readonly complete: (index: number) => void;
  readonly send: () => void;
}

/**
 * The composer's keys. On the window, Escape stops the running turn. In the box, the arrows move through the list of
 * commands or files, Escape closes the list of files, Tab (and Enter on a name or path still being typed) completes the
 * highlighted one, and Enter sends (Shift+Enter is a new line). Returns the box's key handler.
 */
export function useComposerKeys(targets: ComposerKeyTargets): (event: KeyboardEvent<HTMLTextAreaElement>) => void {
  const { store, sessionId, busy, text, menu, menuLength, highlighted } = targets;
  useDisposables(
    (disposables) => {
      disposables.listen(window, 'keydown', (event: globalThis.KeyboardEvent) => {
        // Esc in a dialog (Settings, /help…) closes the dialog, and only that.
        if (event.key === 'Escape' && busy && !modalOpen()) void store.attempt(() => store.call('run:cancel', { sessionId }));
      });
    },
    [store, sessionId, busy],
  );

  return (event) => {
    if (menu !== null && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : menuLength - 1;
      targets.setHighlighted((current) => (current + step) % menuLength);
      return;
    }
    if (menu === 'files' && event.key === 'Escape') {
      // Closes the list only; the turn goes on (Escape elsewhere stops it).
      event.preventDefault();
      event.stopPropagation();
      targets.dismissFiles();
      return;
    }
    // Enter runs a whole command; on a name still being typed it completes it, as Tab does. A path is always completed.
    const partial = menu === 'files' || readComposerText(text, targets.customCommands).kind === 'refused';
    if (menu !== null && (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey && partial))) {
      event.preventDefault();
      targets.complete(highlighted);
      return;
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      targets.send();
    }
  };
}
