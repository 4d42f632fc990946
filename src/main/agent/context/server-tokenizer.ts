/*
 * The server's tokenizer asked, where it has one, for what a model's requests repeat: their fixed part, once per
 * distinct text; and the first messages long enough, to set their ratio, and the chat template's share of a request.
 */
import { withDeadline } from '../../../shared/deadline';
import type { ChatMessage, ModelProvider } from '../ports/model-provider';
import { messagesText, plainMessages, seedChars, type TokenCalibration } from './token-count';

/** What to count a request's fixed part by. */
export interface TokenizerInput {
  /** The model's key in the calibration, and its name for the server. */
  readonly key: string;
  readonly model: string;
  readonly provider: ModelProvider;
  /** The fixed part (system prompt and tool definitions) as one text: see `fixedPartOf`. */
  readonly fixedText: string;
  /** The messages the request carries, made only when they are counted. */
  readonly messages: () => readonly ChatMessage[];
  readonly signal: AbortSignal;
}

/**
 * Counts with a model's server's tokenizer, bounded by a timeout. A server without one, or whose tokenizer failed or
 * hung, is not asked again: its requests are counted by the whole ratio.
 */
export class ServerTokenizer {
  /** Models whose server has no tokenizer, or whose tokenizer failed. */
  private readonly unavailable = new Set<string>();

  constructor(
    private readonly calibration: TokenCalibration,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Counts the request's fixed part unless it was counted already, and its messages while the tokenizer can still tell
   * something of them: their ratio, until messages long enough were counted; the template's share, until measured on a
   * request of plain text with a new fixed part. Returns the messages' tokens when that count is all they send: the
   * share is measured on this request.
   */
  async count(input: TokenizerInput): Promise<number | undefined> {
    const { key, model, provider, fixedText } = input;
    const count = provider.countTokens;
    // Without a fixed part there is nothing to count apart: the whole ratio counts.
    if (!count || fixedText === '' || this.unavailable.has(key)) return undefined;
    const fixed = !this.calibration.counted(key, fixedText);
    const needs = this.calibration.needs(key);
    // The template's share is looked for with a new fixed part only, so the usual request does not walk the conversation.
    const messages = needs.ratio || (needs.template && fixed) ? input.messages() : [];
    const plain = needs.template && fixed && messages.length > 0 && plainMessages(messages);
    const { text, chars } = plain || needs.ratio ? messagesText(messages) : { text: '', chars: 0 };
    const countMessages = text !== '' && (plain || chars >= seedChars);
    if (!fixed && !countMessages) return undefined;
    const bounded = withDeadline(input.signal, this.timeoutMs);
    try {
      const [fixedTokens, messageTokens] = await Promise.all([
        fixed ? count.call(provider, model, fixedText, bounded) : undefined,
        countMessages ? count.call(provider, model, text, bounded) : undefined,
      ]);
      this.calibration.fromTokenizer(
        key,
        fixedTokens === undefined ? undefined : { text: fixedText, tokens: fixedTokens },
        messageTokens === undefined ? undefined : { tokens: messageTokens, chars },
      );
      return plain ? messageTokens : undefined;
    } catch {
      // No tokenizer, or one that failed or hung: the whole ratio counts, calibrated from the reported counts.
      if (!input.signal.aborted) {
        this.unavailable.add(key);
        this.calibration.forgetTokenizer(key);
      }
      return undefined;
    }
  }
}
