import type { DiscoveredEndpoint } from '../../shared/ipc/contract';
import type { ModelInfo, ProviderKind } from '../../shared/domain';
import type { ModelProvider } from '../agent/model-provider';

export interface DiscoveryCandidate {
  readonly name: string;
  /** The protocol the server is probed with and saved as. */
  readonly kind: ProviderKind;
  readonly baseUrl: string;
}

/** The usual local servers and their default ports. Ollama is spoken to through its own API, which can set the window. */
export const defaultDiscoveryCandidates: readonly DiscoveryCandidate[] = [
  { name: 'Ollama', kind: 'ollama', baseUrl: 'http://127.0.0.1:11434' },
  { name: 'LM Studio', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1234/v1' },
  { name: 'llama.cpp server', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:8080/v1' },
  { name: 'vLLM', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:8000/v1' },
];

/**
 * Probes the candidates in parallel with a short timeout each and returns the ones that answered
 * with a model list. A port with nothing on it fails fast (connection refused) and is left out.
 */
export async function discoverLocalEndpoints(
  candidates: readonly DiscoveryCandidate[],
  createProvider: (kind: ProviderKind, baseUrl: string) => ModelProvider,
  timeoutMs = 800,
): Promise<DiscoveredEndpoint[]> {
  const probes = candidates.map(async (candidate): Promise<DiscoveredEndpoint | null> => {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const models: ModelInfo[] = await createProvider(candidate.kind, candidate.baseUrl).listModels(signal);
      return { name: candidate.name, kind: candidate.kind, baseUrl: candidate.baseUrl, models };
    } catch {
      return null;
    }
  });
  return (await Promise.all(probes)).filter((found): found is DiscoveredEndpoint => found !== null);
}
