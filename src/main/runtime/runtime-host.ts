/*
 * The built-in runtime's process: an Electron utility process in the app (messages through `process.parentPort`), a
 * forked Node process under Node (messages through `process.send`). It computes while the app's main process and window
 * stay free, and a crash in the native code ends this process, not the app.
 */

import { routeBinaryTests } from './binary-test-fork';
import { isBinaryTestMessage } from './binary-test-relay';
import { LlamaRuntime, RuntimeFailure } from './llama-runtime';
import { runtimeRequestSchema, type RuntimeReply, type RuntimeStreamEvent } from './runtime-protocol';

interface ParentPort {
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

const parentPort = (process as NodeJS.Process & { parentPort?: ParentPort }).parentPort;

function send(message: unknown): void {
  if (parentPort) parentPort.postMessage(message);
  else process.send?.(message);
}

function post(message: RuntimeReply): void {
  send(message);
}

function listen(listener: (message: unknown) => void): void {
  if (parentPort) parentPort.on('message', (event) => listener(event.data));
  else process.on('message', listener);
}

/** How long pieces of a generation are gathered into one message; the first goes at once. */
const batchMs = 16;

/** Gathers a generation's events into few messages: the cost of a message must not be paid per token. */
class EventBatch {
  private events: RuntimeStreamEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private sentAt = 0;

  constructor(private readonly id: number) {}

  add(event: RuntimeStreamEvent): void {
    this.events.push(event);
    const final = event.type === 'done' || event.type === 'error';
    if (final || Date.now() - this.sentAt >= batchMs) return this.flush();
    this.timer ??= setTimeout(() => this.flush(), batchMs);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.events.length === 0) return;
    post({ type: 'events', id: this.id, events: this.events });
    this.events = [];
    this.sentAt = Date.now();
  }
}

const runtime = new LlamaRuntime();
const running = new Map<number, AbortController>();
const failed = (id: number, error: unknown): void =>
  post({
    type: 'failed',
    id,
    error:
      error instanceof RuntimeFailure
        ? error.info
        : { code: 'runtime_failed', message: error instanceof Error ? error.message : String(error) },
  });

function handle(raw: unknown): void {
  const parsed = runtimeRequestSchema.safeParse(raw);
  if (!parsed.success) {
    const id = typeof raw === 'object' && raw !== null && 'id' in raw && typeof raw.id === 'number' ? raw.id : -1;
    post({
      type: 'failed',
      id,
      error: { code: 'invalid_input', message: `The runtime was sent a request it does not take: ${parsed.error.message}` },
    });
    return;
  }
  const message = parsed.data;
  switch (message.type) {
    case 'generate': {
      const controller = new AbortController();
      running.set(message.id, controller);
      const batch = new EventBatch(message.id);
      void runtime.generate(message.request, controller.signal, (event) => batch.add(event)).finally(() => running.delete(message.id));
      return;
    }
    case 'cancel':
      running.get(message.id)?.abort();
      return;
    case 'count':
      runtime.count(message.modelPath, message.text).then(
        (tokens) => post({ type: 'counted', id: message.id, tokens }),
        (error: unknown) => failed(message.id, error),
      );
      return;
    case 'machine':
      runtime.machine().then(
        (machine) => post({ type: 'machine', id: message.id, machine }),
        (error: unknown) => failed(message.id, error),
      );
      return;
    case 'unload':
      runtime.unload().then(
        () => post({ type: 'unloaded', id: message.id }),
        (error: unknown) => failed(message.id, error),
      );
      return;
  }
}

// node-llama-cpp tries its binary in a process of its own before loading it: the app starts that process (Electron runs
// no child of this one as Node, the RunAsNode fuse being off).
if (parentPort || process.send) routeBinaryTests({ post: send, listen });

// The app says through the environment whether to use a GPU, how many threads to compute with (node-llama-cpp's choice
// when it does not say), and how many lines of requests keep their prompt at once (llama-runtime.ts's default when it
// does not say). Requests wait until the binding is loaded.
const positive = (name: string): number | null => {
  const value = Number.parseInt(process.env[name] ?? '', 10);
  return Number.isInteger(value) && value > 0 ? value : null;
};
const threads = positive('WORKBENCH_RUNTIME_THREADS');
const sequences = positive('WORKBENCH_RUNTIME_SEQUENCES');
const started = runtime.start({
  gpu: process.env['WORKBENCH_RUNTIME_GPU'] !== 'off',
  ...(threads === null ? {} : { threads }),
  ...(sequences === null ? {} : { sequences }),
});
started.then(
  (machine) => post({ type: 'ready', machine }),
  (error: unknown) => {
    console.error(`The built-in runtime could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(3);
  },
);
listen((raw) => {
  // The binary test's messages are for routeBinaryTests, and arrive while the binding loads.
  if (!isBinaryTestMessage(raw)) void started.then(() => handle(raw));
});
// The app went away: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
