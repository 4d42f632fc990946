import { fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { utilityRuntime, type UtilityChild, type UtilityFork } from '../../../src/main/electron/utility-runtime';
import { binaryTesterPath } from '../../../src/main/runtime/binary-test-relay';
import { LocalRuntimeProvider } from '../../../src/main/runtime/local-runtime-provider';
import { llamaBinaryTest, present } from '../../platform';
import { TinyModels, collect, textOf } from '../runtime/runtime-fixture';

/*
 * The Electron binary cannot run here, so `utilityProcess.fork` is stood in for by a Node child process behind the same
 * surface (postMessage, 'message', 'exit', stderr, kill): what is checked is the adapter's use of that surface, with
 * the real runtime process answering. Like a utility process of an app whose RunAsNode fuse is off, the child cannot
 * start a Node child of its own.
 */
const noNodeChildren = fileURLToPath(new URL('../runtime/no-node-children.ts', import.meta.url));

function nodeUtilityFork(calls: { modulePath: string; serviceName: string }[]): UtilityFork {
  return (modulePath, args, options) => {
    calls.push({ modulePath, serviceName: options.serviceName });
    const child = fork(modulePath, args, {
      execArgv: ['--import', 'tsx', '--import', noNodeChildren],
      env: options.env,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const events = new EventEmitter();
    child.on('message', (message) => events.emit('message', message));
    child.on('exit', (code) => events.emit('exit', code ?? 1));
    const utility: UtilityChild = {
      postMessage: (message) => void child.send(message as object),
      on: (event, listener) => events.on(event, listener),
      once: (event, listener) => events.once(event, listener),
      stderr: child.stderr,
      kill: () => child.kill('SIGTERM'),
    };
    return utility;
  };
}

const models = new TinyModels();
afterAll(() => models.remove());

describe('the runtime in a utility process', () => {
  it('forks the runtime host as a named utility process and answers through it, its binary test forked by the app', async () => {
    models.add('hello', { says: ['Hello', ' world', '.'] });
    models.add('endless', { says: ['tick', ' tock'], then: 0 });
    const calls: { modulePath: string; serviceName: string }[] = [];
    const hostPath = fileURLToPath(new URL('../../../src/main/runtime/runtime-host.ts', import.meta.url));
    const launch = utilityRuntime(nodeUtilityFork(calls), hostPath, { WORKBENCH_RUNTIME_THREADS: '1', WORKBENCH_RUNTIME_GPU: 'off' });
    const provider = new LocalRuntimeProvider({ models, launch, defaultTemperature: 0 });
    try {
      const events = await collect(
        provider.stream({ model: 'hello', messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal),
      );
      expect(textOf(events)).toBe('Hello world.');
      // Where node-llama-cpp tries its binary before loading it, the app starts that test as a utility process too.
      const binaryTest = { modulePath: binaryTesterPath(), serviceName: 'Agent Workbench binary test' };
      expect(calls).toEqual([
        { modulePath: hostPath, serviceName: 'Agent Workbench model runtime' },
        ...(present(llamaBinaryTest) ? [binaryTest] : []),
      ]);
      expect((await provider.machine()).cpuCores).toBeGreaterThan(0);
    } finally {
      provider.dispose();
    }
  });
});
