/**
 * The connection test of an endpoint, saved or about to be: lists its models and shows what worked, how long it took,
 * or the exact error.
 */
import type { ProviderKind } from '../../shared/domain';
import { WorkbenchError, toErrorInfo } from '../../shared/errors';
import type { ChannelInput, ConnectionTestResult } from '../../shared/ipc/contract';
import type { Clock } from '../agent/ports/clock';
import type { ModelProvider } from '../agent/ports/model-provider';
import type { Endpoints } from './endpoints';

export interface ConnectionTestOptions {
  readonly endpoints: Endpoints;
  readonly create: (kind: ProviderKind, baseUrl: string, apiKey: string | null) => ModelProvider;
  readonly clock: Pick<Clock, 'now'>;
}

/**
 * Tests a saved endpoint (by `providerId`) or an address not saved yet (`kind` and `baseUrl`), with the key given,
 * else the one it would use. Throws only when the input names neither; a failure to connect is the result.
 */
export async function testConnection(
  input: ChannelInput<'provider:test'>,
  timeoutMs: number,
  options: ConnectionTestOptions,
): Promise<ConnectionTestResult> {
  const { endpoints, create, clock } = options;
  const startedAt = clock.now();
  let provider: ModelProvider;
  if (input.providerId !== undefined) {
    const endpoint = endpoints.get(input.providerId);
    provider = create(endpoint.kind, endpoint.baseUrl, input.apiKey ?? endpoints.keyFor(endpoint));
  } else if (input.kind !== undefined && input.baseUrl !== undefined) {
    provider = create(input.kind, input.baseUrl, input.apiKey ?? endpoints.unstoredKey(input.kind));
  } else {
    throw new WorkbenchError('invalid_input', 'Give providerId, or kind and baseUrl.');
  }
  try {
    const models = await provider.listModels(AbortSignal.timeout(timeoutMs));
    return { ok: true, latencyMs: clock.now() - startedAt, models };
  } catch (error) {
    return { ok: false, latencyMs: clock.now() - startedAt, models: [], error: toErrorInfo(error) };
  }
}
