/*
 * The workspace's check command after a turn that changed files, when the person asked for it: its result is
 * journalled with the turn, for the person to see (and to give the agent, if they choose).
 */
import { toErrorInfo } from '../../../shared/errors';
import type { StepContext } from './step-context';

/**
 * Runs the check when the turn changed files and the person chose one to run after each turn; when it may not run by
 * itself (no sandbox, or the turn changed what it runs), says why instead. Never throws.
 */
export async function checkAfterTurn(context: StepContext, changedPaths: readonly string[]): Promise<void> {
  const { setup, services, writer } = context;
  const { checks } = services;
  if (!checks || changedPaths.length === 0 || setup.workspacePath === null || setup.subAgent) return;
  const chosen = checks.configured(setup.workspacePath);
  if (!chosen?.afterTurn) return;
  const held = checks.unattended(setup.workspacePath, changedPaths);
  if (held !== null) {
    const result = {
      command: chosen.command,
      status: 'stopped' as const,
      exitCode: null,
      output: `Not run after this turn: ${held}.`,
      durationMs: 0,
    };
    writer.journal([{ type: 'check_ran', turnId: setup.turnId, result }]);
    return;
  }
  writer.setStatus('executing');
  writer.flush();
  try {
    const result = await checks.run(setup.workspacePath, writer.signal);
    writer.journal([{ type: 'check_ran', turnId: setup.turnId, result }]);
  } catch (error) {
    const message = toErrorInfo(error).message;
    writer.journal([
      {
        type: 'check_ran',
        turnId: setup.turnId,
        result: {
          command: chosen.command,
          status: 'stopped',
          exitCode: null,
          output: `The check could not run: ${message}`,
          durationMs: 0,
        },
      },
    ]);
  }
}
