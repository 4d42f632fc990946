import { createHash } from 'node:crypto';

/*
 * Extended thinking as the Anthropic Messages API checks it: the request's budget against its
 * `max_tokens`, each thinking block sent back against the signature the server gave it, and a tool
 * loop's continuation, whose last response must come back with its thinking first. The messages
 * are the API's own, so the app meets what it would meet there.
 */

const documentation = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/** The signature the server gives a thinking block: it verifies the text came back unchanged. */
export function signatureOf(thinking: string): string {
  return `scripted-signature:${createHash('sha256').update(thinking).digest('base64')}`;
}

interface Block {
  readonly type?: unknown;
  readonly thinking?: unknown;
  readonly signature?: unknown;
}

interface Message {
  readonly role?: unknown;
  readonly content?: unknown;
}

const blocksOf = (message: Message | undefined): Block[] => (Array.isArray(message?.content) ? (message.content as Block[]) : []);

/** Why the API refuses this request's thinking, or null when it does not. */
/** The most a scripted Anthropic model writes in one answer. */
export const anthropicOutputLimit = 64_000;

export function thinkingRefusal(body: Record<string, unknown>): string | null {
  const output = body['max_tokens'];
  // Every scripted Anthropic model writes at most 64,000 tokens, as Sonnet 4.5 and Haiku 4.5 do; the words are the API's.
  if (typeof output === 'number' && output > anthropicOutputLimit)
    return `max_tokens: ${output} > ${anthropicOutputLimit}, which is the maximum allowed number of output tokens for ${String(body['model'])}`;
  const thinking = body['thinking'] as { type?: unknown; budget_tokens?: unknown } | undefined;
  const enabled = thinking?.type === 'enabled';
  if (enabled) {
    const budget = thinking.budget_tokens;
    if (typeof budget !== 'number' || budget < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    const room = body['max_tokens'];
    if (typeof room !== 'number' || room <= budget)
      return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${documentation}#max-tokens-and-context-window-size`;
  }
  const messages = Array.isArray(body['messages']) ? (body['messages'] as Message[]) : [];
  for (const [position, message] of messages.entries()) {
    for (const [index, block] of blocksOf(message).entries()) {
      if (block.type !== 'thinking') continue;
      if (typeof block.thinking !== 'string' || block.signature !== signatureOf(block.thinking))
        return `messages.${position}.content.${index}: Invalid \`signature\` in \`thinking\` block`;
    }
  }
  if (!enabled) return null;
  // A tool loop goes on: the last message answers calls, and the response that made them must open with its thinking.
  const last = messages.at(-1);
  if (last?.role !== 'user' || !blocksOf(last).some((block) => block.type === 'tool_result')) return null;
  const position = messages.length - 2;
  const first = blocksOf(messages[position])[0];
  if (messages[position]?.role !== 'assistant' || first === undefined) return null;
  if (first.type === 'thinking' || first.type === 'redacted_thinking') return null;
  return `messages.${position}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${documentation}`;
}
