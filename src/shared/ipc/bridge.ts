/*
 * The typed `window.workbench` API the renderer calls main through, built from the contract over a transport.
 */

import { channelNames, eventNames } from './contract';
import type { ChannelInput, ChannelName, ChannelOutput, EventName, EventPayload, IpcResult } from './contract';

/**
 * The message by which the preload tells main of a path dropped on the window. Not a channel of the contract: the
 * page's bridge has no function that sends it, so only a real drop can.
 */
export const droppedPathChannel = 'workbench:dropped-path';

/** The API the preload exposes at `window.workbench`, derived from the contract. */
export interface WorkbenchBridge {
  readonly invoke: { readonly [K in ChannelName]: (input: ChannelInput<K>) => Promise<IpcResult<ChannelOutput<K>>> };
  readonly on: { readonly [K in EventName]: (listener: (payload: EventPayload<K>) => void) => () => void };
  /** The file system path of a dropped folder, where the host can tell it. */
  readonly pathForFile: (file: File) => string | null;
}

/** Low-level transport a bridge is built on: Electron's ipcRenderer in the preload, a WebSocket in the test host. */
export interface BridgeTransport {
  invoke(channel: ChannelName, input: unknown): Promise<unknown>;
  subscribe(event: EventName, listener: (payload: unknown) => void): () => void;
  pathForFile(file: File): string | null;
}

/**
 * Builds the closed bridge: one function per channel and per event, nothing generic. Payloads from
 * main are trusted shapes (main validated them); the renderer narrows results through `IpcResult`.
 */
export function createBridge(transport: BridgeTransport): WorkbenchBridge {
  const invoke: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const name of channelNames) {
    invoke[name] = (input: unknown) => transport.invoke(name, input);
  }
  const on: Record<string, (listener: (payload: unknown) => void) => () => void> = {};
  for (const name of eventNames) {
    on[name] = (listener: (payload: unknown) => void) => transport.subscribe(name, listener);
  }
  return Object.freeze({
    invoke: Object.freeze(invoke) as unknown as WorkbenchBridge['invoke'],
    on: Object.freeze(on) as unknown as WorkbenchBridge['on'],
    pathForFile: (file: File) => transport.pathForFile(file),
  });
}
