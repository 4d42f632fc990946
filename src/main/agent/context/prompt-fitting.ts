/* How the prompt builder says what is too large when a request cannot fit. */
import type { ContextWindow } from '../../../shared/domain';
import type { ErrorInfo } from '../../../shared/errors';
import type { ChatMessage } from '../ports/model-provider';

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
