/*
 * The store's questions to model endpoints for their models: one request per endpoint at a time, shared by every picker
 * that asks, and the answer kept until it is asked for again or the endpoints change.
 */

import { errorMessage, type Call } from './client';
import type { EndpointState } from './store-state';

/** Where the answers are kept (the store's state), read and written through these. */
export interface EndpointAnswers {
  readonly known: (providerId: string) => EndpointState | undefined;
  readonly put: (providerId: string, found: EndpointState) => void;
}

/** Asks endpoints for their models, so that two pickers share one request. */
export class EndpointChecks {
  /** Endpoints being asked for their models, and the answer each will give. */
  private readonly pending = new Map<string, Promise<EndpointState>>();

  constructor(
    private readonly call: Call,
    private readonly answers: EndpointAnswers,
  ) {}

  /**
   * Asks an endpoint for its models, once: the answer is kept until `again` or until endpoints change. While asking,
   * the endpoint shows as being checked.
   */
  check(providerId: string, again = false): Promise<EndpointState> {
    const known = this.answers.known(providerId);
    const pending = this.pending.get(providerId);
    if (pending) return pending;
    if (known && known.state !== 'checking' && !again) return Promise.resolve(known);
    const putState = (found: EndpointState): EndpointState => {
      this.answers.put(providerId, found);
      return found;
    };
    putState({ state: 'checking' });
    const asked = this.call('provider:models', { providerId }).then(
      (models): EndpointState => ({ state: 'ok', models }),
      (error: unknown): EndpointState => ({ state: 'unreachable', message: errorMessage(error) }),
    );
    const check = asked.then((found) => {
      if (this.pending.get(providerId) === check) {
        this.pending.delete(providerId);
        return putState(found);
      }
      return found;
    });
    this.pending.set(providerId, check);
    return check;
  }

  /** Forgets the requests under way, whose answers then change nothing: the endpoints may have changed address or key. */
  clear(): void {
    this.pending.clear();
  }
}
