/*
 * A process that runs node-llama-cpp's own binary test (its testBindingBinary, from its dist folder) on one file
 * (WORKBENCH_PROBE_BINARY) and says the outcome through its parent: with WORKBENCH_PROBE_ROUTED=1 the way the runtime's process runs it, its fork
 * going to the parent (routeBinaryTests); otherwise as node-llama-cpp runs it by itself, with Node's fork.
 */
import { pathToFileURL } from 'node:url';
import { routeBinaryTests } from '../../../src/main/runtime/binary-test-fork';
import { binaryTesterPath } from '../../../src/main/runtime/binary-test-relay';

/** The outcome the probe reports: what testBindingBinary resolved to, or why it rejected. */
export type ProbeOutcome =
  { readonly type: 'probe_outcome'; readonly passed: boolean } | { readonly type: 'probe_outcome'; readonly error: string };

type TestBindingBinary = (bindingBinaryPath: string, extBackendsPath: string | undefined, gpu: false) => Promise<boolean>;

const send = (message: unknown): void => void process.send?.(message);
const binary = process.env['WORKBENCH_PROBE_BINARY'] ?? '';
if (process.env['WORKBENCH_PROBE_ROUTED'] === '1') routeBinaryTests({ post: send, listen: (listener) => process.on('message', listener) });

// Not among node-llama-cpp's exports: imported from its file, which is the file getLlama imports.
const tester = (await import(pathToFileURL(binaryTesterPath()).href)) as { testBindingBinary: TestBindingBinary };
let outcome: ProbeOutcome;
try {
  outcome = { type: 'probe_outcome', passed: await tester.testBindingBinary(binary, undefined, false) };
} catch (error) {
  outcome = { type: 'probe_outcome', error: error instanceof Error ? error.message : String(error) };
}
process.send?.(outcome, () => process.exit(0));
