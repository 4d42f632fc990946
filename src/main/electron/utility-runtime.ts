/*
 * Runs the built-in model runtime in an Electron utility process, so its work never stalls the window and a native
 * crash ends only that process.
 */

import { BinaryTestRelay } from '../runtime/binary-test-relay';
import type { RuntimeChannel, RuntimeLauncher, RuntimeRequest } from '../runtime/runtime-protocol';
import { StderrTail } from '../runtime/runtime-process';

/** The part of Electron's `UtilityProcess` the runtime uses. */
export interface UtilityChild {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  once(event: 'exit', listener: (code: number) => void): unknown;
  readonly stderr: NodeJS.ReadableStream | null;
  kill(): boolean;
}

/** `utilityProcess.fork`, as far as the runtime calls it. */
export type UtilityFork = (
  modulePath: string,
  args: string[],
  options: { serviceName: string; stdio: ['ignore', 'inherit' | 'ignore', 'pipe' | 'inherit']; env: NodeJS.ProcessEnv },
) => UtilityChild;

/**
 * The built-in runtime in an Electron utility process: a child Chromium launches and reaps, with Node and a message
 * port, so computing never stalls the main process or the window, and a crash in native code ends only the child.
 *
 * node-llama-cpp's binary test, which it would fork from the runtime's process as Node (ELECTRON_RUN_AS_NODE, a fuse
 * the app turns off), is started here instead, as a utility process of its own (binary-test-relay.ts).
 */
export function utilityRuntime(fork: UtilityFork, hostPath: string, env: NodeJS.ProcessEnv = {}): RuntimeLauncher {
  return (): RuntimeChannel => {
    const child = fork(hostPath, [], {
      serviceName: 'Agent Workbench model runtime',
      // stderr is read (the last lines say why the process stopped); stdout goes where the app's goes, never into a pipe nobody reads.
      stdio: ['ignore', 'inherit', 'pipe'],
      env: { ...process.env, ...env },
    });
    const stderr = new StderrTail();
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr.add(chunk);
      process.stderr.write(chunk);
    });
    let alive = true;
    const relay = new BinaryTestRelay(
      // Its output is node-llama-cpp's report of a binary that failed: stderr, where the app's goes.
      (modulePath, testerEnv) =>
        fork(modulePath, [], { serviceName: 'Agent Workbench binary test', stdio: ['ignore', 'ignore', 'inherit'], env: testerEnv }),
      (message) => {
        if (alive) child.postMessage(message);
      },
    );
    const listeners: ((message: unknown) => void)[] = [];
    child.on('message', (message) => {
      if (relay.take(message)) return;
      for (const listener of listeners) listener(message);
    });
    child.once('exit', () => {
      alive = false;
      relay.close();
    });
    return {
      post: (message: RuntimeRequest) => {
        if (alive) child.postMessage(message);
      },
      onMessage: (listener) => void listeners.push(listener),
      onExit: (listener) => void child.once('exit', (code) => listener(`exit code ${code}${stderr.last ? `: ${stderr.last}` : ''}`)),
      kill: () => void child.kill(),
    };
  };
}
