/*
 * The trust grant store's interface.
 */
import type { TrustGrant } from '../../../shared/domain';

/** Trust grants, kept across restarts. */
export interface TrustStore {
  create(grant: TrustGrant): TrustGrant;
  /** Grants that may still be active at `now` (not revoked, not expired); session grants of any session. */
  listActive(now: number): TrustGrant[];
  revoke(grantId: string, at: number): TrustGrant;
  /** A grant by id, revoked or expired as it may be; null when there is none (its session was purged). */
  find(grantId: string): TrustGrant | null;
  /** A session was deleted, and its session grants with it. */
  forgetSession(sessionId: string): void;
}
