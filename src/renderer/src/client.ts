/*
 * Calls from the renderer to the main process: a channel's result unwrapped, a refusal thrown as a `RemoteError` with
 * its code.
 */

import type { WorkbenchBridge } from '../../shared/ipc/bridge';
import type { ChannelInput, ChannelName, ChannelOutput } from '../../shared/ipc/contract';
import type { ErrorCode, ErrorInfo } from '../../shared/errors';

/** An error answered by main, with its code. */
export class RemoteError extends Error {
  readonly code: ErrorCode;
  constructor(readonly info: ErrorInfo) {
    super(info.message);
    this.name = 'RemoteError';
    this.code = info.code;
  }
}

/** Calls a channel and unwraps its result; a refused call rejects with a `RemoteError`. */
export async function callWith<K extends ChannelName>(api: WorkbenchBridge, channel: K, input: ChannelInput<K>): Promise<ChannelOutput<K>> {
  const invoke = api.invoke[channel] as (
    input: ChannelInput<K>,
  ) => Promise<{ ok: true; value: ChannelOutput<K> } | { ok: false; error: ErrorInfo }>;
  const result = await invoke(input);
  if (!result.ok) throw new RemoteError(result.error);
  return result.value;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export type Call = <K extends ChannelName>(channel: K, input: ChannelInput<K>) => Promise<ChannelOutput<K>>;
