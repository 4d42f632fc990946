import type { ChannelName, EventName, IpcResult } from '../../src/shared/ipc/contract';
import type { Disposable, IpcTransport, SenderInfo } from '../../src/main/ipc/router';

/** The app's own sender, as the test host presents it. */
export const trustedSender: SenderInfo = { url: 'http://127.0.0.1/', isMainFrame: true };

/**
 * An in-process transport: requests are direct calls, events go to listeners. Tests, benchmarks
 * and the WebSocket host all sit on it.
 */
export class LoopbackTransport implements IpcTransport {
  private readonly handlers = new Map<string, (sender: SenderInfo, payload: unknown) => Promise<IpcResult<unknown>>>();
  private readonly listeners = new Set<(event: EventName, payload: unknown) => void>();
  readonly sent: Array<{ event: EventName; payload: unknown }> = [];
  recordEvents = true;
  /**
   * Test code stands for the person: a path it names to a channel that takes one (a workspace, a model file) counts as
   * chosen in a dialog, through this. The page's own calls (`invokeFromPage`) get no such help: main checks them.
   */
  chooser: ((path: string) => void) | null = null;

  handle(channel: ChannelName, handler: (sender: SenderInfo, payload: unknown) => Promise<IpcResult<unknown>>): Disposable {
    this.handlers.set(channel, handler);
    return { dispose: () => void this.handlers.delete(channel) };
  }

  send(event: EventName, payload: unknown): void {
    if (this.recordEvents) this.sent.push({ event, payload });
    for (const listener of this.listeners) listener(event, payload);
  }

  /** Calls a channel as test code, the paths it names chosen as the person would in a dialog (see `chooser`). */
  async invoke(channel: string, payload: unknown, sender: SenderInfo = trustedSender): Promise<IpcResult<unknown>> {
    if (this.chooser && payload !== null && typeof payload === 'object') {
      const fields = payload as { workspacePath?: unknown; path?: unknown };
      const path =
        channel === 'session:create'
          ? fields.workspacePath
          : ['workspace:set', 'local-model:addFile'].includes(channel)
            ? fields.path
            : undefined;
      if (typeof path === 'string' && path !== '') this.chooser(path);
    }
    return this.invokeFromPage(channel, payload, sender);
  }

  /** Calls a channel the way the renderer does; an unknown channel gets a typed error. */
  async invokeFromPage(channel: string, payload: unknown, sender: SenderInfo = trustedSender): Promise<IpcResult<unknown>> {
    const handler = this.handlers.get(channel);
    if (!handler) return { ok: false, error: { code: 'unknown_channel', message: `There is no channel ${JSON.stringify(channel)}.` } };
    return handler(sender, payload);
  }

  onEvent(listener: (event: EventName, payload: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get handlerCount(): number {
    return this.handlers.size;
  }
}
