import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, describe, it } from 'vitest';
import { BashParser } from '../../src/main/shell/bash-parser';
import { assessCommand, commandPlace } from '../../src/main/shell/command-risk';

// Review scratch test: commands are only strings handed to the analyzer; nothing is run.
const shell = await BashParser.load();
const workspace = { path: mkdtempSync('/var/tmp/review-mem-') };
afterAll(() => rmSync(workspace.path, { recursive: true, force: true }));
const sandboxed = commandPlace(workspace.path, 'bubblewrap');

describe('review: analyzer memory and time at the length limit', () => {
  it('outside folders times values', () => {
    for (const n of [200, 400]) {
      const command = `cd /{1..64}; ${'echo>{1..64};'.repeat(n)}`;
      const before = process.memoryUsage().heapUsed;
      let peak = before;
      const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
      const started = performance.now();
      const risk = assessCommand(shell, command, sandboxed);
      peak = Math.max(peak, process.memoryUsage().heapUsed);
      clearInterval(timer);
      console.log(
        JSON.stringify({
          label: `cd /{1..64} then ${n} redirects`,
          length: command.length,
          ms: Math.round(performance.now() - started),
          heapGrowthMb: Math.round((peak - before) / 1e6),
          reasons: risk.reasons.length,
        }),
      );
    }
  }, 300_000);

  it('sed script at 3200 characters', () => {
    const command = `sed '${'s'.repeat(3200)}'`;
    const started = performance.now();
    const risk = assessCommand(shell, command, sandboxed);
    console.log(JSON.stringify({ label: 'sed s* 3200', ms: Math.round(performance.now() - started), level: risk.level }));
  }, 300_000);
});
