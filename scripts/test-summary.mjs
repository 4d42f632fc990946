/*
 * The counting behind `npm test`'s last lines: passed, failed, and skipped with the reason, read from vitest's JSON
 * reports. A test skips only through test/platform.ts, which puts what the machine lacks into the test's meta; a
 * skip without it (a forgotten guard, a suite whose setup failed) counts as failed, and so does every skip in strict
 * mode (WORKBENCH_TESTS_STRICT=1, on CI, whose machine has everything the tests need), but one for something the
 * install left out on purpose and says so, or that only another operating system has (`declared`: the Electron binary,
 * under ELECTRON_SKIP_BINARY_DOWNLOAD=1; Windows' junctions or macOS's O_NOFOLLOW_ANY on Linux).
 */

import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * Why a test that did not run was skipped, or null when it gave no reason. Several reasons are sorted, so that tests
 * lacking the same things count together in whatever order they name them.
 */
function skipReason(test) {
  const missing = test.meta?.missingCapabilities;
  if (!Array.isArray(missing) || missing.length === 0) return null;
  return [...new Set(missing.map((entry) => entry.reason))].sort().join('; ');
}

/** Whether everything a skipped test lacks was left out of this install on purpose, or belongs to another system. */
function declaredAbsent(test) {
  const missing = test.meta?.missingCapabilities ?? [];
  return missing.length > 0 && missing.every((entry) => entry.declared === true);
}

/** An empty count, for a step that produced no report of its own. */
export function emptyCount() {
  return { passed: 0, failed: 0, skipped: {}, strictlyFailed: {}, unexplained: [] };
}

/** A step that did not pass (a typecheck, a build, a report that could not be read): one failure. */
export function failedStep() {
  return { ...emptyCount(), failed: 1 };
}

/**
 * Counts one vitest JSON report. `skipped` and `strictlyFailed` map each reason to its number of tests;
 * `unexplained` names the tests skipped without one (each also counted in `failed`).
 */
export function countReport(report, { strict = false } = {}) {
  const count = emptyCount();
  for (const file of report.testResults ?? []) {
    const tests = file.assertionResults ?? [];
    // A file that fails to load has no tests to count, so it counts as a failure of its own.
    if (file.status === 'failed' && tests.length === 0) count.failed += 1;
    for (const test of tests) {
      if (test.status === 'passed') count.passed += 1;
      else if (test.status === 'failed') count.failed += 1;
      else {
        const reason = skipReason(test);
        if (reason === null) {
          count.failed += 1;
          count.unexplained.push(test.fullName ?? test.title ?? '(a test without a name)');
        } else {
          // Left out on purpose by the install's own setting, it is not a broken install hiding a test: listed, never failed.
          const failing = strict && !declaredAbsent(test);
          const into = failing ? count.strictlyFailed : count.skipped;
          into[reason] = (into[reason] ?? 0) + 1;
          if (failing) count.failed += 1;
        }
      }
    }
  }
  return count;
}

/** Adds counts up, one per report or step. */
export function addCounts(counts) {
  const total = emptyCount();
  for (const count of counts) {
    total.passed += count.passed;
    total.failed += count.failed;
    for (const [into, from] of [
      [total.skipped, count.skipped],
      [total.strictlyFailed, count.strictlyFailed],
    ])
      for (const [reason, number] of Object.entries(from)) into[reason] = (into[reason] ?? 0) + number;
    total.unexplained.push(...count.unexplained);
  }
  return total;
}

const sum = (byReason) => Object.values(byReason).reduce((total, number) => total + number, 0);

/** One line per reason, the most frequent first, then by reason so that the order is the same every run. */
const reasonLines = (byReason) =>
  Object.entries(byReason)
    .sort(([leftReason, left], [rightReason, right]) => right - left || leftReason.localeCompare(rightReason))
    .map(([reason, number]) => `  ${reason} (${number})`);

const shownNames = 10;

/** The summary's lines: what was skipped and why, then exactly `N passed, N failed`. */
export function summaryLines(total) {
  const lines = [];
  const skipped = sum(total.skipped);
  if (skipped > 0) lines.push(`${skipped} skipped, for what this machine lacks:`, ...reasonLines(total.skipped));
  const strict = sum(total.strictlyFailed);
  if (strict > 0)
    lines.push(
      `${strict} failed: skipped for what this machine lacks, under WORKBENCH_TESTS_STRICT=1:`,
      ...reasonLines(total.strictlyFailed),
    );
  if (total.unexplained.length > 0) {
    lines.push(
      `${total.unexplained.length} failed: not run, without a reason (their setup failed, or they skip other than through test/platform.ts):`,
    );
    lines.push(...total.unexplained.slice(0, shownNames).map((name) => `  ${name}`));
    if (total.unexplained.length > shownNames) lines.push(`  … and ${total.unexplained.length - shownNames} more`);
  }
  lines.push(`${total.passed} passed, ${total.failed} failed`);
  return lines;
}

// `node scripts/test-summary.mjs REPORT.json…`: the summary of reports already written, as `npm test` ends.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const strict = process.env.WORKBENCH_TESTS_STRICT === '1';
  const total = addCounts(process.argv.slice(2).map((file) => countReport(JSON.parse(readFileSync(file, 'utf8')), { strict })));
  for (const line of summaryLines(total)) console.log(line);
  process.exit(total.failed > 0 ? 1 : 0);
}
