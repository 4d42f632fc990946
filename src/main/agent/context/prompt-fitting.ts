/* What the prompt builder shortens first when a request does not fit, and how it says what is too large. */
import type { ContextWindow } from '../../../shared/domain';
import type { ErrorInfo } from '../../../shared/errors';
import { callsById, readTarget } from './context-view';
import type { ChatMessage } from '../ports/model-provider';

/** Steps at the end of the conversation whose tool results are never shortened while anything older can be. */
const recentSteps = 2;

/** Where the last `recentSteps` responses begin in the view: what is older may be shortened. */
export function recentStart(view: readonly ChatMessage[]): number {
  let seen = 0;
  for (let position = view.length - 1; position >= 0; position -= 1) {
    if (view[position]?.role === 'assistant') {
      seen += 1;
      if (seen === recentSteps) return position;
    }
  }
  return 0;
}

/** Results of whole-file reads before `before` whose file was read whole again later. */
export function supersededReads(messages: readonly ChatMessage[], before: number): number[] {
  const calls = callsById(messages);
  const latest = new Map<string, number>();
  messages.forEach((message, position) => {
    if (message.role !== 'tool' || message.isError) return;
    const target = readTarget(calls.get(message.toolCallId));
    if (target !== null) latest.set(target, position);
  });
  const out: number[] = [];
  messages.forEach((message, position) => {
    if (position >= before || message.role !== 'tool') return;
    const target = readTarget(calls.get(message.toolCallId));
    if (target !== null && (latest.get(target) ?? position) > position) out.push(position);
  });
  return out;
}

/** What does not fit, in words: the part that is too large and by how much. */
export function tooLarge(
  fixed: number,
  view: readonly ChatMessage[],
  sizes: readonly number[],
  limit: number,
  window: ContextWindow,
): ErrorInfo {
  let largest = -1;
  sizes.forEach((size, position) => {
    if (largest < 0 || size > (sizes[largest] ?? 0)) largest = position;
  });
  const biggest = view[largest];
  const what =
    fixed > limit
      ? `The system prompt and tool definitions alone take about ${fixed} tokens`
      : biggest?.role === 'user'
        ? `Your message takes about ${sizes[largest]} tokens`
        : `The conversation takes about ${fixed + sizes.reduce((sum, size) => sum + size, 0)} tokens even with every old result shortened`;
  return {
    code: 'model_context_overflow',
    message: `${what}, more than the ${limit} tokens a request may take in this model's ${window.tokens}-token window (${window.detail}, less ${window.tokens - limit} kept for the answer). Use a model with a larger window, raise the window in Settings if the server has loaded a larger one, or send a shorter message.`,
  };
}
