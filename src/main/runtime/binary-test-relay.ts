/*
 * node-llama-cpp's binary test, forked by the app for the runtime's process: the messages between the two, and the app's
 * side, which starts the test file and relays its messages and its end.
 *
 * Before it loads a prebuilt llama.cpp binary (on Linux always, on Windows for GPU builds) node-llama-cpp tries it in a
 * throwaway process, so that an incompatible binary crashes that process and not the one that would load it. From the
 * runtime's utility process it forks that process with child_process.fork, which Electron runs as Node only through
 * ELECTRON_RUN_AS_NODE: with that fuse off, the runtime asks the app instead (binary-test-fork.ts), whose main process
 * forks the same test file as a utility process of its own.
 */

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { z } from 'zod';

/**
 * What node-llama-cpp 3.21.1's test process is sent (dist/bindings/utils/testBindingBinary.js): load the binary, then
 * try it, then leave.
 */
const testerRequestSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.enum(['start', 'test']),
    bindingBinaryPath: z.string().min(1),
    extBackendsPath: z.string().min(1).optional(),
    gpu: z.union([z.literal(false), z.string().min(1)]),
  }),
  z.object({ type: z.literal('exit') }),
]);

/** What the test process says: started, binary loaded, binary works. A failure ends it with a code other than 0. */
const testerReplySchema = z.object({ type: z.enum(['ready', 'loaded', 'done']) });

/** From the runtime's process: one test (numbered by the runtime) to start, to send a message to, or to end. */
export const binaryTestRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('binary_test_start'), test: z.number().int() }),
  z.object({ type: z.literal('binary_test_send'), test: z.number().int(), message: testerRequestSchema }),
  z.object({ type: z.literal('binary_test_kill'), test: z.number().int() }),
]);
export type BinaryTestRequest = z.infer<typeof binaryTestRequestSchema>;

/** To the runtime's process: what a test process said, and how it ended. */
export const binaryTestReplySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('binary_test_message'), test: z.number().int(), message: testerReplySchema }),
  z.object({ type: z.literal('binary_test_exit'), test: z.number().int(), code: z.number().int() }),
]);
export type BinaryTestReply = z.infer<typeof binaryTestReplySchema>;

/** Whether a message is the binary test's, whether or not it is well formed: the runtime's own requests and replies never are. */
export function isBinaryTestMessage(message: unknown): boolean {
  return (
    typeof message === 'object' &&
    message !== null &&
    'type' in message &&
    typeof message.type === 'string' &&
    message.type.startsWith('binary_test_')
  );
}

/**
 * node-llama-cpp's test file, where this copy of node-llama-cpp has it: the file its getLlama forks, and the only one
 * the app forks for the runtime.
 */
export function binaryTesterPath(): string {
  const entry = createRequire(import.meta.url).resolve('node-llama-cpp');
  return join(dirname(entry), 'bindings', 'utils', 'testBindingBinary.js');
}

/** A test process as the app starts it: an Electron utility process in the app, a forked Node process under Node. */
export interface TesterChild {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  once(event: 'exit', listener: (code: number) => void): unknown;
  kill(): unknown;
}

/** Starts `modulePath` as a test process with `env`. */
export type TesterFork = (modulePath: string, env: NodeJS.ProcessEnv) => TesterChild;

/**
 * The app's side of the runtime's binary tests: starts node-llama-cpp's test file for each test the runtime asks for,
 * passes the messages both ways (each checked), and ends the tests still running when the runtime's process ends.
 */
export class BinaryTestRelay {
  private readonly testers = new Map<number, TesterChild>();
  private closed = false;

  constructor(
    private readonly fork: TesterFork,
    private readonly reply: (message: BinaryTestReply) => void,
    private readonly testerPath: string = binaryTesterPath(),
  ) {}

  /**
   * Takes a message from the runtime's process if it is a well-formed binary test request, and says whether it did. One
   * it does not take goes where the runtime's other messages go, where anything unexpected ends the process.
   */
  take(raw: unknown): boolean {
    const parsed = binaryTestRequestSchema.safeParse(raw);
    if (!parsed.success) return false;
    const request = parsed.data;
    switch (request.type) {
      case 'binary_test_start':
        this.start(request.test);
        return true;
      case 'binary_test_send':
        this.testers.get(request.test)?.postMessage(request.message);
        return true;
      case 'binary_test_kill':
        this.testers.get(request.test)?.kill();
        return true;
    }
  }

  /** The runtime's process ended: its tests end with it. */
  close(): void {
    this.closed = true;
    const running = [...this.testers.values()];
    this.testers.clear();
    for (const tester of running) tester.kill();
  }

  private start(test: number): void {
    if (this.testers.has(test)) return;
    if (this.closed) return this.reply({ type: 'binary_test_exit', test, code: -1 });
    let tester: TesterChild;
    try {
      // The environment the test file looks for to know it is the test process.
      tester = this.fork(this.testerPath, { ...process.env, TEST_BINDING_CP: 'true' });
    } catch (error) {
      console.error(`The built-in runtime's binary test could not start: ${error instanceof Error ? error.message : String(error)}`);
      // node-llama-cpp takes a test process that ends before it says it started as a test that could not run.
      return this.reply({ type: 'binary_test_exit', test, code: -1 });
    }
    this.testers.set(test, tester);
    tester.on('message', (raw) => {
      const parsed = testerReplySchema.safeParse(raw);
      // A test process that says what it may not has failed its test.
      if (!parsed.success) return void tester.kill();
      if (this.testers.get(test) === tester) this.reply({ type: 'binary_test_message', test, message: parsed.data });
    });
    tester.once('exit', (code) => {
      if (this.testers.get(test) !== tester) return;
      this.testers.delete(test);
      this.reply({ type: 'binary_test_exit', test, code });
    });
  }
}
