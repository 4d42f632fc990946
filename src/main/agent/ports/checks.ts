/*
 * The interface of a workspace's check command: the command the person chose, and running it.
 */
import type { CheckCommand, CheckResult } from '../../../shared/diagnostics';

export interface CheckRunner {
  /** The check command the person chose for a workspace, or null when they chose none. */
  configured(workspacePath: string): CheckCommand | null;
  /**
   * Why the check may not run after a turn by itself, or null when it may: without an OS sandbox it would run with the
   * person's rights, and a turn that changed what the check runs (a package script, a Makefile) has changed the check.
   */
  unattended(workspacePath: string, changedPaths: readonly string[]): string | null;
  /** Runs a workspace's check command (in the sandbox, under the command limits). Throws when none is chosen. */
  run(workspacePath: string, signal: AbortSignal, onOutput?: (text: string) => void): Promise<CheckResult>;
}
