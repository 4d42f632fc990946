/*
 * The autonomy picker of the status bar: what the session shown may run without asking.
 */

import type { Autonomy } from '../../../shared/domain';
import { useAppState, type AppStore } from '../store';
import { AutonomyOptions, autonomyLabels } from './AutonomyOptions';

/** The autonomy of the session shown: what it may run without asking. */
export function AutonomyPicker({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const autonomy = useAppState(store, (state) => state.sessions.find((candidate) => candidate.id === sessionId)?.autonomy ?? 'L1');
  return (
    <label className="autonomy">
      <span className="muted small">Autonomy</span>
      <select
        aria-label="Autonomy"
        title={`Autonomy: ${autonomyLabels[autonomy]}`}
        value={autonomy}
        onChange={(event) =>
          void store.attempt(async () =>
            store.upsertSession(await store.call('session:setAutonomy', { sessionId, autonomy: event.target.value as Autonomy })),
          )
        }
      >
        <AutonomyOptions />
      </select>
    </label>
  );
}
