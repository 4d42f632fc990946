/*
 * What the model is told of this computer: its system, the shell `run_command` uses, and the sandbox commands run in.
 */

import { arch, release, type } from 'node:os';
import type { PromptEnvironment } from '../agent/context/system-prompt';
import type { SandboxStatus } from './sandbox';

/** What the model is told of this computer: its system, the shell `run_command` uses, and the sandbox commands run in. */
export function promptEnvironment(sandbox: SandboxStatus | undefined): PromptEnvironment {
  const system = type() === 'Darwin' ? 'macOS' : type() === 'Windows_NT' ? 'Windows' : type();
  return {
    os: `${system} ${release()} (${arch()})`,
    shell: 'bash, started without a profile, so there are no aliases; a command cannot read input and stops at its timeout',
    sandbox: !sandbox
      ? 'unknown.'
      : sandbox.available
        ? `on (${sandbox.kind}): commands can write only inside the workspace and have no network; a command that needs more must ask for it with its sandbox argument, and the person decides.`
        : `off (${sandbox.reason}): commands run with the person's own rights, so each one that writes waits for their approval.`,
  };
}
