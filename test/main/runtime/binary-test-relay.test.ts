import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BinaryTestRelay, binaryTesterPath, type BinaryTestReply, type TesterChild } from '../../../src/main/runtime/binary-test-relay';
import { forkedRuntime, nodeTester } from '../../../src/main/runtime/runtime-process';
import { cCompiler, llamaBinaryTest, needs } from '../../platform';
import type { ProbeOutcome } from './binary-test-probe';

/*
 * node-llama-cpp's real binary test (its testBindingBinary, which forks its own file as the test process) on real files,
 * run from a process of its own. Routed, that process cannot start a Node child at all (as the runtime's utility process
 * cannot with the RunAsNode fuse off): the test process is started by this side, the app's, through the relay, with a
 * forked Node process standing in for Electron's utilityProcess.fork. Each outcome is compared with the one
 * node-llama-cpp reaches by itself with Node's fork.
 */

const here = fileURLToPath(new URL('.', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'binary-test-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** This machine's prebuilt CPU binary of llama.cpp, from its @node-llama-cpp package. */
async function prebuiltBinary(): Promise<string> {
  const name = `@node-llama-cpp/${process.platform}-${process.arch}`;
  const bins = (await import(name)) as { getBinsDir(): { binsDir: string } };
  return join(bins.getBinsDir().binsDir, `${process.platform}-${process.arch}`, 'llama-addon.node');
}

interface Probe {
  readonly outcome: ProbeOutcome;
  /** The files this side started as test processes. */
  readonly started: string[];
}

/** Runs node-llama-cpp's binary test on `binary` in a process of its own: routed through this side, or by itself. */
function probe(binary: string, routed: boolean): Promise<Probe> {
  const started: string[] = [];
  const launch = forkedRuntime({
    hostPath: join(here, 'binary-test-probe.ts'),
    execArgv: ['--import', 'tsx', ...(routed ? ['--import', join(here, 'no-node-children.ts')] : [])],
    env: { WORKBENCH_PROBE_ROUTED: routed ? '1' : '0', WORKBENCH_PROBE_BINARY: binary },
    tester: (modulePath, env) => {
      started.push(modulePath);
      return nodeTester(modulePath, env);
    },
  });
  return new Promise((resolve, reject) => {
    const channel = launch();
    let outcome: ProbeOutcome | null = null;
    channel.onMessage((message) => {
      if (typeof message === 'object' && message !== null && 'type' in message && message.type === 'probe_outcome') {
        outcome = message as ProbeOutcome;
      }
    });
    channel.onExit((detail) =>
      outcome ? resolve({ outcome, started }) : reject(new Error(`The probe ended without an outcome (${detail})`)),
    );
  });
}

// Each test starts four processes, two of which load llama.cpp: slow on a busy machine.
describe("node-llama-cpp's binary test, started by the app", { ...needs(llamaBinaryTest), timeout: 60_000 }, () => {
  it('tries the prebuilt binary in a process the app starts, and the binary passes as it does with Node', async () => {
    const binary = await prebuiltBinary();
    const [routed, alone] = await Promise.all([probe(binary, true), probe(binary, false)]);
    expect(routed.outcome).toEqual({ type: 'probe_outcome', passed: true });
    expect(routed.started).toEqual([binaryTesterPath()]);
    expect(alone.outcome).toEqual(routed.outcome);
    expect(alone.started).toEqual([]);
  });

  it('fails a file that is not an addon, as node-llama-cpp does by itself, so that it falls back', async () => {
    const fake = join(folder, 'llama-addon.node');
    writeFileSync(fake, '<!DOCTYPE html><html><body>Not found</body></html>');
    const [routed, alone] = await Promise.all([probe(fake, true), probe(fake, false)]);
    expect(routed.outcome).toEqual({ type: 'probe_outcome', passed: false });
    expect(routed.started).toEqual([binaryTesterPath()]);
    expect(alone.outcome).toEqual(routed.outcome);
  });

  it('fails a binary that crashes as it loads, which ends only the test process', needs(cCompiler), async () => {
    writeFileSync(join(folder, 'crash.c'), '#include <stdlib.h>\n__attribute__((constructor)) static void crash(void) { abort(); }\n');
    const built = spawnSync('cc', ['-shared', '-fPIC', '-o', join(folder, 'crash.node'), join(folder, 'crash.c')], { encoding: 'utf8' });
    expect(built.stderr).toBe('');
    const [routed, alone] = await Promise.all([probe(join(folder, 'crash.node'), true), probe(join(folder, 'crash.node'), false)]);
    // The probe itself lived to say so.
    expect(routed.outcome).toEqual({ type: 'probe_outcome', passed: false });
    expect(routed.started).toEqual([binaryTesterPath()]);
    expect(alone.outcome).toEqual(routed.outcome);
  });
});

/** A test process that only records what it is told and ends when told to. */
class RecordedTester extends EventEmitter implements TesterChild {
  readonly received: unknown[] = [];
  killed = false;
  postMessage(message: unknown): void {
    this.received.push(message);
  }
  kill(): boolean {
    this.killed = true;
    this.emit('exit', -1);
    return true;
  }
}

function recordedRelay(): { relay: BinaryTestRelay; testers: RecordedTester[]; replies: BinaryTestReply[] } {
  const testers: RecordedTester[] = [];
  const replies: BinaryTestReply[] = [];
  const relay = new BinaryTestRelay(
    () => {
      const tester = new RecordedTester();
      testers.push(tester);
      return tester;
    },
    (reply) => replies.push(reply),
    '/the/test/file.js',
  );
  return { relay, testers, replies };
}

describe("the app's side of the binary test", () => {
  it('leaves a message outside the test protocol to the runtime channel, which stops a process that sends one', () => {
    const { relay, testers } = recordedRelay();
    expect(relay.take({ type: 'binary_test_start', test: 1 })).toBe(true);
    expect(relay.take({ type: 'binary_test_send', test: 1, message: { type: 'start', bindingBinaryPath: 7, gpu: false } })).toBe(false);
    expect(relay.take({ type: 'binary_test_send', test: 1, message: { type: 'run', code: 'rm -rf /' } })).toBe(false);
    expect(relay.take({ type: 'binary_test_start', test: 'one' })).toBe(false);
    expect(testers).toHaveLength(1);
    expect(testers[0]?.received).toEqual([]);
  });

  it("ends a test process that says what the test's protocol does not, which fails the test", () => {
    const { relay, testers, replies } = recordedRelay();
    relay.take({ type: 'binary_test_start', test: 3 });
    testers[0]?.emit('message', { type: 'ready' });
    testers[0]?.emit('message', { type: 'anything' });
    expect(testers[0]?.killed).toBe(true);
    expect(replies).toEqual([
      { type: 'binary_test_message', test: 3, message: { type: 'ready' } },
      { type: 'binary_test_exit', test: 3, code: -1 },
    ]);
  });

  it('ends the tests still running when the runtime process ends, and starts none after', () => {
    const { relay, testers, replies } = recordedRelay();
    relay.take({ type: 'binary_test_start', test: 0 });
    relay.close();
    expect(testers[0]?.killed).toBe(true);
    relay.take({ type: 'binary_test_start', test: 1 });
    expect(testers).toHaveLength(1);
    expect(replies).toEqual([{ type: 'binary_test_exit', test: 1, code: -1 }]);
  });
});
