/*
 * Problems a language server reports in the files an edit changed, as journalled and shown, and the settings of the
 * checks that find them.
 */

import { z } from 'zod';

/** The languages whose servers the app can ask, each by the server it looks for. */
export const checkedLanguages = ['typescript', 'python', 'go', 'rust', 'c'] as const;
export const checkedLanguageSchema = z.enum(checkedLanguages);
export type CheckedLanguage = z.infer<typeof checkedLanguageSchema>;

/** How each language is named to the person, with the server that checks it. */
export const checkedLanguageNames: Record<CheckedLanguage, { readonly language: string; readonly server: string }> = {
  typescript: { language: 'TypeScript and JavaScript', server: 'typescript-language-server' },
  python: { language: 'Python', server: 'pyright' },
  go: { language: 'Go', server: 'gopls' },
  rust: { language: 'Rust', server: 'rust-analyzer' },
  c: { language: 'C and C++', server: 'clangd' },
};

export const problemSeveritySchema = z.enum(['error', 'warning', 'information', 'hint']);
export type ProblemSeverity = z.infer<typeof problemSeveritySchema>;

/** One problem in a file: where (1-based), how bad, and what the server says. */
export const problemSchema = z.object({
  path: z.string().max(1024),
  line: z.number().int().positive(),
  column: z.number().int().positive(),
  severity: problemSeveritySchema,
  message: z.string().max(2_000),
  /** The server's name for where it comes from (`ts`, `Pyright`) and its code, when it gives them. */
  source: z.string().max(100).optional(),
  code: z.string().max(100).optional(),
});
export type Problem = z.infer<typeof problemSchema>;

/** The most problems kept from one check: errors first. */
export const maxProblemsKept = 50;

/** What the checks of one edit found: its problems (errors first, at most `maxProblemsKept`), and the counts of all. */
export const problemReportSchema = z.object({
  /** The files checked, root-relative, each with its counts of errors and warnings. */
  checked: z
    .array(z.object({ path: z.string().max(1024), errors: z.number().int().nonnegative(), warnings: z.number().int().nonnegative() }))
    .max(100),
  problems: z.array(problemSchema).max(maxProblemsKept),
  errors: z.number().int().nonnegative(),
  warnings: z.number().int().nonnegative(),
  /** What went wrong with a server, or why a file was not checked: said to the model and the person. */
  notes: z.array(z.string().max(1_000)).max(20),
  /** Servers found for this workspace that the person has not allowed to run yet. */
  unallowed: z.array(checkedLanguageSchema).max(checkedLanguages.length),
});
export type ProblemReport = z.infer<typeof problemReportSchema>;

/** A workspace whose language servers the person allowed, language by language. */
export const allowedServersSchema = z.object({ workspacePath: z.string().min(1).max(4096), language: checkedLanguageSchema });

/** The settings of the checks after edits. */
export const diagnosticsSettingsSchema = z.object({
  /** Languages checked after edits; a language left out is never checked. */
  languages: z.array(checkedLanguageSchema).max(checkedLanguages.length),
  /** How long an edit waits for a server's problems, in milliseconds. */
  timeLimitMs: z.number().int().min(1_000).max(120_000),
  /** The servers the person allowed to run, per workspace: a server is the workspace's code running. */
  allowed: z.array(allowedServersSchema).max(500),
});
export type DiagnosticsSettings = z.infer<typeof diagnosticsSettingsSchema>;

export const defaultDiagnosticsSettings: DiagnosticsSettings = { languages: [...checkedLanguages], timeLimitMs: 10_000, allowed: [] };

/** The most problems the model is told of after an edit, and the most of each message it reads. */
const problemsTold = 30;
const messageTold = 300;
const oneLine = (text: string): string => {
  const line = text.replace(/\s*\n\s*/g, ' ');
  return line.length > messageTold ? `${line.slice(0, messageTold)}…` : line;
};

/** The problems as the model reads them after the tool's result: counts, then errors first, one per line. */
export function problemsText(report: ProblemReport): string {
  const lines: string[] = [];
  if (report.checked.length > 0) {
    const counts =
      report.errors + report.warnings === 0
        ? 'no errors or warnings'
        : `${report.errors} ${report.errors === 1 ? 'error' : 'errors'}, ${report.warnings} ${report.warnings === 1 ? 'warning' : 'warnings'}`;
    lines.push(`Problems in the changed files (${report.checked.map((file) => file.path).join(', ')}): ${counts}.`);
    const shown = report.problems
      .filter((problem) => problem.severity === 'error' || problem.severity === 'warning')
      .slice(0, problemsTold);
    for (const problem of shown)
      lines.push(
        `${problem.path}:${problem.line}:${problem.column} ${problem.severity}: ${oneLine(problem.message)}${problem.code ? ` (${problem.source ?? ''}${problem.source ? ' ' : ''}${problem.code})` : ''}`,
      );
    const hidden = report.errors + report.warnings - shown.length;
    if (hidden > 0) lines.push(`… and ${hidden} more.`);
  }
  lines.push(...report.notes);
  return lines.join('\n');
}

/** A workspace's check command, chosen by the person: what the agent's `run_check` runs, and whether it runs after each turn. */
export const checkCommandSchema = z.object({
  workspacePath: z.string().min(1).max(4096),
  command: z.string().trim().min(1).max(2_000),
  /** Runs after each turn that changed files, its result shown with the turn. */
  afterTurn: z.boolean(),
});
export type CheckCommand = z.infer<typeof checkCommandSchema>;

/** What a run of a check command gave: passed (exit 0), failed, or stopped (by the person or its time limit). */
export const checkResultSchema = z.object({
  command: z.string().max(2_000),
  status: z.enum(['passed', 'failed', 'stopped']),
  exitCode: z.number().int().nullable(),
  /** The end of its output, where a failure says what failed. */
  output: z.string().max(20_000),
  durationMs: z.number().nonnegative(),
});
export type CheckResult = z.infer<typeof checkResultSchema>;
