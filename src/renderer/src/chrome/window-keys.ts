/*
 * The window's keyboard shortcuts: a new session, switching sessions, showing or hiding the side panels, Settings and
 * the shortcuts list.
 */

import { animationFrame, scheduleIn, useDisposables } from '../disposables';
import type { DisposableStore } from '../../../shared/lifecycle';
import type { Layout } from '../layout';
import type { AppStore } from '../store';
import { cycleRegion, focusGate } from './regions';
import { groupSessions, stepSession, visibleOrder } from './session-groups';
import { modalOpen } from './top-layer';

/** The dialogs the window's keys open. */
export interface WindowDialogs {
  readonly openSettings: () => void;
  readonly toggleShortcuts: () => void;
}

/**
 * Keyboard first: a new session (Ctrl+N), the sessions and details panels (Ctrl+B, Ctrl+J), Settings (Ctrl+,), the
 * shortcuts (Ctrl+/), switching sessions (Alt+Up and Alt+Down, Ctrl+1 to Ctrl+9, in the order the sessions list shows
 * them: grouped, searched and folded as it is), moving between the window's regions (F6, Shift+F6) and going to what
 * waits for an answer (Alt+G). Cmd on macOS. None acts behind an open dialog.
 */
export function useWindowKeys(store: AppStore, layout: Layout, setLayout: (change: Partial<Layout>) => void, dialogs: WindowDialogs): void {
  useDisposables(
    (disposables) => {
      disposables.listen(window, 'keydown', (event: KeyboardEvent) => {
        const command = event.ctrlKey || event.metaKey;
        // While a dialog is open the window behind it is out of reach: only the shortcuts list still toggles.
        if (modalOpen() && !(command && event.key === '/')) return;
        const { sessions, selectedId, sessionList } = store.getState();
        const shown = (): ReturnType<typeof visibleOrder> => visibleOrder(groupSessions(sessions, selectedId, sessionList));
        if (command && !event.shiftKey && event.key.toLowerCase() === 'n') void store.createSession();
        else if (command && event.key.toLowerCase() === 'b') setLayout({ leftOpen: !layout.leftOpen });
        else if (command && event.key.toLowerCase() === 'j') setLayout({ rightOpen: !layout.rightOpen });
        else if (command && event.key === ',') dialogs.openSettings();
        else if (command && event.key === '/') dialogs.toggleShortcuts();
        else if (event.key === 'F6' && !command && !event.altKey) cycleRegion(event.shiftKey);
        else if (event.altKey && !command && event.key.toLowerCase() === 'g') goToWaiting(store, disposables);
        else if (event.altKey && (event.key === 'ArrowDown' || event.key === 'ArrowUp') && sessions.length > 0) {
          const next = stepSession(shown(), selectedId, event.key === 'ArrowDown' ? 1 : -1);
          if (next) void store.select(next.id);
        } else if (command && /^[1-9]$/.test(event.key)) {
          const target = shown()[Number(event.key) - 1];
          if (target) void store.select(target.id);
        } else return;
        event.preventDefault();
      });
    },
    // The dialogs only set state, which stays the same function for the window's life.
    [store, layout.leftOpen, layout.rightOpen, setLayout],
  );
}

/**
 * Goes to what waits for an answer: this session's gate, else the first other session waiting at one (opened, and its
 * gate focused once it shows).
 */
function goToWaiting(store: AppStore, disposables: DisposableStore): void {
  if (focusGate()) return;
  const { sessions, selectedId } = store.getState();
  const waiting = sessions.find((session) => session.status === 'waiting_approval' && session.id !== selectedId);
  if (!waiting) return;
  void store.select(waiting.id).then(() => {
    let frames = 0;
    const look = (): void => {
      if (!focusGate() && (frames += 1) < 60) scheduleIn(disposables, animationFrame, look);
    };
    look();
  });
}
