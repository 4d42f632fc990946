/*
 * Opens the details panel on the tab something asks for: a waiting plan, "Restore to here" on a message, or the paths
 * a turn changed, from its summary.
 */

import { useEffect } from 'react';
import type { Layout } from '../layout';
import { useAppState, type AppStore } from '../store';

/**
 * Opens the details panel where something asks for it: a plan that waits for an answer shows, whatever the panels
 * were doing; "Restore to here" opens the history, where the restore shows under its step; the paths changed, in a
 * turn's summary, open the Changes tab on that turn.
 */
export function usePanelRequests(store: AppStore, setLayout: (change: Partial<Layout>) => void): void {
  const planWaiting = useAppState(store, (state) => (state.selectedId ? state.views[state.selectedId]?.plan?.state === 'waiting' : false));
  const restoreAsked = useAppState(store, (state) => state.restoreRequest !== null);
  const changesAsked = useAppState(store, (state) => state.changesRequest !== null);
  useEffect(() => {
    if (planWaiting) setLayout({ rightOpen: true, rightTab: 'plan' });
  }, [planWaiting, setLayout]);
  useEffect(() => {
    if (restoreAsked) setLayout({ rightOpen: true, rightTab: 'history' });
  }, [restoreAsked, setLayout]);
  useEffect(() => {
    if (changesAsked) setLayout({ rightOpen: true, rightTab: 'changes' });
  }, [changesAsked, setLayout]);
}
