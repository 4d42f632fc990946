/*
 * Runs the built-in model runtime in an Electron utility process, so its work never stalls the window and a native
 * crash ends only that process.
 */

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
  options: { serviceName: string; stdio: ['ignore', 'inherit', 'pipe']; env: NodeJS.ProcessEnv },
) => UtilityChild;

/**
 * The built-in runtime in an Electron utility process: a child Chromium launches and reaps, with Node and a message
 * port, so computing never stalls the main process or the window, and a crash in native code ends only the child.
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
    child.once('exit', () => (alive = false));
    return {
      post: (message: RuntimeRequest) => {
        if (alive) child.postMessage(message);
      },
      onMessage: (listener) => void child.on('message', listener),
      onExit: (listener) => void child.once('exit', (code) => listener(`exit code ${code}${stderr.last ? `: ${stderr.last}` : ''}`)),
      kill: () => void child.kill(),
    };
  };
}
