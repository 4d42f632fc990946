/*
 * The context budget: what each request may take of the window, and the view of the conversation that fits it.
 */
import { thinkingBudgetLimits, type ContextWindow, type ModelChoice } from '../../../shared/domain';
import { ConversationTally } from './conversation-tally';
import {
  compactedView,
  joinRequests,
  latestCompaction,
  loopWithoutOwnThinking,
  ownThinkingOnly,
  shorten,
  type ConversationEntry,
} from './context-view';
import type { ChatMessage, ModelRequest, ToolSpec } from '../ports/model-provider';
import { charsOf, fixedPartOf, TokenCalibration, uncalibratedTokensPerChar, type CountedRequest } from './token-count';
import { ServerTokenizer } from './server-tokenizer';
import { fitTools } from './tool-catalogue';
import { tooLarge } from './prompt-fitting';
import { keyOf, LearnedWindows } from './learned-windows';
import { PrefixMeter, sharedTokens } from './prefix-meter';
import { hardChars } from './room';

export {
  defaultContextSettings,
  type ContextBudgetOptions,
  type ContextSettings,
  type Measure,
  type Preparation,
  type Prepared,
  type PrepareInput,
  type RequestShape,
} from './budget-types';
import type { ContextBudgetOptions, Measure, Preparation, Prepared, PrepareInput, RequestShape } from './budget-types';

/** What an earlier message of the person is cut to when nothing else makes the request fit. */
const earlierRequestChars = 2_000;
/** Tokens of the fixed parts as they are fitted: the safe ratio, the same at every request. */
const fixedPartTokens = (chars: number): number => Math.ceil(chars * uncalibratedTokensPerChar);

/** Below this many tokens a window is small: the fixed parts of a request shrink to leave the conversation room. */
export const smallWindow = 16_384;
/** A compaction brings the conversation down to this share of the threshold, so many steps fit before the next one. */
const targetShare = 0.65;

/**
 * The prompt builder of design section 10: for every model call, the view of the conversation that
 * fits the window the server loaded, less the answer's room. Between compactions the view only grows
 * at its end, so a server's prompt cache holds: over the threshold it asks for a compaction, which
 * makes room in one step (see `room.ts`); right after one, a request still over the window's limit
 * is cut hard, and one that cannot fit at all is refused with what is too large. It never builds a
 * request over the window.
 */
export class ContextBudget {
  readonly calibration = new TokenCalibration();
  /** Windows the servers' behaviour showed smaller than their figures. */
  private readonly learned: LearnedWindows;
  /** What each conversation held when it was last counted. */
  private readonly tally = new ConversationTally();
  /** The servers' tokenizers, for the fixed parts of requests. */
  private readonly tokenizer: ServerTokenizer;
  /** The prompt last sent on each line, to say how much of the next is unchanged. */
  private readonly prefixes = new PrefixMeter();

  constructor(private readonly options: ContextBudgetOptions) {
    this.learned = new LearnedWindows(() => this.now());
    this.tokenizer = new ServerTokenizer(this.calibration, options.tokenizerTimeoutMs ?? 3_000);
  }

  /** The window requests to this model are budgeted with. */
  async window(choice: ModelChoice, signal: AbortSignal): Promise<ContextWindow> {
    return this.learned.apply(choice, await this.options.window(choice, signal));
  }

  /** The server's real window is at most `tokens`, where `against` was budgeted: it cut a prompt to that size, or said so when refusing one. */
  learnWindow(choice: ModelChoice, tokens: number, against: number): void {
    this.learned.learn(choice, tokens, against);
  }

  /**
   * The server refused a request as too large. What it said of its window is learned; what it said of
   * the prompt's size corrects the model's ratio (the count was under); with neither, the window is
   * taken as smaller than the request.
   */
  refused(choice: ModelChoice, sent: Prepared, said: { window?: number; promptTokens?: number }): void {
    const against = this.learned.against(choice, sent.measure.window.tokens);
    if (said.window !== undefined) this.learnWindow(choice, said.window, against);
    if (said.promptTokens !== undefined && said.promptTokens > sent.measure.tokens)
      this.calibration.fromUsage(keyOf(choice), said.promptTokens, sent);
    if (said.window === undefined && said.promptTokens === undefined)
      this.learnWindow(choice, Math.floor(sent.measure.tokens * 0.85), against);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The room for the answer (with `thinking` tokens of thinking on top) and the thresholds of a window. */
  limits(
    window: ContextWindow,
    thinking = 0,
    answerTokens?: number,
  ): { reserve: number; limit: number; threshold: number; target: number } {
    const { compactAt } = this.options.settings();
    const reserve = this.answerRoom(window, answerTokens) + thinking;
    const limit = window.tokens - reserve;
    const threshold = Math.min(limit, Math.floor(window.tokens * compactAt));
    return { reserve, limit, threshold, target: Math.floor(threshold * targetShare) };
  }

  /** The room for the answer: at most a quarter of the window, and a sixth of a small one, which the conversation needs more. */
  private answerRoom(window: ContextWindow, answerTokens?: number): number {
    const share = window.tokens < smallWindow ? 6 : 4;
    return Math.max(1, Math.min(answerTokens ?? this.options.settings().answerTokens, Math.floor(window.tokens / share)));
  }

  /**
   * The thinking budget of a request to this model, or 0 for none. The answer and its thinking take
   * at most half the window, so a budget too large for it is lowered; one that would fall under the
   * API's minimum is not sent at all. A tool loop begun without this model's thinking goes on without.
   */
  thinkingBudget(choice: ModelChoice, window: ContextWindow, entries: readonly ConversationEntry[]): number {
    const chosen = this.options.thinkingBudget?.(choice) ?? null;
    if (chosen === null || loopWithoutOwnThinking(entries, choice)) return 0;
    const budget = Math.min(chosen, Math.floor(window.tokens / 2) - this.answerRoom(window));
    return budget >= thinkingBudgetLimits.min ? budget : 0;
  }

  /** Tokens of messages by a model's ratio for them. */
  count(choice: ModelChoice, messages: readonly ChatMessage[]): number {
    let chars = 0;
    for (const message of messages) chars += charsOf(message);
    return this.calibration.estimate(keyOf(choice), chars, messages.length);
  }

  /**
   * Tokens of so many characters of the fixed parts (system prompt parts, tool definitions) as they are fitted to the
   * window: by the safe ratio, never the calibrated one, so the same parts are fitted the same way at every request of
   * a session and the prompt's beginning holds while the calibration learns.
   */
  tokensOf(_choice: ModelChoice): (chars: number) => number {
    return fixedPartTokens;
  }

  /** Tokens of the system prompt and tool definitions: the server's tokenizer's count where it made one. */
  countFixed(choice: ModelChoice, system: string, tools: readonly ToolSpec[] | undefined): number {
    return this.calibration.fixedTokens(keyOf(choice), fixedPartOf(system, tools));
  }

  /**
   * The system prompt and tools a request to this model carries: tool definitions that would take too much of the
   * window become a catalogue in the system prompt. The same inputs give the same text, so the prompt's start holds.
   */
  shape(input: Pick<PrepareInput, 'choice' | 'system' | 'tools' | 'entries'>, window: ContextWindow): RequestShape {
    const fitted = fitTools(input.tools, window.tokens, input.entries, fixedPartTokens);
    const system = fitted.catalogue ? `${input.system}\n\n${fitted.catalogue}` : input.system;
    const part = fixedPartOf(system, fitted.tools);
    return { system, tools: fitted.tools, fixed: this.calibration.fixedTokens(keyOf(input.choice), part), part };
  }

  /** The request for the next model call, or why it cannot be sent as it is. */
  async prepare(given: PrepareInput): Promise<Preparation> {
    const { choice } = given;
    const window = await this.window(choice, given.signal);
    const thinking = this.thinkingBudget(choice, window, given.entries);
    const { reserve, limit, threshold } = this.limits(window, thinking, given.answerTokens);
    const key = keyOf(choice);
    const shape = this.shape(given, window);
    const input: PrepareInput = { ...given, system: shape.system, tools: shape.tools };
    const { part } = shape;
    const { text: fixedText, chars: fixedChars } = part;
    // The fixed part is counted by the server's tokenizer once, and the first messages long enough with it.
    const messages = (): ChatMessage[] => compactedView(input.entries);
    const { provider, signal } = input;
    const messageTokens = await this.tokenizer.count({ key, model: choice.model, provider, fixedText, messages, signal });
    const fixed = this.calibration.fixedTokens(key, part);
    const counting = this.calibration.counting(key, fixedText);
    const tokenized = this.calibration.counted(key, fixedText) ? { fixedText } : undefined;
    const estimate = this.calibration.estimator(key);
    // The usual case, counted from what is new since the last request: nothing summarized, nothing to
    // join, well within the threshold. The count rounds up once per message, so it is never below the
    // one made message by message.
    const scan = this.tally.of(input.entries);
    if (!scan.compaction && !scan.consecutiveRequests) {
      const tokens = fixed + estimate(scan.chars, scan.messages) + scan.messages;
      if (tokens <= threshold) {
        const measure: Measure = { tokens, window, threshold, limit, reserve, counting, shortened: 0 };
        // Sent as counted: the tokenizer's count of its messages, where it made one, is theirs.
        const counted: CountedRequest = {
          chars: fixedChars + scan.chars,
          fixedChars,
          messageCount: scan.messages + 1,
          ...(tokenized ? { tokenized: messageTokens === undefined ? tokenized : { ...tokenized, messageTokens } } : {}),
        };
        return {
          kind: 'send',
          prepared: this.request(input, input.entries as readonly ChatMessage[], thinking, window, measure, fixed, counted, scan.thinking),
        };
      }
    }
    const view = messages();
    const sizes = new Array<number>(view.length);
    let total = fixed;
    for (let position = 0; position < view.length; position += 1) {
      const size = estimate(charsOf(view[position] as ChatMessage), 1);
      sizes[position] = size;
      total += size;
    }
    // The compaction's cuts are part of the view; what is cut here, right after one, is counted on top.
    let shortened = latestCompaction(input.entries)?.entry.cuts?.length ?? 0;
    const measure = (): Measure => ({
      tokens: total,
      window,
      threshold,
      limit,
      reserve,
      counting,
      shortened,
    });
    // Over the threshold, room is made in one step, by a compaction; between two, nothing sent is rewritten.
    if (total > threshold && input.mayCompact) return { kind: 'compact', measure: measure() };
    if (total > limit) {
      // Right after a compaction, still over the window: results are cut hard, the newest last.
      const cut = (position: number, text: string, role: 'tool' | 'user' = 'tool'): void => {
        const message = view[position];
        if (message?.role !== role || message.content === text) return;
        const next: ChatMessage = { ...message, content: text };
        const size = this.calibration.estimate(key, charsOf(next), 1);
        total += size - (sizes[position] ?? 0);
        sizes[position] = size;
        view[position] = next;
        shortened += 1;
      };
      for (let position = 0; position < view.length && total > limit; position += 1)
        cut(position, shorten(view[position]?.content ?? '', hardChars));
      // Then the person's earlier messages (a huge first request would otherwise fail every turn after it);
      // their latest one is what the model must answer, so it is never cut.
      const latest = view.findLastIndex((message) => message.role === 'user');
      for (let position = 0; position < latest && total > limit; position += 1)
        cut(position, shorten(view[position]?.content ?? '', earlierRequestChars), 'user');
    }
    if (total > limit) return { kind: 'too_large', error: tooLarge(fixed, view, sizes, limit, window) };
    const sent = joinRequests(view);
    let chars = fixedChars;
    for (const message of sent) chars += charsOf(message);
    const counted: CountedRequest = { chars, fixedChars, messageCount: sent.length + 1, ...(tokenized ? { tokenized } : {}) };
    return { kind: 'send', prepared: this.request(input, sent, thinking, window, measure(), fixed, counted) };
  }

  /**
   * The conversation as the model sees it now, then `instruction`, with the system prompt and tools it was sent with:
   * a request the server has read, up to the instruction, already. Its answer gets up to `answer` tokens, and no fewer
   * than `least`; null when that would not fit the window.
   */
  continuation(
    input: Pick<PrepareInput, 'choice' | 'system' | 'tools' | 'entries' | 'cacheKey'>,
    window: ContextWindow,
    instruction: string,
    room: { readonly answer: number; readonly least: number },
  ): { request: ModelRequest; tokens: number } | null {
    const { choice } = input;
    const shape = this.shape(input, window);
    const messages = joinRequests([...compactedView(input.entries), { role: 'user', content: instruction }]);
    const tokens = shape.fixed + this.count(choice, messages);
    // The count is an estimate where the server's tokenizer is not at hand (about 1 % off either way): the answer's
    // room leaves 2 % of it, and at least 64 tokens, free.
    const answer = Math.min(room.answer, window.tokens - Math.max(64, Math.ceil(tokens * 0.02)) - tokens);
    if (answer < room.least) return null;
    const request: ModelRequest = {
      model: choice.model,
      system: shape.system,
      messages: ownThinkingOnly(messages, choice, false),
      ...(shape.tools && shape.tools.length > 0 ? { tools: shape.tools } : {}),
      maxTokens: answer,
      contextWindow: window.tokens,
      ...(input.cacheKey === undefined ? {} : { cacheKey: input.cacheKey }),
    };
    // Sent on the conversation's own line: it is what the server holds of it next.
    this.prefixes.measure(`${keyOf(choice)}\u0000${input.cacheKey ?? ''}`, request);
    return { request, tokens };
  }

  private request(
    input: PrepareInput,
    messages: readonly ChatMessage[],
    thinking: number,
    window: ContextWindow,
    measure: Measure,
    /** The fixed part's tokens, and how the request was counted. */
    fixed: number,
    counted: CountedRequest,
    /** False when no message carries thinking: there is none to take out. */
    anyThinking = true,
  ): Prepared {
    const { choice, system, tools } = input;
    const request: ModelRequest = {
      model: choice.model,
      system,
      messages: anyThinking ? ownThinkingOnly(messages, choice, thinking > 0) : messages,
      ...(tools && tools.length > 0 ? { tools } : {}),
      maxTokens: measure.reserve,
      ...(thinking > 0 ? { thinking: { budgetTokens: thinking } } : {}),
      ...(input.temperature === undefined ? {} : { temperature: input.temperature }),
      contextWindow: window.tokens,
      ...(input.cacheKey === undefined ? {} : { cacheKey: input.cacheKey }),
    };
    const share = this.prefixes.measure(`${keyOf(choice)}\u0000${input.cacheKey ?? ''}`, request);
    const shared = share.first ? undefined : sharedTokens(share, measure.tokens, fixed);
    return { ...counted, request, measure: shared === undefined ? measure : { ...measure, shared } };
  }

  /**
   * What the server counted for a request that was sent: it calibrates the model's ratio, unless it
   * is far below what was sent, which means the server cut the prompt without saying so. Returns
   * what to tell the person then.
   */
  observe(choice: ModelChoice, prepared: Prepared, reportedTokens: number): { sent: number; reported: number; message: string } | null {
    if (!(reportedTokens > 0)) return null;
    const key = keyOf(choice);
    const sent = prepared.measure.tokens;
    // A ratio set by the server's tokenizer, or by several counts, is trusted to a 30 % miss; one set by a single count
    // is not: a first request that is mostly a dense system prompt (paths, code) gives more tokens a character than
    // the prose that follows, and a long answer would then look cut.
    if (sent > 512 && reportedTokens < sent * (this.calibration.trusted(key) ? 0.7 : 0.45)) {
      this.learnWindow(choice, reportedTokens, this.learned.against(choice, prepared.measure.window.tokens));
      return {
        sent,
        reported: reportedTokens,
        message: `The server counted ${reportedTokens} prompt tokens where about ${sent} were sent: it probably cut the start of the conversation to fit a smaller window than ${prepared.measure.window.tokens}. Requests to ${choice.model} are now kept within ${reportedTokens} tokens; set the model's window in Settings if the server's is known.`,
      };
    }
    this.calibration.fromUsage(key, reportedTokens, prepared);
    return null;
  }
}
