/**
 * The providers turns run with, kept per endpoint, address and key so a turn reuses the client (and its open
 * connections) of the turn before; each is a bare provider wrapped in the tool protocol and in retries.
 */
import { createHash } from 'node:crypto';
import { BoundedMap } from '../../shared/bounded-map';
import type { ProviderEndpoint, ProviderKind } from '../../shared/domain';
import type { Clock } from '../agent/ports/clock';
import type { ModelProvider } from '../agent/ports/model-provider';
import { RetryingModelProvider, type RetryPolicy } from '../agent/rules/retry';
import { ToolProtocolProvider, type ProtocolChoice } from './text-tool-provider';

export interface ProviderClientsOptions {
  readonly create: (kind: ProviderKind, baseUrl: string, apiKey: string | null) => ModelProvider;
  readonly clock: Clock;
  readonly retryPolicy: RetryPolicy;
  /** How a model of an endpoint gets its tools (see `ModelChecks.protocolOf`). */
  readonly protocolOf: (providerId: string, model: string) => ProtocolChoice;
  /** Told when a server refused a model's tool definitions during a turn. */
  readonly onToolsRefused: (providerId: string, model: string, reason: string) => void;
}

/** The providers made for turns: a handful of endpoints at a time, the one made longest ago forgotten first. */
export class ProviderClients {
  private readonly kept = new BoundedMap<string, ModelProvider>({ max: 16 });

  constructor(private readonly options: ProviderClientsOptions) {}

  /** The provider for an endpoint and its key: the one made before while neither changed, else a new one. */
  get(endpoint: ProviderEndpoint, apiKey: string | null): ModelProvider {
    // The key is kept as its hash only: the map never holds a secret in clear.
    const identity = JSON.stringify([
      endpoint.id,
      endpoint.kind,
      endpoint.baseUrl,
      apiKey === null ? null : createHash('sha256').update(apiKey).digest('hex'),
    ]);
    const kept = this.kept.get(identity);
    if (kept) return kept;
    const provider = new RetryingModelProvider(
      new ToolProtocolProvider(this.options.create(endpoint.kind, endpoint.baseUrl, apiKey), {
        protocolOf: (model) => this.options.protocolOf(endpoint.id, model),
        onToolsRefused: (model, reason) => this.options.onToolsRefused(endpoint.id, model, reason),
      }),
      this.options.clock,
      this.options.retryPolicy,
    );
    this.kept.set(identity, provider);
    return provider;
  }

  /** Forgets every provider made: the endpoints changed. */
  clear(): void {
    this.kept.clear();
  }
}
