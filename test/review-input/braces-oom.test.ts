import { mkdtempSync, rmSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { afterAll, describe, it } from 'vitest';
import { BashParser } from '../../src/main/shell/bash-parser';
import { assessCommand, commandPlace } from '../../src/main/shell/command-risk';

// Review scratch test: the command is only a string handed to the analyzer; nothing is run.
// Expected to take long or to end the worker with an out-of-memory abort; run on its own.
const shell = await BashParser.load();
const workspace = { path: mkdtempSync('/var/tmp/review-braces-') };
afterAll(() => rmSync(workspace.path, { recursive: true, force: true }));

describe('review: brace groups at 120 characters', () => {
  it('echo {a,b} x 23', () => {
    console.log(JSON.stringify({ heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / 1e6) }));
    const command = `echo ${'{a,b}'.repeat(23)}`;
    const started = performance.now();
    const risk = assessCommand(shell, command, commandPlace(workspace.path, 'bubblewrap'));
    console.log(
      JSON.stringify({
        label: 'echo {a,b} x 23',
        length: command.length,
        ms: Math.round(performance.now() - started),
        level: risk.level,
        heapAfterMb: Math.round(process.memoryUsage().heapUsed / 1e6),
      }),
    );
  }, 400_000);
});
