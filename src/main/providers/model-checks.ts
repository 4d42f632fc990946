/**
 * What checks of models found (the model doctor's probes, and tool definitions a server refused in a turn), which
 * decides a model's tool protocol on `auto`; checks run one per model at a time, wait while a turn runs when started
 * in the background, and each is announced.
 */
import { modelSettingOf, type ModelCheck, type ModelInfo, type ProviderEndpoint } from '../../shared/domain';
import { WorkbenchError } from '../../shared/errors';
import { withDeadline } from '../../shared/deadline';
import type { Clock } from '../agent/ports/clock';
import type { ModelProvider } from '../agent/ports/model-provider';
import type { ModelCheckStore } from '../agent/ports/ports';
import type { SettingsStore } from '../agent/ports/settings';
import { checkModel, refusedInTurn, type DoctorTimeouts } from './model-doctor';
import type { ProtocolChoice } from './text-tool-provider';

/** How many of an endpoint's models a check of all of them looks at, one after another. */
const checkAllLimit = 20;

export interface ModelChecksOptions {
  readonly settings: SettingsStore;
  readonly clock: Clock;
  /** Where what checks of models found is kept; without it, only what turns found, in memory. */
  readonly checks?: ModelCheckStore;
  /** Told of every new or changed check of a model. */
  readonly onChecked?: (check: ModelCheck) => void;
  /** Whether a turn is running: checks in the background wait for it to end. */
  readonly busy?: () => boolean;
  readonly doctorTimeouts?: DoctorTimeouts;
  /** The endpoint with this id; throws a `NotFoundError` when there is none. */
  readonly endpointOf: (providerId: string) => ProviderEndpoint;
  /** A bare provider for an endpoint: one attempt per call, as a probe wants. */
  readonly providerFor: (endpoint: ProviderEndpoint) => ModelProvider;
}

/** The checks of models: running them, keeping what they found, and the tool protocol that follows from it. */
export class ModelChecks {
  /** Models whose server refused tool definitions during a turn, as `[providerId, model]` JSON. */
  private readonly refusedTools = new Set<string>();
  private readonly closing = new AbortController();
  private readonly running = new Map<string, Promise<ModelCheck>>();
  private readonly generations = new Map<string, number>();

  constructor(private readonly options: ModelChecksOptions) {}

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

  /** A server refused a model's tool definitions during a turn: it gets them as text from now on, and the check says so. */
  toolsRefused(providerId: string, model: string, reason: string): void {
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

  /**
   * Checks the models a local endpoint serves, one after another (the first 20), in the background, waiting while a turn
   * runs so the checks never hold up the person's work; each is announced when done. An Anthropic endpoint is checked
   * only on demand: its probes are paid requests, and its models all call tools.
   */
  async checkAll(providerId: string): Promise<void> {
    const endpoint = this.options.endpointOf(providerId);
    if (endpoint.kind === 'anthropic') return;
    const generation = this.generationOf(providerId);
    let models: ModelInfo[];
    try {
      models = await this.options.providerFor(endpoint).listModels(withDeadline(this.closing.signal, 10_000));
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
  list(providerId?: string): ModelCheck[] {
    return this.options.checks?.list(providerId) ?? [];
  }

  /** What was found about an endpoint's models no longer holds (it was removed, or now points elsewhere). */
  forget(providerId: string): void {
    this.generations.set(providerId, this.generationOf(providerId) + 1);
    this.options.checks?.forget(providerId);
    for (const key of this.refusedTools) if ((JSON.parse(key) as string[])[0] === providerId) this.refusedTools.delete(key);
  }

  /** Stops checks that are running. */
  dispose(): void {
    this.closing.abort();
  }

  private async examine(providerId: string, model: string, signal: AbortSignal): Promise<ModelCheck> {
    const endpoint = this.options.endpointOf(providerId);
    const generation = this.generationOf(providerId);
    const provider = this.options.providerFor(endpoint);
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
}
