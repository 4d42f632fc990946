import type { TrustGrant } from '../../shared/domain';

/** Trust grants, kept across restarts. */
export interface TrustStore {
  create(grant: TrustGrant): TrustGrant;
  get(grantId: string): TrustGrant | null;
  /** Grants that may still be active at `now` (not revoked, not expired); session grants of any session. */
  listActive(now: number): TrustGrant[];
  revoke(grantId: string, at: number): TrustGrant;
}
