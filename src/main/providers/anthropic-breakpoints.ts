/*
 * Where an Anthropic request asks the API to cache its prompt: the breakpoints (`cache_control`) on the last tool,
 * the system prompt, and the conversation's end and the end of the request before it.
 */

import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageParam,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages';

/*
 * How the API caches (https://platform.claude.com/docs/en/build-with-claude/prompt-caching): a breakpoint caches the
 * prompt up to and including its block, in the order tools, system, messages; a request may have 4 breakpoints at most;
 * a later request reads the cache at a breakpoint, or at a block boundary up to about 20 blocks before one, when its
 * prompt up to there is the same byte for byte. Thinking blocks and empty text blocks cannot carry a breakpoint. A
 * prompt shorter than the model's least cacheable length is simply not cached. A 5-minute write costs 1.25 times the
 * input price, a read 0.1 times.
 */

const ephemeral: CacheControlEphemeral = { type: 'ephemeral' };

/** The blocks this provider writes that can carry a breakpoint. */
type Markable = Extract<ContentBlockParam, { type: 'text' | 'image' | 'tool_use' | 'tool_result' }>;

function markable(block: ContentBlockParam): block is Markable {
  switch (block.type) {
    case 'text':
      // The API refuses a breakpoint on an empty text block.
      return block.text.trim().length > 0;
    case 'image':
    case 'tool_use':
    case 'tool_result':
      return true;
    default:
      // Thinking and redacted thinking are cached with the turn around them, never at a breakpoint of their own.
      return false;
  }
}

/** The place of the last block of `message` that can carry a breakpoint, or -1. */
function lastMarkable(message: MessageParam | undefined): number {
  if (!message || message.role === 'system' || typeof message.content === 'string') return -1;
  for (let at = message.content.length - 1; at >= 0; at -= 1) {
    const block = message.content[at];
    if (block && markable(block)) return at;
  }
  return -1;
}

/** Puts a breakpoint on block `at` of message `index`: the message and its blocks are replaced by copies, not changed. */
function markAt(messages: MessageParam[], index: number, at: number): void {
  const message = messages[index];
  if (!message || message.role === 'system' || typeof message.content === 'string') return;
  const content = message.content.map((block, place) => (place === at && markable(block) ? { ...block, cache_control: ephemeral } : block));
  messages[index] = { ...message, content };
}

/** The system prompt as one text block with a breakpoint; a blank one as it was (a block must have text), none as none. */
export function systemWithBreakpoint(system: string | undefined): string | TextBlockParam[] | undefined {
  if (!system) return undefined;
  if (system.trim().length === 0) return system;
  return [{ type: 'text', text: system, cache_control: ephemeral }];
}

/** The tool definitions with a breakpoint on the last: tools come first in the prompt, so it caches them all. */
export function toolsWithBreakpoint(tools: readonly Tool[]): Tool[] {
  return tools.map((tool, at) => (at === tools.length - 1 ? { ...tool, cache_control: ephemeral } : tool));
}

/**
 * The conversation with up to two breakpoints. One on its last block that can carry one: the next request in this
 * conversation appends to this one, so it reads all of this from the cache. One at the end of the message before the
 * last assistant message, where the request before this one ended: its cache entry is found there even when the latest
 * answer and its tool results added more blocks than the API looks back over (about 20), say ten calls at once.
 */
export function conversationWithBreakpoints(messages: readonly MessageParam[]): MessageParam[] {
  const marked = [...messages];
  let tail = marked.length - 1;
  while (tail >= 0 && lastMarkable(marked[tail]) === -1) tail -= 1;
  if (tail < 0) return marked;
  markAt(marked, tail, lastMarkable(marked[tail]));
  let answer = tail - 1;
  while (answer >= 0 && marked[answer]?.role !== 'assistant') answer -= 1;
  const before = answer - 1;
  const at = lastMarkable(marked[before]);
  if (before >= 0 && at !== -1) markAt(marked, before, at);
  return marked;
}
