/**
 * The model endpoints the person configured: listed, saved and removed in settings, their API keys in the secret
 * store, and the "This computer" endpoint of the built-in runtime, made when a model is added.
 */
import type { ModelChoice, ProviderEndpoint, ProviderKind } from '../../shared/domain';
import { NotFoundError, WorkbenchError } from '../../shared/errors';
import type { ChannelInput, ProviderView } from '../../shared/ipc/contract';
import { localEndpointAddress, localEndpointName } from '../../shared/local-models';
import type { Clock } from '../agent/ports/clock';
import { newId } from '../agent/ports/ids';
import type { SecretStore, SettingsStore } from '../agent/ports/settings';

/** The most endpoints that can be configured. */
const maxEndpoints = 50;

const secretKey = (providerId: string): string => `provider:${providerId}:apiKey`;

export interface EndpointsOptions {
  readonly settings: SettingsStore;
  readonly secrets: SecretStore;
  readonly clock: Pick<Clock, 'now'>;
  /** A key from the environment, used for Anthropic endpoints that have none stored. */
  readonly environmentAnthropicKey?: string | null;
}

/** What a save did: the endpoint as shown, and whether an endpoint saved before now points at another server. */
export interface SavedEndpoint {
  readonly view: ProviderView;
  /** Its address or kind changed: what was found about its models no longer holds. */
  readonly moved: boolean;
}

/** Endpoints from settings and their keys from the secret store. */
export class Endpoints {
  constructor(private readonly options: EndpointsOptions) {}

  list(): ProviderView[] {
    return this.options.settings.get().providers.map((provider) => ({ ...provider, hasKey: this.hasKey(provider.id) }));
  }

  defaultModel(): ModelChoice | null {
    return this.options.settings.get().defaultModel;
  }

  /** The endpoint with this id. Throws a `NotFoundError` when there is none. */
  get(providerId: string): ProviderEndpoint {
    const endpoint = this.options.settings.get().providers.find((provider) => provider.id === providerId);
    if (!endpoint) throw new NotFoundError('Provider', providerId);
    return endpoint;
  }

  /** The key an endpoint's requests carry: its own, else the environment's for Anthropic, else none. */
  keyFor(endpoint: ProviderEndpoint): string | null {
    return this.options.secrets.get(secretKey(endpoint.id)) ?? this.unstoredKey(endpoint.kind);
  }

  /** The key for an endpoint of this kind with none stored (one not saved yet, say): the environment's for Anthropic. */
  unstoredKey(kind: ProviderKind): string | null {
    return kind === 'anthropic' ? (this.options.environmentAnthropicKey ?? null) : null;
  }

  /** Saves a new endpoint, or changes one, with its key (`null` removes the key; absent leaves it). */
  save(input: ChannelInput<'provider:save'>): SavedEndpoint {
    // "This computer" is the app's own endpoint, made when a model is added (`ensureLocal`), never at an address.
    if (input.kind === 'local')
      throw new WorkbenchError('invalid_input', 'The This computer endpoint is made by adding a model, not saved by hand.');
    const settings = this.options.settings.get();
    if (input.id !== undefined && !settings.providers.some((provider) => provider.id === input.id))
      throw new NotFoundError('Provider', input.id);
    const endpoint: ProviderEndpoint = {
      id: input.id ?? newId(this.options.clock.now()),
      kind: input.kind,
      name: input.name,
      baseUrl: input.baseUrl,
    };
    const providers =
      input.id === undefined
        ? [...settings.providers, endpoint]
        : settings.providers.map((provider) => (provider.id === input.id ? endpoint : provider));
    if (providers.length > maxEndpoints) throw new WorkbenchError('invalid_input', `At most ${maxEndpoints} endpoints can be configured.`);
    // The key goes first: if it cannot be stored, the endpoint is not saved either.
    if (input.apiKey === null) this.options.secrets.delete(secretKey(endpoint.id));
    else if (input.apiKey !== undefined) this.options.secrets.set(secretKey(endpoint.id), input.apiKey);
    const before = settings.providers.find((provider) => provider.id === endpoint.id);
    this.options.settings.set({ ...settings, providers });
    const moved = before !== undefined && (before.baseUrl !== endpoint.baseUrl || before.kind !== endpoint.kind);
    return { view: { ...endpoint, hasKey: this.hasKey(endpoint.id) }, moved };
  }

  /**
   * The endpoint of the built-in runtime ("This computer"), saved first when there is none (then `created`): models on
   * this computer are served by it.
   */
  ensureLocal(): { view: ProviderView; created: boolean } {
    const settings = this.options.settings.get();
    const known = settings.providers.find((provider) => provider.kind === 'local');
    if (known) return { view: { ...known, hasKey: false }, created: false };
    const endpoint: ProviderEndpoint = {
      id: newId(this.options.clock.now()),
      kind: 'local',
      name: localEndpointName,
      baseUrl: localEndpointAddress,
    };
    this.options.settings.set({ ...settings, providers: [...settings.providers, endpoint] });
    return { view: { ...endpoint, hasKey: false }, created: true };
  }

  /** Removes an endpoint with its key and what was chosen for its models. Throws a `NotFoundError` when there is none. */
  remove(providerId: string): void {
    const settings = this.options.settings.get();
    this.get(providerId);
    const defaultModel = settings.defaultModel?.providerId === providerId ? null : settings.defaultModel;
    this.options.settings.set({
      ...settings,
      defaultModel,
      providers: settings.providers.filter((provider) => provider.id !== providerId),
      // What was chosen for its models goes with it.
      modelSettings: settings.modelSettings.filter((item) => item.providerId !== providerId),
      contextWindows: settings.contextWindows.filter((item) => item.providerId !== providerId),
      modelPrices: settings.modelPrices.filter((item) => item.providerId !== providerId),
    });
    this.options.secrets.delete(secretKey(providerId));
  }

  private hasKey(providerId: string): boolean {
    return this.options.secrets.get(secretKey(providerId)) !== null;
  }
}
