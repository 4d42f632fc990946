import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { addCounts, countReport, failedStep, summaryLines, type ReportedTest, type VitestJsonReport } from '../../scripts/test-summary.mjs';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const samplePath = fileURLToPath(new URL('../fixtures/vitest-report/mixed.json', import.meta.url));
/**
 * A report vitest 4 wrote (paths made relative, times fixed): a file that failed to load; a suite skipped for a
 * missing sandbox (two tests, one nested); a test passed, one failed, one skipped for missing ripgrep, and one
 * skipped by a bare `skipIf`, which gives no reason.
 */
const sample = JSON.parse(readFileSync(samplePath, 'utf8')) as VitestJsonReport;

const sandboxReason = 'the Linux sandbox (bubblewrap) runs on Linux only';
const ripgrepReason = 'ripgrep (rg) is not installed';

/** A report of one file holding the given tests. */
const reportOf = (...tests: ReportedTest[]): VitestJsonReport => ({
  testResults: [{ status: tests.some((test) => test.status === 'failed') ? 'failed' : 'passed', assertionResults: tests }],
});
const skippedFor = (fullName: string, ...reasons: string[]): ReportedTest => ({
  status: 'skipped',
  fullName,
  meta: { missingCapabilities: reasons.map((reason, index) => ({ capability: `c${index}`, reason })) },
});

describe('the summary of a test run', () => {
  it('counts a skip for a missing capability by its reason, and a skip without one, a failure and a broken file as failed', () => {
    const count = countReport(sample);
    expect(count).toEqual({
      passed: 1,
      failed: 3,
      skipped: { [sandboxReason]: 2, [ripgrepReason]: 1 },
      strictlyFailed: {},
      unexplained: ['search forgot its reason'],
    });
    expect(summaryLines(count)).toEqual([
      '3 skipped, for what this machine lacks:',
      `  ${sandboxReason} (2)`,
      `  ${ripgrepReason} (1)`,
      '1 failed: not run, without a reason (their setup failed, or they skip other than through test/platform.ts):',
      '  search forgot its reason',
      '1 passed, 3 failed',
    ]);
  });

  it('in strict mode counts every skip for a missing capability as failed, and says so by reason', () => {
    const count = countReport(sample, { strict: true });
    expect(count).toMatchObject({ passed: 1, failed: 6, skipped: {}, strictlyFailed: { [sandboxReason]: 2, [ripgrepReason]: 1 } });
    expect(summaryLines(count)).toEqual([
      '3 failed: skipped for what this machine lacks, under WORKBENCH_TESTS_STRICT=1:',
      `  ${sandboxReason} (2)`,
      `  ${ripgrepReason} (1)`,
      '1 failed: not run, without a reason (their setup failed, or they skip other than through test/platform.ts):',
      '  search forgot its reason',
      '1 passed, 6 failed',
    ]);
  });

  it('in strict mode lists a skip for what the install left out on purpose, and fails one that also lacks anything else', () => {
    const electronReason = 'no Electron binary: node_modules/electron/dist is missing';
    const declared = (fullName: string): ReportedTest => ({
      status: 'skipped',
      fullName,
      meta: { missingCapabilities: [{ capability: 'electron', reason: electronReason, declared: true }] },
    });
    const mixed: ReportedTest = {
      status: 'skipped',
      fullName: 'also lacks pgrep',
      meta: {
        missingCapabilities: [
          { capability: 'electron', reason: electronReason, declared: true },
          { capability: 'pgrep', reason: 'pgrep is not installed' },
        ],
      },
    };
    const count = countReport(reportOf(declared('window'), declared('bridge'), mixed, { status: 'passed' }), { strict: true });
    expect(count).toEqual({
      passed: 1,
      failed: 1,
      skipped: { [electronReason]: 2 },
      strictlyFailed: { [`${electronReason}; pgrep is not installed`]: 1 },
      unexplained: [],
    });
    expect(summaryLines(count).at(-1)).toBe('1 passed, 1 failed');
    expect(countReport(reportOf(declared('window')), { strict: true }).failed).toBe(0);
  });

  it('adds up the unit and end-to-end reports and the failed steps, reasons merged', () => {
    const unit = countReport(reportOf({ status: 'passed' }, skippedFor('a', ripgrepReason), skippedFor('b', sandboxReason)));
    const e2e = countReport(reportOf({ status: 'passed' }, { status: 'passed' }, skippedFor('c', ripgrepReason)));
    const total = addCounts([unit, failedStep(), e2e]);
    expect(total).toEqual({
      passed: 3,
      failed: 1,
      skipped: { [ripgrepReason]: 2, [sandboxReason]: 1 },
      strictlyFailed: {},
      unexplained: [],
    });
    // The most frequent reason first; the last line exactly as it always was.
    expect(summaryLines(total)).toEqual([
      '3 skipped, for what this machine lacks:',
      `  ${ripgrepReason} (2)`,
      `  ${sandboxReason} (1)`,
      '3 passed, 1 failed',
    ]);
  });

  it('names every reason of a test that lacks two things, whichever it names first', () => {
    const count = countReport(
      reportOf(skippedFor('a', sandboxReason, 'pgrep is not installed'), skippedFor('b', 'pgrep is not installed', sandboxReason)),
    );
    expect(count.skipped).toEqual({ [`pgrep is not installed; ${sandboxReason}`]: 2 });
  });

  it('counts a todo or a test still pending without a reason as failed, and lists at most ten of their names', () => {
    const tests = Array.from({ length: 12 }, (_, index): ReportedTest => ({
      status: index % 2 ? 'todo' : 'pending',
      fullName: `t${index}`,
    }));
    const lines = summaryLines(countReport(reportOf(...tests)));
    expect(lines[0]).toBe('12 failed: not run, without a reason (their setup failed, or they skip other than through test/platform.ts):');
    expect(lines.slice(1, -1)).toEqual([...Array.from({ length: 10 }, (_, index) => `  t${index}`), '  … and 2 more']);
    expect(lines.at(-1)).toBe('0 passed, 12 failed');
  });

  it('prints only the closing line when everything ran', () => {
    expect(summaryLines(countReport(reportOf({ status: 'passed' }, { status: 'passed' })))).toEqual(['2 passed, 0 failed']);
    expect(summaryLines(addCounts([]))).toEqual(['0 passed, 0 failed']);
  });

  it('run as a command, prints the summary of written reports and fails on any failure, stricter under the flag', () => {
    const run = (strict: boolean) =>
      spawnSync(process.execPath, ['scripts/test-summary.mjs', samplePath], {
        cwd: projectRoot,
        encoding: 'utf8',
        env: { ...process.env, WORKBENCH_TESTS_STRICT: strict ? '1' : '' },
      });
    const relaxed = run(false);
    expect(relaxed.stdout.trim().split('\n').at(-1)).toBe('1 passed, 3 failed');
    expect(relaxed.status).toBe(1);
    expect(run(true).stdout.trim().split('\n').at(-1)).toBe('1 passed, 6 failed');
  });
});
