/** One test as vitest's JSON reporter writes it; only what the summary reads. */
export interface ReportedTest {
  readonly status: string;
  readonly fullName?: string;
  readonly title?: string;
  readonly meta?: {
    readonly missingCapabilities?: readonly { readonly capability: string; readonly reason: string; readonly declared?: boolean }[];
  };
}

/** A vitest JSON report; only what the summary reads. */
export interface VitestJsonReport {
  readonly testResults?: readonly {
    readonly status: string;
    readonly name?: string;
    readonly assertionResults?: readonly ReportedTest[];
  }[];
}

/** Tests counted: skipped and strictly failed by reason, and the names of tests skipped without one. */
export interface Count {
  passed: number;
  failed: number;
  readonly skipped: Record<string, number>;
  readonly strictlyFailed: Record<string, number>;
  readonly unexplained: string[];
}

export function emptyCount(): Count;
export function failedStep(): Count;
export function countReport(report: VitestJsonReport, options?: { readonly strict?: boolean }): Count;
export function addCounts(counts: readonly Count[]): Count;
export function summaryLines(total: Count): string[];
