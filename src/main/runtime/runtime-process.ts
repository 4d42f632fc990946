/*
 * Starts the built-in runtime as a forked Node process, as the tests, the test host and the terminal runner run it.
 */

import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BinaryTestRelay, type TesterChild, type TesterFork } from './binary-test-relay';
import type { RuntimeChannel, RuntimeLauncher, RuntimeRequest } from './runtime-protocol';

/** Keeps the end of what a process wrote to stderr, to say why it stopped. */
export class StderrTail {
  private text = '';
  add(chunk: Buffer | string): void {
    this.text = (this.text + chunk.toString()).slice(-2_000);
  }
  get last(): string {
    return this.text.trim().split('\n').slice(-3).join(' ').slice(-600);
  }
}

/**
 * node-llama-cpp's binary test as a forked Node process: how the app's side starts it for a runtime run under Node. Its
 * output is node-llama-cpp's report of a binary that failed, so it goes to stderr; nothing else is written.
 */
export function nodeTester(modulePath: string, env: NodeJS.ProcessEnv): TesterChild {
  const child = fork(modulePath, [], { execArgv: [], env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return {
    postMessage: (message) => {
      if (child.connected) child.send(message as object);
    },
    on: (_event, listener) => child.on('message', listener),
    once: (_event, listener) => {
      let told = false;
      const tell = (code: number): void => {
        if (told) return;
        told = true;
        listener(code);
      };
      // Ended by a signal (a crash in the binary, or a kill) is a failed test, as node-llama-cpp counts it.
      child.once('exit', (code) => tell(code ?? -1));
      child.once('error', () => tell(-1));
    },
    kill: () => child.kill('SIGKILL'),
  };
}

/**
 * The runtime as a forked Node process: how it runs under Node (the tests, the test host, the terminal runner). The app
 * uses an Electron utility process instead (src/main/electron/utility-runtime.ts), with the same messages.
 */
export function forkedRuntime(options: {
  readonly hostPath: string;
  readonly execArgv?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Starts node-llama-cpp's binary test for the runtime: a forked Node process unless told otherwise. */
  readonly tester?: TesterFork;
}): RuntimeLauncher {
  return (): RuntimeChannel => {
    const child = fork(options.hostPath, [], {
      execArgv: [...(options.execArgv ?? [])],
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    const stderr = new StderrTail();
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr.add(chunk);
      process.stderr.write(chunk);
    });
    // node-llama-cpp's binary test runs in a process this side starts (binary-test-relay.ts), as in the app.
    const relay = new BinaryTestRelay(options.tester ?? nodeTester, (message) => {
      if (child.connected) child.send(message);
    });
    const listeners: ((message: unknown) => void)[] = [];
    child.on('message', (message) => {
      if (relay.take(message)) return;
      for (const listener of listeners) listener(message);
    });
    child.once('exit', () => relay.close());
    return {
      post: (message: RuntimeRequest) => {
        if (child.connected) child.send(message);
      },
      onMessage: (listener) => void listeners.push(listener),
      onExit: (listener) => {
        let told = false;
        const tell = (detail: string): void => {
          if (told) return;
          told = true;
          listener(detail);
        };
        child.once('exit', (code, signal) =>
          tell(`${signal ? `killed by ${signal}` : `exit code ${code}`}${stderr.last ? `: ${stderr.last}` : ''}`),
        );
        child.once('error', (error) => tell(error.message));
      },
      kill: () => void child.kill('SIGKILL'),
    };
  };
}

/**
 * The runtime from its TypeScript source, forked under tsx: how the terminal runner and the test host start it (both
 * run from the source). The app starts the built file in a utility process instead.
 */
export function sourceRuntime(env: NodeJS.ProcessEnv = {}): RuntimeLauncher {
  return forkedRuntime({ hostPath: fileURLToPath(new URL('./runtime-host.ts', import.meta.url)), execArgv: ['--import', 'tsx'], env });
}
