/*
 * A workspace's check command (the one the person chose, such as `npm run typecheck`): run as `run_command` runs a
 * command, in the sandbox and under the command limits, by the agent's `run_check` tool and after a turn that changed
 * files.
 */

import { z } from 'zod';
import type { CheckCommand, CheckResult } from '../../shared/diagnostics';
import { WorkbenchError } from '../../shared/errors';
import type { CheckRunner } from '../agent/ports/checks';
import { defineTool, type Tool } from '../agent/ports/tools';
import { samePath } from '../workspace/path-case';

/** How long a check may run. */
const checkTimeoutSeconds = 600;
/** What is kept of a check's output: its end, where a failure says what failed. */
const keptOutput = 20_000;

/** The last `[exit code N]` line `run_command` ends a command's output with. */
function exitCodeOf(output: string): number | null {
  const last = [...output.matchAll(/\[exit code (-?\d+)\]/g)].at(-1)?.[1];
  return last === undefined ? null : Number(last);
}

/** Files that say what a check command runs: a change to one in a turn changes the check itself. */
const definingFiles = new Set([
  'package.json',
  'Makefile',
  'makefile',
  'GNUmakefile',
  'pyproject.toml',
  'setup.cfg',
  'tox.ini',
  'noxfile.py',
  'Cargo.toml',
  'go.mod',
  'justfile',
  'Taskfile.yml',
]);

export interface CommandChecksOptions {
  /** The `run_command` tool, which runs the check as it runs any command. */
  readonly runCommand: Tool;
  /** Whether commands run in an OS sandbox here. */
  readonly sandboxed: boolean;
  /** The check commands the person chose, read at each use. */
  readonly commands: () => readonly CheckCommand[];
  /** Whether a folder runs restricted (the person does not trust it): its check never runs by itself. */
  readonly restricted?: (workspacePath: string) => boolean;
  /** Whether the file system holding a folder ignores letter case; asked of the disk when absent. */
  readonly caseIgnored?: (workspacePath: string) => boolean;
}

/** The check commands of the workspaces, run through `run_command`. */
export class CommandChecks implements CheckRunner {
  constructor(private readonly options: CommandChecksOptions) {}

  configured(workspacePath: string): CheckCommand | null {
    // By the file system's case rules: a check chosen for `/Users/me/WS` is the one of `/Users/me/ws` where case is ignored.
    const caseIgnored = this.options.caseIgnored?.(workspacePath);
    return this.options.commands().find((item) => samePath(item.workspacePath, workspacePath, caseIgnored)) ?? null;
  }

  unattended(workspacePath: string, changedPaths: readonly string[]): string | null {
    const chosen = this.configured(workspacePath);
    if (!chosen) return 'no check command is chosen for this folder';
    if (this.options.restricted?.(workspacePath))
      return 'this folder is not trusted (restricted mode), so its check runs only when you or the agent run it';
    if (!this.options.sandboxed) return 'commands run without an OS sandbox here, so the check runs only when you or the agent run it';
    // The program itself, when it is a script of the workspace's (`./scripts/check.sh`).
    const program = (chosen.command.trim().split(/\s+/)[0] ?? '').replace(/^\.\//, '');
    const changed = changedPaths.find((path) => definingFiles.has(path.slice(path.lastIndexOf('/') + 1)) || path === program);
    return changed === undefined
      ? null
      : `this turn changed ${changed}, which says what the check runs: run it yourself once you have looked`;
  }

  async run(workspacePath: string, signal: AbortSignal, onOutput: (text: string) => void = () => undefined): Promise<CheckResult> {
    const chosen = this.configured(workspacePath);
    if (!chosen)
      throw new WorkbenchError('invalid_state', 'No check command is set for this folder: the person chooses one in the session header.');
    const { runCommand } = this.options;
    const parsed = runCommand.parse({ command: chosen.command, timeoutSeconds: checkTimeoutSeconds });
    if (!parsed.ok) throw new WorkbenchError('invalid_input', parsed.message);
    const started = performance.now();
    const outcome = await runCommand.execute(parsed.input, { signal, sessionId: '', toolCallId: '', workspacePath, emitOutput: onOutput });
    const exitCode = exitCodeOf(outcome.output);
    const stopped = signal.aborted || /\n\[stopped (after|by)/.test(outcome.output);
    return {
      command: chosen.command,
      status: stopped ? 'stopped' : exitCode === 0 ? 'passed' : 'failed',
      exitCode,
      output: outcome.output.length > keptOutput ? `…${outcome.output.slice(-keptOutput + 1)}` : outcome.output,
      durationMs: Math.round(performance.now() - started),
    };
  }
}

/**
 * run_check: the workspace's check command, as the person chose it, with the risk `run_command` gives that command (a
 * package script or a make target runs what the files say, and the agent may have changed them).
 */
export function runCheckTool(checks: CommandChecks, runCommand: Tool): Tool {
  const commandOf = (workspacePath: string | null): string | null =>
    workspacePath === null ? null : (checks.configured(workspacePath)?.command ?? null);
  return defineTool({
    name: 'run_check',
    description:
      'Runs the check the person chose for this workspace (their test, type-check or lint command) and returns its output and exit code. Run it after a change to see whether the work still passes; it fails when the person chose no check.',
    input: z.object({}).strict(),
    risk: 'write_low',
    assess: (_input, context) => {
      const command = commandOf(context.workspacePath);
      if (command === null) return { level: 'read_only', reason: 'no check command is chosen for this folder: it only says so' };
      const judged = runCommand.assess({ command, sandbox: 'workspace' }, context);
      return { ...judged, reason: `the check the person chose for this folder: ${judged.reason}` };
    },
    summarize: () => 'the workspace check',
    execute: async (_input, context) => {
      if (!context.workspacePath)
        throw new WorkbenchError('no_workspace', 'This session has no workspace folder: ask the person to choose one.');
      const result = await checks.run(context.workspacePath, context.signal, (text) => context.emitOutput(text));
      const head = `The check \`${result.command}\` ${result.status === 'passed' ? 'passed' : result.status === 'failed' ? 'failed' : 'was stopped'} in ${(result.durationMs / 1000).toFixed(1)} s.`;
      return { output: `${head}\n${result.output}`, isError: result.status !== 'passed' };
    },
  });
}
