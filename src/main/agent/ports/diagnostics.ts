/*
 * The interface of the checks after an edit: the problems language servers report in the files it changed.
 */
import type { ProblemReport } from '../../../shared/diagnostics';

export interface DiagnosticsRequest {
  readonly workspacePath: string;
  /** The files the edit changed, root-relative. */
  readonly paths: readonly string[];
  readonly signal: AbortSignal;
}

/** Finds the problems in changed files. Never throws for what a server does: a server that fails is a note in the report. */
export interface DiagnosticsSource {
  /** The problems in `paths`, or null when no file of them is of a language that is checked. */
  check(request: DiagnosticsRequest): Promise<ProblemReport | null>;
}
