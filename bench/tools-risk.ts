import { mkdtempSync, rmSync } from 'node:fs';
import { BashParser } from '../src/main/shell/bash-parser';
import { CommandAssessor, commandPlace } from '../src/main/shell/command-risk';
import { riskTable } from '../test/main/shell/command-risk-table';

const count = 10_000;

const percentile = (sorted: readonly number[], share: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? Number.NaN;

/**
 * The risk of 10,000 commands (the risk table's commands, each also with a varied argument so no two lines are the
 * same), timed one by one. The baseline, measured in the same run, is parsing the same lines alone: the ratio is what
 * judging adds to the grammar's own work.
 *
 * The assessor lives as long as the app, so the figure that counts is the steady one: the timed pass follows a full
 * untimed pass, by which time the engine has compiled the grammar and the walker. The first pass is timed too and
 * printed as the cold figure: while that compiling runs on the other core, this machine stalls the main thread for
 * about 4 ms every 8 ms or so, which is what its p99 shows.
 */
export async function runRiskBench(): Promise<Record<string, number | string>> {
  const shell = await BashParser.load();
  const workspace = mkdtempSync('/var/tmp/risk-bench-');
  const place = commandPlace(workspace, 'bubblewrap');
  // As run_command judges them: one assessor for all its calls.
  const assessor = new CommandAssessor(shell);
  const lines = Array.from({ length: count }, (_, index) => {
    const [, command] = riskTable[index % riskTable.length] as readonly [string, string, string];
    return index < riskTable.length ? command : `${command.split('\n')[0]} # ${index}`;
  });
  const cold: number[] = [];
  for (const line of lines) {
    const started = performance.now();
    assessor.assess(line, place);
    cold.push(performance.now() - started);
    try {
      shell.parse(line, (root) => root.childCount);
    } catch {
      // Warming only.
    }
  }
  cold.sort((a, b) => a - b);

  const parse: number[] = [];
  const assess: number[] = [];
  for (const line of lines) {
    let started = performance.now();
    try {
      shell.parse(line, (root) => root.childCount);
    } catch {
      // A line that does not parse is timed all the same.
    }
    parse.push(performance.now() - started);
    started = performance.now();
    assessor.assess(line, place);
    assess.push(performance.now() - started);
  }
  rmSync(workspace, { recursive: true, force: true });
  parse.sort((a, b) => a - b);
  assess.sort((a, b) => a - b);
  const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);
  console.log(
    `risk of ${count} commands: p50 ${(percentile(assess, 0.5) * 1000).toFixed(0)} µs, p99 ${(percentile(assess, 0.99) * 1000).toFixed(0)} µs, max ${(assess.at(-1) ?? 0).toFixed(2)} ms; parsing alone p50 ${(percentile(parse, 0.5) * 1000).toFixed(0)} µs; cold first pass p99 ${(percentile(cold, 0.99) * 1000).toFixed(0)} µs`,
  );
  return {
    risk_commands: count,
    risk_p50_us: Math.round(percentile(assess, 0.5) * 1000),
    risk_p99_us: Math.round(percentile(assess, 0.99) * 1000),
    risk_parse_p50_us: Math.round(percentile(parse, 0.5) * 1000),
    risk_cold_p99_us: Math.round(percentile(cold, 0.99) * 1000),
    risk_ratio_to_parse: Number((sum(assess) / sum(parse)).toFixed(2)),
    risk_target: 'p99 < 1000 µs',
  };
}
