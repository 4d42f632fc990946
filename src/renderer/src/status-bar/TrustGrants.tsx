/*
 * The active trust grants, each with a live countdown and a one-click revoke, in the status bar and in Settings.
 */

import { useState, type ReactNode } from 'react';
import type { TrustGrant } from '../../../shared/domain';
import { useDisposables } from '../disposables';
import { useAppState, type AppStore } from '../store';

function remaining(grant: TrustGrant, now: number): string {
  if (grant.expiresAt === null) return 'this session';
  const seconds = Math.max(0, Math.round((grant.expiresAt - now) / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return hours > 0 ? `${hours}h ${String(minutes).padStart(2, '0')}m` : `${minutes}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * Active trust grants with a live countdown and one-click revoke. Expired ones disappear on their own; with none left,
 * `empty` is shown (nothing by default).
 */
export function TrustGrants({ store, empty = null }: { store: AppStore; empty?: ReactNode }) {
  const grants = useAppState(store, (state) => state.grants);
  const [now, setNow] = useState(Date.now());
  useDisposables(
    (disposables) => {
      if (grants.length === 0) return;
      // The clock stood still while there was nothing to count down: a new grant counts from now.
      setNow(Date.now());
      disposables.interval(() => setNow(Date.now()), 1000);
    },
    [grants],
  );
  const live = grants.filter((grant) => grant.expiresAt === null || grant.expiresAt > now);
  if (live.length === 0) return <>{empty}</>;
  return (
    <ul className="grants" aria-label="Trust grants">
      {live.map((grant) => (
        <li key={grant.id} className="grant" title={grant.description}>
          <span className="grant-text">{grant.description}</span>
          <span className="grant-time">{remaining(grant, now)}</span>
          <button
            type="button"
            className="icon"
            aria-label={`Revoke ${grant.description}`}
            onClick={() => void store.attempt(() => store.call('trust:revoke', { grantId: grant.id }))}
          >
            ✕
          </button>
        </li>
      ))}
    </ul>
  );
}
