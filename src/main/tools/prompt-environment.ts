/*
 * What the model is told of this computer: its system, the shell `run_command` uses, and the sandbox commands run in.
 */

import { arch, release, type } from 'node:os';
import type { PromptEnvironment } from '../agent/context/system-prompt';
import type { CommandShell } from './command-shell';
import type { SandboxStatus } from './sandbox';

/** The shell `run_command` uses, as the model is told of it. */
function shellText(shell: CommandShell | undefined): string {
  if (shell && !shell.available) return 'none: run_command is not offered on this computer';
  const bash = 'started without a profile, so there are no aliases; a command cannot read input and stops at its timeout';
  if (shell?.kind === 'git-bash')
    return `Git for Windows' bash (MSYS), ${bash}; paths may be written C:/Users/x or /c/Users/x, and Windows programs (.exe) run from it too`;
  return `bash, ${bash}`;
}

/** What the model is told of this computer: its system, the shell `run_command` uses, and the sandbox commands run in. */
export function promptEnvironment(sandbox: SandboxStatus | undefined, commandShell?: CommandShell): PromptEnvironment {
  const system = type() === 'Darwin' ? 'macOS' : type() === 'Windows_NT' ? 'Windows' : type();
  return {
    os: `${system} ${release()} (${arch()})`,
    shell: shellText(commandShell),
    sandbox: !sandbox
      ? 'unknown.'
      : sandbox.available
        ? `on (${sandbox.kind}): commands can write only inside the workspace and have no network; a command that needs more must ask for it with its sandbox argument, and the person decides.`
        : `off (${sandbox.reason}): commands run with the person's own rights, so each one that writes waits for their approval.`,
  };
}
