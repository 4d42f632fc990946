/**
 * Makes the bare provider for a kind of endpoint: Anthropic's API, Ollama's own, an OpenAI-compatible server, or the
 * built-in runtime ("This computer"). One attempt per call: retries and the tool protocol are added by whoever runs turns.
 */
import type { ProviderKind } from '../../shared/domain';
import { WorkbenchError } from '../../shared/errors';
import type { ModelProvider } from '../agent/ports/model-provider';
import { AnthropicProvider } from './anthropic-provider';
import { OllamaProvider } from './ollama-provider';
import { OpenAICompatibleProvider } from './openai-compatible-provider';

export interface ProviderFactoryOptions {
  /** How long a stream may be silent before it is given up; each provider's own default when absent. */
  readonly idleTimeoutMs?: number;
  /** The built-in runtime, serving endpoints of kind `local`; where it is absent, asking for one fails. */
  readonly local?: ModelProvider;
}

/** A provider speaking `kind`'s protocol to `baseUrl` with `apiKey`. Throws a `runtime_failed` error for `local` without a runtime. */
export function createProvider(kind: ProviderKind, baseUrl: string, apiKey: string | null, options: ProviderFactoryOptions): ModelProvider {
  const idle = options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs };
  switch (kind) {
    case 'anthropic':
      return new AnthropicProvider({ baseUrl, apiKey, ...idle });
    case 'ollama':
      return new OllamaProvider({ baseUrl, apiKey, ...idle });
    case 'openai-compatible':
      return new OpenAICompatibleProvider({ baseUrl, apiKey, ...idle });
    case 'local':
      if (options.local === undefined) throw new WorkbenchError('runtime_failed', 'The built-in model runtime is not available here.');
      return options.local;
  }
}
