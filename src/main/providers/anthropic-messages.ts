/*
 * A conversation as the Anthropic Messages API takes it: content blocks in messages whose roles alternate.
 */

import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelRequest } from '../agent/ports/model-provider';

function appendBlock(messages: MessageParam[], role: 'user' | 'assistant', block: ContentBlockParam): void {
  const last = messages.at(-1);
  // The Messages API wants roles to alternate, so consecutive turns of one role are merged.
  if (last && last.role === role && Array.isArray(last.content)) last.content.push(block);
  else messages.push({ role, content: [block] });
}

/**
 * The thinking blocks to send back first in an assistant message: exactly as they came, when thinking
 * is on and the same model wrote them (a signature is good for its model only). A message merged into
 * the one before it gets none: thinking must open an assistant message.
 */
function thinkingToSend(
  message: Extract<ModelRequest['messages'][number], { role: 'assistant' }>,
  request: ModelRequest,
  messages: MessageParam[],
): ContentBlockParam[] {
  const thinking = message.thinking;
  if (!request.thinking || !thinking || thinking.model !== request.model || messages.at(-1)?.role === 'assistant') return [];
  return thinking.blocks.map((block) =>
    block.type === 'thinking'
      ? { type: 'thinking', thinking: block.thinking, signature: block.signature }
      : { type: 'redacted_thinking', data: block.data },
  );
}

/** The request's conversation in the Messages API's blocks. */
export function toAnthropicMessages(request: ModelRequest): MessageParam[] {
  const messages: MessageParam[] = [];
  for (const message of request.messages) {
    if (message.role === 'user') {
      // Images first, then the text that speaks of them, as the Messages API documentation advises.
      for (const image of message.images ?? [])
        appendBlock(messages, 'user', { type: 'image', source: { type: 'base64', media_type: image.mediaType, data: image.data } });
      appendBlock(messages, 'user', { type: 'text', text: message.content });
    } else if (message.role === 'assistant') {
      for (const block of thinkingToSend(message, request, messages)) appendBlock(messages, 'assistant', block);
      if (message.content.length > 0) appendBlock(messages, 'assistant', { type: 'text', text: message.content });
      for (const call of message.toolCalls ?? []) {
        let input: unknown;
        try {
          input = JSON.parse(call.arguments);
        } catch {
          input = {};
        }
        appendBlock(messages, 'assistant', { type: 'tool_use', id: call.id, name: call.name, input });
      }
    } else {
      appendBlock(messages, 'user', {
        type: 'tool_result',
        tool_use_id: message.toolCallId,
        content: message.content,
        ...(message.isError ? { is_error: true } : {}),
      });
    }
  }
  return messages;
}
