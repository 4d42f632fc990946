/*
 * The conversation as node-llama-cpp's chat wrappers take it. A tool's result is not a message of its own there: it
 * belongs to the call, inside the model's response, and the wrapper writes both in the model's own format. So each
 * `tool` message is folded into the assistant message whose call it answers. When the conversation ends with results,
 * the last item is the model's response with them, which the runtime continues; after the person's message an empty
 * response is added for the model to write.
 */

import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelResponse } from 'node-llama-cpp';
import type { RuntimeChatMessage } from './runtime-protocol';

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // A call whose arguments never parsed (the text protocol's, or a cut one) is shown to the model as it wrote it.
    return text;
  }
}

export function chatHistory(system: string | undefined, messages: readonly RuntimeChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  if (system !== undefined && system !== '') history.push({ type: 'system', text: system });
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const message of messages) {
    if (message.role === 'tool') results.set(message.toolCallId, { content: message.content, isError: message.isError === true });
  }
  for (const message of messages) {
    if (message.role === 'user') {
      history.push({ type: 'user', text: message.content });
      continue;
    }
    if (message.role === 'tool') continue;
    const response: ChatModelResponse['response'][number][] = [];
    if (message.content !== '') response.push(message.content);
    for (const [index, call] of (message.toolCalls ?? []).entries()) {
      const result = results.get(call.id);
      const functionCall: ChatModelFunctionCall = {
        type: 'functionCall',
        // The calls of one answer were made together: one chunk, for models that call in parallel.
        startsNewChunk: index === 0,
        name: call.name,
        params: parsedArguments(call.arguments),
        result: result === undefined ? 'No result: the call was not run.' : result.isError ? `Error: ${result.content}` : result.content,
      };
      response.push(functionCall);
    }
    const last = history.at(-1);
    // Two answers in a row (an answer, then its continuation after tool results) are one response to the model.
    if (last?.type === 'model') last.response.push(...response);
    else history.push({ type: 'model', response });
  }
  if (history.at(-1)?.type !== 'model') history.push({ type: 'model', response: [] });
  return history;
}
