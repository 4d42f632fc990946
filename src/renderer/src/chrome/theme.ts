/*
 * The colour theme: light or dark as the OS has it, unless the theme setting picks one.
 */

import { useEffect } from 'react';
import { useAppState, type AppStore } from '../store';

/** Light and dark follow the OS unless the theme setting picks one. */
export function useTheme(store: AppStore): void {
  const theme = useAppState(store, (state) => state.settings?.theme ?? 'system');
  useEffect(() => {
    if (theme === 'system') delete document.documentElement.dataset['theme'];
    else document.documentElement.dataset['theme'] = theme;
  }, [theme]);
}
