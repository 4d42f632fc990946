/*
 * Windows learned from what servers did: a prompt cut short without a word, or refused with the window's size.
 */
import type { ContextWindow, ModelChoice } from '../../../shared/domain';

/** How long a window learned from a server's behaviour is kept. */
const learnedForMs = 30 * 60_000;

export const keyOf = (choice: ModelChoice): string => `${choice.providerId}\u0000${choice.model}`;

/**
 * Windows found smaller than the figure budgeted with (the server cut a prompt, or refused one): kept against that
 * figure, so a new setting or a reloaded server starts afresh, and for a while only.
 */
export class LearnedWindows {
  private readonly learned = new Map<string, { tokens: number; against: number; at: number }>();

  constructor(private readonly now: () => number) {}

  /** `window` as the server's behaviour says it is: what it did wins over the figure, a setting too. */
  apply(choice: ModelChoice, window: ContextWindow): ContextWindow {
    const key = keyOf(choice);
    const learned = this.learned.get(key);
    if (!learned) return window;
    if (learned.against !== window.tokens || this.now() - learned.at > learnedForMs) {
      this.learned.delete(key);
      return window;
    }
    return {
      ...window,
      tokens: learned.tokens,
      source: 'learned',
      detail: `the server handled no more than ${learned.tokens} tokens (${window.detail} said ${window.tokens})`,
    };
  }

  /** The server's real window is at most `tokens`, where `against` was budgeted. */
  learn(choice: ModelChoice, tokens: number, against: number): void {
    if (!Number.isFinite(tokens) || tokens < 512 || tokens >= against) return;
    const key = keyOf(choice);
    const known = this.learned.get(key);
    const smallest = known && known.against === against ? Math.min(known.tokens, Math.floor(tokens)) : Math.floor(tokens);
    this.learned.set(key, { tokens: smallest, against, at: this.now() });
  }

  /** The figure a learned window is kept against: the one it replaced, when the request was budgeted with a learned one. */
  against(choice: ModelChoice, budgeted: number): number {
    const known = this.learned.get(keyOf(choice));
    return known && known.tokens === budgeted ? known.against : budgeted;
  }
}
