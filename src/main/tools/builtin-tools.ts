import type { Tool } from '../agent/tools';
import { workspaceTools, type WorkspaceToolOptions } from './workspace-tools';

/** The tools the app offers the model. The shell joins this list. */
export function builtinTools(options: WorkspaceToolOptions): Tool[] {
  return [...workspaceTools(options)];
}
