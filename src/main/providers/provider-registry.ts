/**
 * The model providers behind one face, for the core, the IPC handlers and the runtime: endpoints, the providers turns
 * run with, context windows, checks of models, connection tests and discovery, each kept in a module of its own.
 */
import type { ContextWindow, ModelCheck, ModelChoice, ModelInfo, ProviderEndpoint, ProviderKind } from '../../shared/domain';
import type { ChannelInput, ConnectionTestResult, DiscoveryResult, ProviderView } from '../../shared/ipc/contract';
import type { Clock } from '../agent/ports/clock';
import type { ModelProvider } from '../agent/ports/model-provider';
import type { ModelCheckStore, ProviderResolver } from '../agent/ports/ports';
import { defaultRetryPolicy, type RetryPolicy } from '../agent/rules/retry';
import type { SecretStore, SettingsStore } from '../agent/ports/settings';
import { testConnection } from './connection-test';
import { ContextWindows } from './context-windows';
import { probeLocalEndpoints, defaultDiscoveryCandidates, type DiscoveryCandidate } from './discovery';
import { Endpoints } from './endpoints';
import type { DoctorTimeouts } from './model-doctor';
import { ModelChecks } from './model-checks';
import { ProviderClients } from './provider-clients';
import { createProvider } from './provider-factory';
import type { ProtocolChoice } from './text-tool-provider';

export interface ProviderRegistryOptions {
  readonly settings: SettingsStore;
  readonly secrets: SecretStore;
  readonly clock: Clock;
  readonly retryPolicy?: RetryPolicy;
  readonly idleTimeoutMs?: number;
  readonly discoveryCandidates?: readonly DiscoveryCandidate[];
  /** A key from the environment, used for Anthropic endpoints that have none stored. */
  readonly environmentAnthropicKey?: string | null;
  /** Where what checks of models found is kept; without it, only what turns found, in memory. */
  readonly checks?: ModelCheckStore;
  /** Told of every new or changed check of a model. */
  readonly onChecked?: (check: ModelCheck) => void;
  /** Whether a turn is running: checks in the background wait for it to end. */
  readonly busy?: () => boolean;
  readonly doctorTimeouts?: DoctorTimeouts;
  /** The built-in runtime ("This computer"), serving endpoints of kind `local`. */
  readonly local?: ModelProvider;
}

/** Endpoints from settings, keys from the secret store, and providers made from them. */
export class ProviderRegistry implements ProviderResolver {
  private readonly endpoints: Endpoints;
  private readonly modelChecks: ModelChecks;
  private readonly clients: ProviderClients;
  private readonly windows: ContextWindows;

  constructor(private readonly options: ProviderRegistryOptions) {
    this.endpoints = new Endpoints(options);
    const endpointOf = (providerId: string): ProviderEndpoint => this.endpoints.get(providerId);
    const providerFor = (endpoint: ProviderEndpoint): ModelProvider => this.bare(endpoint);
    this.modelChecks = new ModelChecks({ ...options, endpointOf, providerFor });
    this.clients = new ProviderClients({
      create: (kind, baseUrl, apiKey) => this.create(kind, baseUrl, apiKey),
      clock: options.clock,
      retryPolicy: options.retryPolicy ?? defaultRetryPolicy,
      protocolOf: (providerId, model) => this.modelChecks.protocolOf(providerId, model),
      onToolsRefused: (providerId, model, reason) => this.modelChecks.toolsRefused(providerId, model, reason),
    });
    this.windows = new ContextWindows({ settings: options.settings, clock: options.clock, endpointOf, providerFor });
  }

  list(): ProviderView[] {
    return this.endpoints.list();
  }

  defaultModel(): ModelChoice | null {
    return this.endpoints.defaultModel();
  }

  /**
   * A provider with retries, for running turns. Providers are kept per endpoint, address and key,
   * so a turn reuses the client (and its open connections) of the turn before; a changed address
   * or key makes a new one.
   */
  resolve(choice: ModelChoice): ModelProvider {
    const endpoint = this.endpoints.get(choice.providerId);
    return this.clients.get(endpoint, this.endpoints.keyFor(endpoint));
  }

  /** How a model gets its tools: see `ModelChecks.protocolOf`. */
  protocolOf(providerId: string, model: string): ProtocolChoice {
    return this.modelChecks.protocolOf(providerId, model);
  }

  /**
   * Checks a model (the model doctor, see `checkModel`) and keeps what it found, which decides its tool protocol on
   * `auto`. Throws only when the endpoint is unknown.
   */
  check(providerId: string, model: string, signal: AbortSignal): Promise<ModelCheck> {
    return this.modelChecks.check(providerId, model, signal);
  }

  /** Checks the models a local endpoint serves in the background, while no turn runs: see `ModelChecks.checkAll`. */
  checkAll(providerId: string): Promise<void> {
    return this.modelChecks.checkAll(providerId);
  }

  /** The kept checks of an endpoint's models, or of all. */
  checks(providerId?: string): ModelCheck[] {
    return this.modelChecks.list(providerId);
  }

  /** Stops checks that are running. */
  dispose(): void {
    this.modelChecks.dispose();
  }

  /** The window a model's requests are budgeted with: see `ContextWindows.window`. Never throws. */
  window(choice: ModelChoice, signal: AbortSignal): Promise<ContextWindow> {
    return this.windows.window(choice, signal);
  }

  /** Whether a model takes images, as its server says; false where the provider cannot tell. Throws a `ModelError` when unreachable. */
  async takesImages(choice: ModelChoice, signal: AbortSignal): Promise<boolean> {
    const provider = this.bare(this.endpoints.get(choice.providerId));
    return (await provider.takesImages?.(choice.model, signal)) ?? false;
  }

  describe(choice: ModelChoice): { kind: ProviderKind; baseUrl: string } {
    const endpoint = this.endpoints.get(choice.providerId);
    return { kind: endpoint.kind, baseUrl: endpoint.baseUrl };
  }

  /** A bare provider: one attempt per call, as a connection test wants. */
  create(kind: ProviderKind, baseUrl: string, apiKey: string | null): ModelProvider {
    return createProvider(kind, baseUrl, apiKey, this.options);
  }

  save(input: ChannelInput<'provider:save'>): ProviderView {
    const { view, moved } = this.endpoints.save(input);
    if (moved) this.modelChecks.forget(view.id);
    this.clients.clear();
    this.windows.clear();
    return view;
  }

  /**
   * The endpoint of the built-in runtime ("This computer"), saved first when there is none: models on this computer
   * are served by it.
   */
  ensureLocalEndpoint(): ProviderView {
    const { view, created } = this.endpoints.ensureLocal();
    if (created) this.clients.clear();
    return view;
  }

  /** Removes an endpoint, its key, what was chosen for its models, and what checks found about them. */
  remove(providerId: string): void {
    this.endpoints.remove(providerId);
    this.modelChecks.forget(providerId);
    this.clients.clear();
  }

  async models(providerId: string, signal: AbortSignal): Promise<ModelInfo[]> {
    return this.bare(this.endpoints.get(providerId)).listModels(signal);
  }

  /** Lists models as the test: it shows what worked, or the exact error. */
  test(input: ChannelInput<'provider:test'>, timeoutMs = 5_000): Promise<ConnectionTestResult> {
    return testConnection(input, timeoutMs, {
      endpoints: this.endpoints,
      create: (kind, baseUrl, apiKey) => this.create(kind, baseUrl, apiKey),
      clock: this.options.clock,
    });
  }

  /** Probes the usual local servers, each given `timeoutMs` (discovery's short default when absent) to answer. */
  discover(timeoutMs?: number): Promise<DiscoveryResult> {
    return probeLocalEndpoints(
      this.options.discoveryCandidates ?? defaultDiscoveryCandidates,
      (kind, baseUrl) => this.create(kind, baseUrl, null),
      timeoutMs,
    );
  }

  /** A bare provider for a saved endpoint, with its key. */
  private bare(endpoint: ProviderEndpoint): ModelProvider {
    return this.create(endpoint.kind, endpoint.baseUrl, this.endpoints.keyFor(endpoint));
  }
}
