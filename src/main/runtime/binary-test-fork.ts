/*
 * The runtime process's side of node-llama-cpp's binary test: its fork of the test file goes to the app, which starts
 * the test process (binary-test-relay.ts), so the runtime never needs Electron to run as Node.
 *
 * node-llama-cpp imports `fork` from node:child_process as an ES module. A builtin's ES exports are live bindings that
 * `syncBuiltinESMExports` sets again from the CommonJS exports, so a `fork` replaced there is the one node-llama-cpp calls,
 * whether it was imported before or after. Only its test file is sent to the app; any other fork is Node's own.
 */

import childProcess, { type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { syncBuiltinESMExports } from 'node:module';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binaryTestReplySchema, binaryTesterPath, isBinaryTestMessage, type BinaryTestRequest } from './binary-test-relay';

/** A request as the runtime sends it: what it passes to the test process is checked by the app, not here. */
export type OutgoingBinaryTestRequest =
  | Exclude<BinaryTestRequest, { type: 'binary_test_send' }>
  | { readonly type: 'binary_test_send'; readonly test: number; readonly message: unknown };

/** How the runtime's process speaks with the app. */
export interface RuntimePort {
  post(message: OutgoingBinaryTestRequest): void;
  listen(listener: (message: unknown) => void): void;
}

/**
 * A test process the app runs, as the test's caller sees a child process: the members node-llama-cpp's test uses
 * (`send`, `kill`, `exitCode`, `killed`, no output streams, and its 'message' and 'exit' events).
 */
class RelayedTester extends EventEmitter {
  exitCode: number | null = null;
  killed = false;
  readonly stdout = null;
  readonly stderr = null;

  constructor(
    private readonly test: number,
    private readonly port: RuntimePort,
  ) {
    super();
  }

  send(message: unknown): boolean {
    if (this.exitCode !== null) return false;
    this.port.post({ type: 'binary_test_send', test: this.test, message });
    return true;
  }

  kill(): boolean {
    if (this.exitCode !== null) return false;
    this.killed = true;
    this.port.post({ type: 'binary_test_kill', test: this.test });
    return true;
  }

  received(message: unknown): void {
    if (this.exitCode === null) this.emit('message', message);
  }

  exited(code: number): void {
    if (this.exitCode !== null) return;
    this.exitCode = code;
    this.emit('exit', code, null);
  }
}

/**
 * Whether node-llama-cpp forks the very test file the app runs for it: the same text, or the same file reached another
 * way (a link, another letter case), as realpath gives both. Not the workspace's case-rule comparison (path-case.ts):
 * this asks whether two names open one module, which realpath answers on every system.
 */
function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * From now on, node-llama-cpp's fork of its binary test file starts the test in the app, through `port`; the answers
 * come back through `port` too. Call once, before getLlama.
 */
export function routeBinaryTests(port: RuntimePort, testerPath: string = binaryTesterPath()): void {
  const nodeFork = childProcess.fork;
  const testers = new Map<number, RelayedTester>();
  let next = 0;

  port.listen((raw) => {
    if (!isBinaryTestMessage(raw)) return;
    const parsed = binaryTestReplySchema.safeParse(raw);
    if (!parsed.success) {
      console.error(`The app sent the runtime a binary test message it does not take: ${parsed.error.message}`);
      return;
    }
    const reply = parsed.data;
    const tester = testers.get(reply.test);
    if (!tester) return;
    if (reply.type === 'binary_test_message') return tester.received(reply.message);
    testers.delete(reply.test);
    tester.exited(reply.code);
  });

  // The test file is forked as `fork(path, [], options)`; the options (its environment and output) are the app's to set.
  function routedFork(this: unknown, modulePath: string | URL, ...rest: unknown[]): ChildProcess {
    const path = modulePath instanceof URL ? fileURLToPath(modulePath) : modulePath;
    if (!sameFile(path, testerPath)) return Reflect.apply(nodeFork, this, [modulePath, ...rest]) as ChildProcess;
    const test = next++;
    const tester = new RelayedTester(test, port);
    testers.set(test, tester);
    port.post({ type: 'binary_test_start', test });
    // Not a ChildProcess: the members node-llama-cpp's binary test uses of one, which is all it is given to.
    return tester as unknown as ChildProcess;
  }
  childProcess.fork = routedFork as typeof childProcess.fork;
  syncBuiltinESMExports();
}
