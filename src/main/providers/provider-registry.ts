import { createHash } from 'node:crypto';
import {
  defaultContextWindow,
  modelSettingOf,
  type ContextWindow,
  type ModelCheck,
  type ModelChoice,
  type ModelInfo,
  type ProviderEndpoint,
  type ProviderKind,
} from '../../shared/domain';
import { NotFoundError, WorkbenchError, toErrorInfo } from '../../shared/errors';
import type { ChannelInput, ConnectionTestResult, DiscoveryResult, ProviderView } from '../../shared/ipc/contract';
import type { Clock } from '../agent/ports/clock';
import type { ModelProvider, ModelWindow } from '../agent/ports/model-provider';
import type { ModelCheckStore, ProviderResolver } from '../agent/ports/ports';
import { RetryingModelProvider, defaultRetryPolicy, type RetryPolicy } from '../agent/rules/retry';
import type { SecretStore, SettingsStore } from '../agent/ports/settings';
import { newId } from '../agent/ports/ids';
import { AnthropicProvider } from './anthropic-provider';
import { ToolProtocolProvider, type ProtocolChoice } from './text-tool-provider';
import { probeLocalEndpoints, defaultDiscoveryCandidates, type DiscoveryCandidate } from './discovery';
import { checkModel, refusedInTurn, type DoctorTimeouts } from './model-doctor';
import { OllamaProvider } from './ollama-provider';
import { OpenAICompatibleProvider } from './openai-compatible-provider';
import { withDeadline } from '../../shared/deadline';
import { localEndpointAddress, localEndpointName } from '../../shared/local-models';

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

/** How many of an endpoint's models a check of all of them looks at, one after another. */
const checkAllLimit = 20;

const secretKey = (providerId: string): string => `provider:${providerId}:apiKey`;

/** How long what a server said about a window is trusted, and how long a failure to ask is. */
const windowTtlMs = 60_000;
const windowFailureTtlMs = 10_000;
const windowTimeoutMs = 3_000;

/** A window figure worth believing: a whole number of tokens, neither tiny nor absurd. */
const plausible = (tokens: number | null | undefined): number | null =>
  typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 256 && tokens <= 10_000_000 ? tokens : null;

/** Endpoints from settings, keys from the secret store, and providers made from them. */
export class ProviderRegistry implements ProviderResolver {
  private readonly resolved = new Map<string, ModelProvider>();
  private readonly windows = new Map<string, { at: number; reported: ModelWindow | null; failure: string | null }>();
  /** Models whose server refused tool definitions during a turn, as `[providerId, model]` JSON. */
  private readonly refusedTools = new Set<string>();
  private readonly closing = new AbortController();
  private readonly running = new Map<string, Promise<ModelCheck>>();
  private readonly generations = new Map<string, number>();

  constructor(private readonly options: ProviderRegistryOptions) {}

  list(): ProviderView[] {
    return this.options.settings
      .get()
      .providers.map((provider) => ({ ...provider, hasKey: this.options.secrets.get(secretKey(provider.id)) !== null }));
  }

  defaultModel(): ModelChoice | null {
    return this.options.settings.get().defaultModel;
  }

  /**
   * A provider with retries, for running turns. Providers are kept per endpoint, address and key,
   * so a turn reuses the client (and its open connections) of the turn before; a changed address
   * or key makes a new one.
   */
  resolve(choice: ModelChoice): ModelProvider {
    const endpoint = this.endpoint(choice.providerId);
    const key = this.keyFor(endpoint);
    // The key is kept as its hash only: the map never holds a secret in clear.
    const identity = JSON.stringify([
      endpoint.id,
      endpoint.kind,
      endpoint.baseUrl,
      key === null ? null : createHash('sha256').update(key).digest('hex'),
    ]);
    const kept = this.resolved.get(identity);
    if (kept) return kept;
    const provider = new RetryingModelProvider(
      new ToolProtocolProvider(this.create(endpoint.kind, endpoint.baseUrl, key), {
        protocolOf: (model) => this.protocolOf(endpoint.id, model),
        onToolsRefused: (model, reason) => this.toolsRefused(endpoint.id, model, reason),
      }),
      this.options.clock,
      this.options.retryPolicy ?? defaultRetryPolicy,
    );
    if (this.resolved.size >= 16) this.resolved.delete(this.resolved.keys().next().value as string);
    this.resolved.set(identity, provider);
    return provider;
  }

  /**
   * How a model gets its tools: the person's choice; on `auto`, what a check of the model (or a turn the server refused
   * tool definitions in) found; else native, falling back to text when the server refuses.
   */
  protocolOf(providerId: string, model: string): ProtocolChoice {
    const chosen = modelSettingOf(this.options.settings.get(), providerId, model).toolProtocol;
    if (chosen !== 'auto') return chosen;
    if (this.refusedTools.has(JSON.stringify([providerId, model]))) return 'text';
    return this.options.checks?.get(providerId, model)?.protocol === 'text' ? 'text' : 'auto';
  }

  private toolsRefused(providerId: string, model: string, reason: string): void {
    this.refusedTools.add(JSON.stringify([providerId, model]));
    const checks = this.options.checks;
    if (!checks || !this.options.settings.get().providers.some((item) => item.id === providerId)) return;
    const check = refusedInTurn(checks.get(providerId, model), { providerId, model }, reason, this.options.clock.now());
    checks.put(check);
    this.options.onChecked?.(check);
  }

  /**
   * Checks a model (the model doctor, see `checkModel`) and keeps what it found, which decides its tool protocol on
   * `auto`. Throws only when the endpoint is unknown.
   */
  check(providerId: string, model: string, signal: AbortSignal): Promise<ModelCheck> {
    // One check of a model at a time: asking again while one runs gets that one's answer.
    const key = JSON.stringify([providerId, model]);
    const running = this.running.get(key);
    if (running) return running;
    const started = this.examine(providerId, model, signal).finally(() => this.running.delete(key));
    this.running.set(key, started);
    return started;
  }

  private async examine(providerId: string, model: string, signal: AbortSignal): Promise<ModelCheck> {
    const endpoint = this.endpoint(providerId);
    const generation = this.generationOf(providerId);
    const provider = this.create(endpoint.kind, endpoint.baseUrl, this.keyFor(endpoint));
    const check = await checkModel(
      { providerId, kind: endpoint.kind, baseUrl: endpoint.baseUrl, provider, model },
      { now: () => this.options.clock.now(), ...(this.options.doctorTimeouts ? { timeouts: this.options.doctorTimeouts } : {}) },
      AbortSignal.any([signal, this.closing.signal]),
    );
    // What was found about a server the endpoint no longer points at (it was edited or removed meanwhile) is not kept.
    if (this.closing.signal.aborted || this.generationOf(providerId) !== generation)
      throw new WorkbenchError('invalid_input', `The endpoint changed while ${model} was being checked: check it again.`);
    this.refusedTools.delete(JSON.stringify([providerId, model]));
    this.options.checks?.put(check);
    this.options.onChecked?.(check);
    return check;
  }

  /** Counts the changes of an endpoint's address or kind, and its removal: a check started before one is stale. */
  private generationOf(providerId: string): number {
    return this.generations.get(providerId) ?? 0;
  }

  /**
   * Checks the models a local endpoint serves, one after another (the first 20), in the background, waiting while a turn
   * runs so the checks never hold up the person's work; each is announced when done. An Anthropic endpoint is checked
   * only on demand: its probes are paid requests, and its models all call tools.
   */
  async checkAll(providerId: string): Promise<void> {
    if (this.endpoint(providerId).kind === 'anthropic') return;
    const generation = this.generationOf(providerId);
    let models: ModelInfo[];
    try {
      models = await this.models(providerId, withDeadline(this.closing.signal, 10_000));
    } catch {
      // An endpoint that does not answer now is checked when the person asks.
      return;
    }
    for (const model of models.slice(0, checkAllLimit)) {
      while (this.options.busy?.() === true && !this.closing.signal.aborted)
        await this.options.clock.sleep(1_000, this.closing.signal).catch(() => undefined);
      if (this.closing.signal.aborted || this.generationOf(providerId) !== generation) return;
      if (this.options.checks?.get(providerId, model.id)?.source === 'doctor') continue;
      await this.check(providerId, model.id, this.closing.signal).catch(() => undefined);
    }
  }

  /** The kept checks of an endpoint's models, or of all. */
  checks(providerId?: string): ModelCheck[] {
    return this.options.checks?.list(providerId) ?? [];
  }

  /** Stops checks that are running. */
  dispose(): void {
    this.closing.abort();
  }

  /**
   * The window a model's requests are budgeted with: the person's setting wins; then what the
   * server says it loaded; else the safe default, saying why. For Ollama, which takes the window
   * per request, the app chooses it: the one the model runs with now when that is larger than the
   * default, within what the model was trained for. Never throws.
   */
  async window(choice: ModelChoice, signal: AbortSignal): Promise<ContextWindow> {
    const override = this.options.settings
      .get()
      .contextWindows.find((item) => item.providerId === choice.providerId && item.model === choice.model);
    let endpoint: ProviderEndpoint;
    try {
      endpoint = this.endpoint(choice.providerId);
    } catch {
      return {
        tokens: override?.tokens ?? defaultContextWindow,
        source: override ? 'setting' : 'default',
        detail: 'the endpoint is gone',
        trained: null,
      };
    }
    const { reported, failure } = await this.reported(endpoint, choice.model, signal);
    const trained = plausible(reported?.trained);
    if (override) return { tokens: override.tokens, source: 'setting', detail: 'set in Settings', trained };
    const loaded = plausible(reported?.loaded);
    if (endpoint.kind === 'ollama') {
      const tokens = Math.min(Math.max(loaded ?? 0, defaultContextWindow), trained ?? Infinity);
      return {
        tokens,
        source: 'server',
        detail: `sent to Ollama as num_ctx${trained ? `; the model was trained for ${trained}` : ''}`,
        trained,
      };
    }
    if (loaded !== null) return { tokens: loaded, source: 'server', detail: reported?.source ?? 'the server', trained };
    const why = failure ? `its window could not be read (${failure})` : 'the server does not say which window it loaded';
    return { tokens: defaultContextWindow, source: 'default', detail: `${why}: the safe default`, trained };
  }

  private async reported(
    endpoint: ProviderEndpoint,
    model: string,
    signal: AbortSignal,
  ): Promise<{ reported: ModelWindow | null; failure: string | null }> {
    const key = JSON.stringify([endpoint.id, endpoint.kind, endpoint.baseUrl, model]);
    const now = this.options.clock.now();
    const kept = this.windows.get(key);
    if (kept && now - kept.at < (kept.failure === null ? windowTtlMs : windowFailureTtlMs)) return kept;
    const provider = this.create(endpoint.kind, endpoint.baseUrl, this.keyFor(endpoint));
    let found: { reported: ModelWindow | null; failure: string | null };
    try {
      const reported = provider.window ? await provider.window(model, withDeadline(signal, windowTimeoutMs)) : null;
      found = { reported, failure: null };
    } catch (error) {
      if (signal.aborted) return { reported: null, failure: 'stopped' };
      found = { reported: null, failure: toErrorInfo(error).message };
    }
    if (this.windows.size >= 64) this.windows.delete(this.windows.keys().next().value as string);
    this.windows.set(key, { at: now, ...found });
    return found;
  }

  /** Whether a model takes images, as its server says; false where the provider cannot tell. Throws a `ModelError` when unreachable. */
  async takesImages(choice: ModelChoice, signal: AbortSignal): Promise<boolean> {
    const endpoint = this.endpoint(choice.providerId);
    const provider = this.create(endpoint.kind, endpoint.baseUrl, this.keyFor(endpoint));
    return (await provider.takesImages?.(choice.model, signal)) ?? false;
  }

  describe(choice: ModelChoice): { kind: ProviderKind; baseUrl: string } {
    const endpoint = this.endpoint(choice.providerId);
    return { kind: endpoint.kind, baseUrl: endpoint.baseUrl };
  }

  /** A bare provider: one attempt per call, as a connection test wants. */
  create(kind: ProviderKind, baseUrl: string, apiKey: string | null): ModelProvider {
    const idle = this.options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: this.options.idleTimeoutMs };
    switch (kind) {
      case 'anthropic':
        return new AnthropicProvider({ baseUrl, apiKey, ...idle });
      case 'ollama':
        return new OllamaProvider({ baseUrl, apiKey, ...idle });
      case 'openai-compatible':
        return new OpenAICompatibleProvider({ baseUrl, apiKey, ...idle });
      case 'local':
        if (this.options.local === undefined)
          throw new WorkbenchError('runtime_failed', 'The built-in model runtime is not available here.');
        return this.options.local;
    }
  }

  save(input: ChannelInput<'provider:save'>): ProviderView {
    // "This computer" is the app's own endpoint, made when a model is added (`ensureLocalEndpoint`), never at an address.
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
    if (providers.length > 50) throw new WorkbenchError('invalid_input', 'At most 50 endpoints can be configured.');
    // The key goes first: if it cannot be stored, the endpoint is not saved either.
    if (input.apiKey === null) this.options.secrets.delete(secretKey(endpoint.id));
    else if (input.apiKey !== undefined) this.options.secrets.set(secretKey(endpoint.id), input.apiKey);
    const before = settings.providers.find((provider) => provider.id === endpoint.id);
    this.options.settings.set({ ...settings, providers });
    if (before && (before.baseUrl !== endpoint.baseUrl || before.kind !== endpoint.kind)) this.forgetChecks(endpoint.id);
    this.resolved.clear();
    this.windows.clear();
    return { ...endpoint, hasKey: this.options.secrets.get(secretKey(endpoint.id)) !== null };
  }

  /**
   * The endpoint of the built-in runtime ("This computer"), saved first when there is none: models on this computer
   * are served by it.
   */
  ensureLocalEndpoint(): ProviderView {
    const settings = this.options.settings.get();
    const known = settings.providers.find((provider) => provider.kind === 'local');
    if (known) return { ...known, hasKey: false };
    const endpoint: ProviderEndpoint = {
      id: newId(this.options.clock.now()),
      kind: 'local',
      name: localEndpointName,
      baseUrl: localEndpointAddress,
    };
    this.options.settings.set({ ...settings, providers: [...settings.providers, endpoint] });
    this.resolved.clear();
    return { ...endpoint, hasKey: false };
  }

  remove(providerId: string): void {
    const settings = this.options.settings.get();
    this.endpoint(providerId);
    const defaultModel = settings.defaultModel?.providerId === providerId ? null : settings.defaultModel;
    this.options.settings.set({
      ...settings,
      defaultModel,
      providers: settings.providers.filter((provider) => provider.id !== providerId),
      // What was chosen for its models goes with it, as does what checks found.
      modelSettings: settings.modelSettings.filter((item) => item.providerId !== providerId),
      contextWindows: settings.contextWindows.filter((item) => item.providerId !== providerId),
    });
    this.options.secrets.delete(secretKey(providerId));
    this.forgetChecks(providerId);
    this.resolved.clear();
  }

  /** What was found about an endpoint's models no longer holds (it was removed, or now points elsewhere). */
  private forgetChecks(providerId: string): void {
    this.generations.set(providerId, this.generationOf(providerId) + 1);
    this.options.checks?.forget(providerId);
    for (const key of this.refusedTools) if ((JSON.parse(key) as string[])[0] === providerId) this.refusedTools.delete(key);
  }

  async models(providerId: string, signal: AbortSignal): Promise<ModelInfo[]> {
    const endpoint = this.endpoint(providerId);
    return this.create(endpoint.kind, endpoint.baseUrl, this.keyFor(endpoint)).listModels(signal);
  }

  /** Lists models as the test: it shows what worked, or the exact error. */
  async test(input: ChannelInput<'provider:test'>, timeoutMs = 5_000): Promise<ConnectionTestResult> {
    const startedAt = this.options.clock.now();
    let provider: ModelProvider;
    if (input.providerId !== undefined) {
      const endpoint = this.endpoint(input.providerId);
      provider = this.create(endpoint.kind, endpoint.baseUrl, input.apiKey ?? this.keyFor(endpoint));
    } else if (input.kind !== undefined && input.baseUrl !== undefined) {
      provider = this.create(
        input.kind,
        input.baseUrl,
        input.apiKey ?? (input.kind === 'anthropic' ? (this.options.environmentAnthropicKey ?? null) : null),
      );
    } else {
      throw new WorkbenchError('invalid_input', 'Give providerId, or kind and baseUrl.');
    }
    try {
      const models = await provider.listModels(AbortSignal.timeout(timeoutMs));
      return { ok: true, latencyMs: this.options.clock.now() - startedAt, models };
    } catch (error) {
      return { ok: false, latencyMs: this.options.clock.now() - startedAt, models: [], error: toErrorInfo(error) };
    }
  }

  /** Probes the usual local servers, each given `timeoutMs` (discovery's short default when absent) to answer. */
  discover(timeoutMs?: number): Promise<DiscoveryResult> {
    return probeLocalEndpoints(
      this.options.discoveryCandidates ?? defaultDiscoveryCandidates,
      (kind, baseUrl) => this.create(kind, baseUrl, null),
      timeoutMs,
    );
  }

  private endpoint(providerId: string): ProviderEndpoint {
    const endpoint = this.options.settings.get().providers.find((provider) => provider.id === providerId);
    if (!endpoint) throw new NotFoundError('Provider', providerId);
    return endpoint;
  }

  private keyFor(endpoint: ProviderEndpoint): string | null {
    const stored = this.options.secrets.get(secretKey(endpoint.id));
    if (stored !== null) return stored;
    return endpoint.kind === 'anthropic' ? (this.options.environmentAnthropicKey ?? null) : null;
  }
}
