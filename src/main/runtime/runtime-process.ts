/*
 * Starts the built-in runtime as a forked Node process, as the tests, the test host and the terminal runner run it.
 */

import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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
 * The runtime as a forked Node process: how it runs under Node (the tests, the test host, the terminal runner). The app
 * uses an Electron utility process instead (src/main/electron/utility-runtime.ts), with the same messages.
 */
export function forkedRuntime(options: {
  readonly hostPath: string;
  readonly execArgv?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
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
    return {
      post: (message: RuntimeRequest) => {
        if (child.connected) child.send(message);
      },
      onMessage: (listener) => void child.on('message', listener),
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
