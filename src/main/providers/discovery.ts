import type { DiscoveredEndpoint } from '../../shared/ipc/contract';
import type { ModelInfo } from '../../shared/domain';
import type { ModelProvider } from '../agent/model-provider';

export interface DiscoveryCandidate {
  readonly name: string;
  readonly baseUrl: string;
}

/** The usual local servers and their default ports. */
export const defaultDiscoveryCandidates: readonly DiscoveryCandidate[] = [
  { name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
  { name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1' },
  { name: 'llama.cpp server', baseUrl: 'http://127.0.0.1:8080/v1' },
  { name: 'vLLM', baseUrl: 'http://127.0.0.1:8000/v1' },
];

/**
 * Probes the candidates in parallel with a short timeout each and returns the ones that answered
 * with a model list. A port with nothing on it fails fast (connection refused) and is left out.
 */
export async function discoverLocalEndpoints(
  candidates: readonly DiscoveryCandidate[],
  createProvider: (baseUrl: string) => ModelProvider,
  timeoutMs = 800,
): Promise<DiscoveredEndpoint[]> {
  const probes = candidates.map(async (candidate): Promise<DiscoveredEndpoint | null> => {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const models: ModelInfo[] = await createProvider(candidate.baseUrl).listModels(signal);
      return { name: candidate.name, kind: 'openai-compatible', baseUrl: candidate.baseUrl, models };
    } catch {
      return null;
    }
  });
  return (await Promise.all(probes)).filter((found): found is DiscoveredEndpoint => found !== null);
}
