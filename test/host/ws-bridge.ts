import { createBridge } from '../../src/shared/ipc/bridge';
import type { ChannelName, EventName } from '../../src/shared/ipc/contract';

/*
 * The test host's stand-in for the preload: the same bridge, built from the same contract, over a
 * WebSocket to the host on loopback instead of Electron IPC. Loaded as a classic script before the
 * app, so `window.workbench` exists when the app starts.
 */

type ServerMessage = { id: number; result: unknown } | { event: EventName; payload: unknown };

const token = new URLSearchParams(location.search).get('token') ?? '';
const socket = new WebSocket(`ws://${location.host}/ipc?token=${encodeURIComponent(token)}`);
const opened = new Promise<void>((resolve, reject) => {
  socket.addEventListener('open', () => resolve(), { once: true });
  socket.addEventListener('error', () => reject(new Error('The test host refused the connection.')), { once: true });
});
const pending = new Map<number, (result: unknown) => void>();
const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
let nextId = 1;

socket.addEventListener('message', (message: MessageEvent<string>) => {
  const data = JSON.parse(message.data) as ServerMessage;
  if ('id' in data) {
    pending.get(data.id)?.(data.result);
    pending.delete(data.id);
  } else {
    for (const listener of listeners.get(data.event) ?? []) listener(data.payload);
  }
});
socket.addEventListener('close', () => {
  for (const resolve of pending.values()) resolve({ ok: false, error: { code: 'internal', message: 'The connection to the app closed.' } });
  pending.clear();
});

Object.defineProperty(window, 'workbench', {
  value: createBridge({
    invoke: async (channel: ChannelName, input: unknown) => {
      await opened;
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        socket.send(JSON.stringify({ id, channel, payload: input }));
      });
    },
    subscribe: (event, listener) => {
      const set = listeners.get(event) ?? new Set();
      set.add(listener);
      listeners.set(event, set);
      return () => set.delete(listener);
    },
    // A page cannot give a dropped File a path on disk; Electron's webUtils does. A test names the path a dropped
    // item's name stands for (`window.testDropPaths`), and the bridge answers it as the preload would.
    // Main is told of the path before the page has it, as the preload does, so the page may name it next.
    pathForFile: (file: File) => {
      const path = (window as unknown as { testDropPaths?: Record<string, string> }).testDropPaths?.[file.name] ?? null;
      if (path !== null && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ dropped: path }));
      return path;
    },
  }),
  writable: false,
  configurable: false,
});
