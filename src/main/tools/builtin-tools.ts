/*
 * The built-in tools offered to the model: the workspace's file tools and `run_command`.
 */

import type { CommandLimits } from '../../shared/domain';
import type { Tool } from '../agent/ports/tools';
import type { BashParser } from '../shell/bash-parser';
import type { RepositoryProgram } from '../shell/command-targets';
import { runCommandTool } from './run-command';
import type { CommandShell } from './command-shell';
import type { SandboxStatus } from './sandbox';
import { workspaceTools, type WorkspaceToolOptions } from './workspace-tools';

/**
 * The tools the app offers the model: the workspace file tools and the shell, sandboxed where it can be. Without a shell
 * (Windows without Git for Windows) `run_command` is not offered: the model would only be told, call after call, that
 * it cannot run.
 */
export function builtinTools(
  options: WorkspaceToolOptions & {
    readonly shell: BashParser;
    readonly sandbox?: SandboxStatus;
    readonly commandNiceness?: () => number;
    readonly commandLimits?: () => CommandLimits;
    readonly repositoryPrograms?: (folder: string) => readonly RepositoryProgram[];
    /** Whether a workspace is a folder the person does not trust. */
    readonly restricted?: (workspacePath: string) => boolean;
    /** The shell commands run in; `/bin/bash` when not said, none when it is unavailable. */
    readonly commandShell?: CommandShell;
  },
): Tool[] {
  const shell = options.commandShell;
  if (shell && !shell.available) return workspaceTools(options);
  return [
    ...workspaceTools(options),
    runCommandTool({
      ...(shell ? { commandShell: shell } : {}),
      shell: options.shell,
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      ...(options.commandNiceness ? { niceness: options.commandNiceness } : {}),
      ...(options.commandLimits ? { limits: options.commandLimits } : {}),
      protectedFolders: [options.dataDir],
      ...(options.repositoryPrograms ? { repositoryPrograms: options.repositoryPrograms } : {}),
      ...(options.restricted ? { restricted: options.restricted } : {}),
    }),
  ];
}
