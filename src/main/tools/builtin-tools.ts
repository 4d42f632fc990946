import type { Tool } from '../agent/tools';

/** The tools the app offers the model. The workspace tools and the shell join this list. */
export function builtinTools(): Tool[] {
  return [];
}
