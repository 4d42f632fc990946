/*
 * Looks for the usual local model servers (Ollama, LM Studio, llama.cpp, vLLM) on their default ports, and says why any
 * was not found.
 */

import type { DiscoveredEndpoint, DiscoveryResult, MissedEndpoint } from '../../shared/ipc/contract';
import type { ModelInfo, ProviderKind } from '../../shared/domain';
import { toErrorInfo } from '../../shared/errors';
import type { ModelProvider } from '../agent/ports/model-provider';

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

/** How long a server is given on a first look: a port with nothing on it fails at once, a running server answers in ms. */
export const discoveryTimeoutMs = 800;

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/**
 * Probes the candidates in parallel with a timeout each, and says for each one whether it answered with a model list
 * and, if not, why: nothing listening (the usual case, fast), no answer within the timeout (a server busy loading a
 * model: it is running, so it must not be reported as missing), or another failure, in the words of `failure-words`.
 */
export async function probeLocalEndpoints(
  candidates: readonly DiscoveryCandidate[],
  createProvider: (kind: ProviderKind, baseUrl: string) => ModelProvider,
  timeoutMs = discoveryTimeoutMs,
): Promise<DiscoveryResult> {
  const probes = candidates.map(async (candidate): Promise<DiscoveredEndpoint | MissedEndpoint> => {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const models: ModelInfo[] = await createProvider(candidate.kind, candidate.baseUrl).listModels(signal);
      return { name: candidate.name, kind: candidate.kind, baseUrl: candidate.baseUrl, models };
    } catch (error) {
      const where = { name: candidate.name, kind: candidate.kind, baseUrl: candidate.baseUrl };
      if (signal.aborted)
        return {
          ...where,
          reason: 'slow',
          message: `${candidate.name} is there but did not answer within ${seconds(timeoutMs)}: it may be loading a model or busy with another request.`,
        };
      const info = toErrorInfo(error);
      // The providers turn ECONNREFUSED into this sentence (failure-words.ts `connectionFailure`); the cause is not kept.
      const notRunning = info.code === 'model_connection_failed' && info.message.startsWith('Nothing is listening');
      return { ...where, reason: notRunning ? 'not_running' : 'failed', message: info.message };
    }
  });
  const results = await Promise.all(probes);
  return {
    found: results.filter((result): result is DiscoveredEndpoint => 'models' in result),
    missed: results.filter((result): result is MissedEndpoint => 'reason' in result),
    timeoutMs,
  };
}

/** The candidates that answered with a model list; a port with nothing on it fails fast and is left out. */
export async function discoverLocalEndpoints(
  candidates: readonly DiscoveryCandidate[],
  createProvider: (kind: ProviderKind, baseUrl: string) => ModelProvider,
  timeoutMs = discoveryTimeoutMs,
): Promise<DiscoveredEndpoint[]> {
  return (await probeLocalEndpoints(candidates, createProvider, timeoutMs)).found;
}
