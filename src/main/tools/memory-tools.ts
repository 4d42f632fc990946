/*
 * The `remember` and `recall` tools, with which the model saves facts for later sessions and searches them.
 */

import { z } from 'zod';
import { WorkbenchError } from '../../shared/errors';
import { maxMemoryChars, memoryScopeSchema } from '../../shared/prompt';
import type { MemoryStore } from '../agent/ports/memory';
import { defineTool, type Tool } from '../agent/ports/tools';
import { detectInjectionSigns } from '../agent/rules/injection-signs';

const shortened = (text: string): string => (text.length > 120 ? `${text.slice(0, 119)}…` : text);

/**
 * `remember` saves a fact for later sessions (a low-risk write: it passes the rules like any other, and the person
 * sees, edits and deletes memories in the Memory panel); `recall` searches them. Nothing leaves this computer.
 */
export function memoryTools(memory: MemoryStore): Tool[] {
  const remember = defineTool({
    name: 'remember',
    // Short: a small window pays for every tool's definition in every request.
    description: 'Saves one short fact for later sessions (a preference, a convention, a command that works). Never secrets.',
    input: z
      .object({
        fact: z.string().trim().min(1).max(maxMemoryChars),
        scope: memoryScopeSchema.default('workspace').describe('global: for every workspace'),
      })
      .strict(),
    risk: 'write_low',
    // A fact for every workspace reaches every later session's prompt: it asks as a high-risk write does.
    assess: (input) =>
      input.scope === 'global'
        ? { level: 'write_high', reason: 'remember for every workspace: it goes into the prompts of all later sessions' }
        : { level: 'write_low', reason: 'remember for this workspace' },
    summarize: (input) => `remember${input.scope === 'global' ? ' (every workspace)' : ''}: ${shortened(input.fact)}`,
    preview: async (input) => `Saved to memory, for ${input.scope === 'global' ? 'every workspace' : 'this workspace'}:\n${input.fact}`,
    execute: async (input, context) => {
      if (input.scope === 'workspace' && !context.workspacePath)
        throw new WorkbenchError('no_workspace', 'No folder is open: save it with scope "global", or ask the person to open a folder.');
      // A memory is read back as an instruction in later sessions: one that reads like a prompt injection (copied from a
      // file or a page the model read) is refused, so it cannot carry one from session to session.
      const signs = detectInjectionSigns(input.fact);
      if (signs.length > 0)
        throw new WorkbenchError(
          'invalid_input',
          `Not saved: the fact reads like instructions aimed at a model (${signs.map((sign) => sign.explanation).join(' ')}). Save what you learned, in your own words.`,
        );
      const saved = memory.add({
        scope: input.scope,
        workspacePath: context.workspacePath,
        text: input.fact,
        source: 'agent',
        sessionId: context.sessionId,
      });
      return { output: `Remembered (${saved.scope === 'global' ? 'every workspace' : 'this workspace'}): ${saved.text}` };
    },
  });
  const recall = defineTool({
    name: 'recall',
    description: 'Searches saved memories for words. Those relevant to the request are already in your instructions.',
    input: z.object({ query: z.string().trim().min(1).max(500) }).strict(),
    risk: 'read_only',
    summarize: (input) => `recall ${shortened(input.query)}`,
    execute: async (input, context) => {
      const found = memory.relevant(context.workspacePath, input.query, 20);
      if (found.length === 0) return { output: `No memory matches "${input.query}".` };
      return {
        output: found.map((item) => `- ${item.text} (${item.scope === 'global' ? 'every workspace' : 'this workspace'})`).join('\n'),
      };
    },
  });
  return [remember, recall];
}
