/*
 * The Alt+letter shortcuts of a gate's answers, listened to on the window while the gate is shown.
 */

import { useRef } from 'react';
import { modalOpen } from '../chrome/top-layer';
import { useDisposables } from '../disposables';

/**
 * A gate's answers on Alt+letter, listened to on the window while the gate is shown (`identity` names it: another gate
 * listens afresh), and not while a dialog covers it. The newest handlers always run, so they may close over the latest state.
 */
export function useAltKeys(keys: Readonly<Record<string, () => void>>, identity: string): void {
  const current = useRef(keys);
  current.current = keys;
  useDisposables(
    (disposables) => {
      disposables.listen(window, 'keydown', (event: KeyboardEvent) => {
        if (!event.altKey || event.ctrlKey || event.metaKey || modalOpen()) return;
        const action = current.current[event.key.toLowerCase()];
        if (!action) return;
        action();
        event.preventDefault();
      });
    },
    [identity],
  );
}
