import type { Tool } from '../agent/tools';
import { runCommandTool } from './run-command';
import { workspaceTools, type WorkspaceToolOptions } from './workspace-tools';

/** The tools the app offers the model: the workspace file tools and the shell. */
export function builtinTools(options: WorkspaceToolOptions): Tool[] {
  return [...workspaceTools(options), runCommandTool()];
}
