import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, describe, it } from 'vitest';
import { BashParser } from '../../src/main/shell/bash-parser';
import { assessCommand, commandPlace } from '../../src/main/shell/command-risk';
import { expandBraces } from '../../src/main/shell/shell-words';

// Review scratch test: commands are only strings handed to the analyzer; nothing is run.
const shell = await BashParser.load();
const workspace = { path: mkdtempSync('/var/tmp/review-perf-') };
afterAll(() => rmSync(workspace.path, { recursive: true, force: true }));
const sandboxed = commandPlace(workspace.path, 'bubblewrap');

function probe(label: string, command: string): void {
  const started = performance.now();
  let result: string;
  try {
    const risk = assessCommand(shell, command, sandboxed);
    result = `${risk.level}: ${risk.reasons.join(' | ').slice(0, 100)}`;
  } catch (error) {
    result = `THREW ${(error as Error)?.constructor?.name}: ${String((error as Error)?.message ?? error).slice(0, 100)}`;
  }
  console.log(JSON.stringify({ label, length: command.length, ms: Math.round(performance.now() - started), result }));
}

describe('review: analyzer time', () => {
  it('brace groups', () => {
    for (const k of [19, 20, 21]) probe(`{a,b} x ${k}`, `echo ${'{a,b}'.repeat(k)}`);
    const started = performance.now();
    const out = expandBraces('{a,b}'.repeat(20));
    console.log(JSON.stringify({ label: 'expandBraces direct x20', ms: Math.round(performance.now() - started), length: out.length }));
  }, 120_000);

  it('sed script regex', () => {
    for (const n of [800, 1600]) probe(`sed s* ${n}`, `sed '${'s'.repeat(n)}'`);
    for (const n of [800, 1600]) probe(`sed -e newlines ${n}`, `sed -e '${'\n'.repeat(n)}' f`);
  }, 120_000);

  it('values times folders', () => {
    probe('cd {1..64} then 120 redirects', `cd {1..64}; ${'echo>{1..64};'.repeat(120)}`);
    probe('cd {1..64} then 120 rm', `cd {1..64}; ${'rm {1..64};'.repeat(120)}`);
  }, 120_000);

  it('many variables', () => {
    const names: string[] = [];
    for (const a of 'abcdefghijklmnopqrstuvwxyz') for (const b of 'abcdefghijklmnopqrstuvwxyz') for (const c of 'abcdefghij') names.push(`${a}${b}${c}`);
    for (const n of [1000, 2000, 3900]) probe(`assign; ${n}`, names.slice(0, n).map((name) => `${name}=`).join(';'));
    for (const n of [1000, 2000, 3300]) probe(`assign&& ${n}`, names.slice(0, n).map((name) => `${name}=`).join('&&'));
  }, 120_000);
});
