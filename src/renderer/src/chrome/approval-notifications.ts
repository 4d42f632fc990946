/*
 * Desktop notifications: one when a session starts waiting for the person while the window is in the background.
 */

import { useEffect, useRef } from 'react';
import { useAppState, type AppStore } from '../store';

/** Asks for a desktop notification when a session starts waiting for the person while the window is in the background. */
export function useApprovalNotifications(store: AppStore): void {
  const waiting = useAppState(store, (state) =>
    state.sessions
      .filter((session) => session.status === 'waiting_approval')
      .map((session) => `${session.id}\u0000${session.title}`)
      .join('\n'),
  );
  const seen = useRef(new Set<string>());
  useEffect(() => {
    const now = new Set(waiting === '' ? [] : waiting.split('\n'));
    for (const item of now) {
      if (seen.current.has(item)) continue;
      const title = item.split('\u0000')[1] ?? '';
      if (typeof Notification !== 'undefined' && !document.hasFocus()) {
        const show = (): void => void new Notification('Approval needed', { body: `“${title}” is waiting for you.`, tag: item });
        if (Notification.permission === 'granted') show();
        else if (Notification.permission === 'default')
          void Notification.requestPermission().then((permission) => permission === 'granted' && show());
      }
    }
    seen.current = now;
  }, [waiting]);
}
