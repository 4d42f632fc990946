/**
 * The context window a model's requests are budgeted with: the person's setting, else what the server says it loaded
 * (kept a minute per model), else the safe default, saying why. For Ollama, which takes the window per request, the
 * app chooses it.
 */
import { BoundedMap } from '../../shared/bounded-map';
import { defaultContextWindow, type ContextWindow, type ModelChoice, type ProviderEndpoint } from '../../shared/domain';
import { toErrorInfo } from '../../shared/errors';
import { withDeadline } from '../../shared/deadline';
import type { Clock } from '../agent/ports/clock';
import type { ModelProvider, ModelWindow } from '../agent/ports/model-provider';
import type { SettingsStore } from '../agent/ports/settings';

/** How long what a server said about a window is trusted, and how long a failure to ask is. */
const windowTtlMs = 60_000;
const windowFailureTtlMs = 10_000;
const windowTimeoutMs = 3_000;

/** A window figure worth believing: a whole number of tokens, neither tiny nor absurd. */
const plausible = (tokens: number | null | undefined): number | null =>
  typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 256 && tokens <= 10_000_000 ? tokens : null;

/** What a server said about a model's window, or why it could not be asked. */
interface Report {
  readonly reported: ModelWindow | null;
  readonly failure: string | null;
}

export interface ContextWindowsOptions {
  readonly settings: SettingsStore;
  readonly clock: Pick<Clock, 'now'>;
  /** The endpoint with this id; throws when there is none. */
  readonly endpointOf: (providerId: string) => ProviderEndpoint;
  /** A bare provider for an endpoint, to ask its server. */
  readonly providerFor: (endpoint: ProviderEndpoint) => ModelProvider;
}

/** The windows of models, with what their servers said kept for the last 64 models asked about. */
export class ContextWindows {
  private readonly reports = new BoundedMap<string, Report & { readonly at: number }>({ max: 64 });

  constructor(private readonly options: ContextWindowsOptions) {}

  /**
   * The window a model's requests are budgeted with: the person's setting wins; then what the server says it loaded;
   * else the safe default, saying why. For Ollama, the one the model runs with now when that is larger than the
   * default, within what the model was trained for. Never throws.
   */
  async window(choice: ModelChoice, signal: AbortSignal): Promise<ContextWindow> {
    const override = this.options.settings
      .get()
      .contextWindows.find((item) => item.providerId === choice.providerId && item.model === choice.model);
    let endpoint: ProviderEndpoint;
    try {
      endpoint = this.options.endpointOf(choice.providerId);
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
    if (loaded !== null) {
      const said = reported ? (reported.route ? `${reported.source}: ${reported.route}` : reported.source) : 'the server';
      return { tokens: loaded, source: 'server', detail: said, trained };
    }
    const why = failure ? `its window could not be read (${failure})` : 'the server does not say which window it loaded';
    return { tokens: defaultContextWindow, source: 'default', detail: `${why}: the safe default`, trained };
  }

  /** Forgets what servers said: the endpoints changed. */
  clear(): void {
    this.reports.clear();
  }

  private async reported(endpoint: ProviderEndpoint, model: string, signal: AbortSignal): Promise<Report> {
    const key = JSON.stringify([endpoint.id, endpoint.kind, endpoint.baseUrl, model]);
    const now = this.options.clock.now();
    const kept = this.reports.get(key);
    if (kept && now - kept.at < (kept.failure === null ? windowTtlMs : windowFailureTtlMs)) return kept;
    const provider = this.options.providerFor(endpoint);
    let found: Report;
    try {
      const reported = provider.window ? await provider.window(model, withDeadline(signal, windowTimeoutMs)) : null;
      found = { reported, failure: null };
    } catch (error) {
      // A question the caller stopped says nothing about the server: it is not kept.
      if (signal.aborted) return { reported: null, failure: 'stopped' };
      found = { reported: null, failure: toErrorInfo(error).message };
    }
    this.reports.set(key, { at: now, ...found });
    return found;
  }
}
