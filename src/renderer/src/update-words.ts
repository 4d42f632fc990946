/*
 * What the window says of the updater's state, in Settings → Updates and in the notice above the window's body.
 */

import type { UpdateState } from '../../shared/updates';

/** The updater's state in a sentence. */
export function updateStateText(state: UpdateState, currentVersion: string): string {
  switch (state.kind) {
    case 'idle':
      return `Version ${currentVersion}. No check yet.`;
    case 'checking':
      return 'Checking for updates…';
    case 'up_to_date':
      return `Up to date: version ${state.version} is the newest.`;
    case 'available':
      return `Version ${state.version} is available.`;
    case 'downloading':
      return `Downloading version ${state.version}… ${state.percent}%`;
    case 'ready':
      return `Version ${state.version} is downloaded and verified: restart to update.`;
    case 'error':
      return state.message;
    default: {
      const never: never = state;
      return String(never);
    }
  }
}
