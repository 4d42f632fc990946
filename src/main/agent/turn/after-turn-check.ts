/*
 * The workspace's check command after a turn that changed files, when the person asked for it: its result is
 * journalled with the turn, for the person to see (and to give the agent, if they choose).
 */
import { toErrorInfo } from '../../../shared/errors';
import type { StepContext } from './step-context';

/** Runs the check when the turn changed files and the person chose one to run after each turn. Never throws. */
export async function checkAfterTurn(context: StepContext, changedFiles: boolean): Promise<void> {
  const { setup, services, writer } = context;
  const { checks } = services;
  if (!checks || !changedFiles || setup.workspacePath === null || setup.subAgent) return;
  const chosen = checks.configured(setup.workspacePath);
  if (!chosen?.afterTurn) return;
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
