/*
 * The context budget's shapes: its settings, the figures of a request against its window, and what preparing one gives.
 */
import type { ContextWindow, ModelChoice } from '../../../shared/domain';
import type { ErrorInfo } from '../../../shared/errors';
import type { ConversationEntry } from './context-view';
import type { ModelProvider, ModelRequest, ToolSpec } from '../ports/model-provider';
import type { CountedRequest, Counting, FixedPart } from './token-count';

/** The settings the budget reads for every request. */
export interface ContextSettings {
  /** A request larger than this share of the window is made smaller first. */
  readonly compactAt: number;
  /** Room kept for the answer, in tokens; at most a quarter of the window. */
  readonly answerTokens: number;
}

export const defaultContextSettings: ContextSettings = { compactAt: 0.75, answerTokens: 4096 };

/** The figures of one request against its window. */
export interface Measure {
  readonly tokens: number;
  readonly window: ContextWindow;
  readonly threshold: number;
  /** The most the prompt may take: the window less the answer's room. */
  readonly limit: number;
  /** The answer's room, its thinking budget included: the request's `max_tokens`. */
  readonly reserve: number;
  readonly counting: Counting;
  /** Tool results shortened in the request. */
  readonly shortened: number;
  /**
   * Tokens at the prompt's beginning unchanged from the last one sent on the same line to this model (what a server
   * that keeps its evaluated prompt need not read again), by the same count as `tokens`; absent when none was sent yet.
   */
  readonly shared?: number;
}

/** A request ready to send, with its figures and how it was counted, to set the model's ratios from what the server counts. */
export interface Prepared extends CountedRequest {
  readonly request: ModelRequest;
  readonly measure: Measure;
}

export type Preparation =
  | { readonly kind: 'send'; readonly prepared: Prepared }
  /** Over the threshold even with old results shortened: summarize older messages first. */
  | { readonly kind: 'compact'; readonly measure: Measure }
  | { readonly kind: 'too_large'; readonly error: ErrorInfo };

export interface PrepareInput {
  readonly choice: ModelChoice;
  readonly provider: ModelProvider;
  readonly system: string;
  readonly tools: readonly ToolSpec[] | undefined;
  readonly entries: readonly ConversationEntry[];
  readonly signal: AbortSignal;
  /** False right after a compaction: what still does not fit is shortened instead. */
  readonly mayCompact: boolean;
  /** The profile's sampling temperature and room for answers, where it sets them. */
  readonly temperature?: number;
  readonly answerTokens?: number;
  /** The line of requests this one continues, for the server's prompt cache: the session's id. */
  readonly cacheKey?: string;
}

/** What a request to a model carries besides its messages: the system prompt (with a catalogue of tools when the definitions would take too much) and the tools. */
export interface RequestShape {
  readonly system: string;
  readonly tools: readonly ToolSpec[] | undefined;
  /** Their tokens, and the two as one part: text and characters (see `fixedPartOf`). */
  readonly fixed: number;
  readonly part: FixedPart;
}

export interface ContextBudgetOptions {
  /** The window of a model: a setting, the server's figure, or the safe default. Never throws. */
  readonly window: (choice: ModelChoice, signal: AbortSignal) => Promise<ContextWindow>;
  readonly settings: () => ContextSettings;
  /** The extended-thinking budget the person chose for a model, or null for none. */
  readonly thinkingBudget?: (choice: ModelChoice) => number | null;
  /** How long a server's tokenizer may take before the estimate is used. */
  readonly tokenizerTimeoutMs?: number;
  readonly now?: () => number;
}
