/*
 * The IPC handlers of memories (the Memory panel) and of the prompts sent with model calls (the prompt view).
 */

import { NotFoundError } from '../../shared/errors';
import type { MemoryStore } from '../agent/ports/memory';
import type { PromptRecords } from '../agent/context/prompt-assembly';
import type { Handlers } from './router';

type MemoryChannel = 'memory:list' | 'memory:add' | 'memory:update' | 'memory:delete' | 'prompt:get';

/** The handlers of memories (the Memory panel) and of the prompts model calls were sent (the prompt view). */
export function memoryHandlers(deps: { readonly memory: MemoryStore; readonly prompts: PromptRecords }): Pick<Handlers, MemoryChannel> {
  const { memory, prompts } = deps;
  return {
    'memory:list': (input) => memory.list(input.workspacePath, input.search),
    'memory:add': (input) => memory.add({ ...input, source: 'person', sessionId: null }),
    'memory:update': (input) => memory.update(input.id, input.text),
    'memory:delete': (input) => {
      memory.remove(input.id);
      return { deleted: true as const };
    },
    'prompt:get': (input) => {
      const prompt = prompts.get(input.promptId);
      if (!prompt) throw new NotFoundError('Prompt', input.promptId);
      return prompt;
    },
  };
}
