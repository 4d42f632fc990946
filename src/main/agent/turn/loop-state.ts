/* The loop's state: what happens next, and what the turn has done so far that decides it. */
import type { ErrorInfo } from '../../../shared/errors';
import type { InjectionSign } from '../../../shared/guardrails';
import type { ToolCallStatus } from '../../../shared/events';
import type { BudgetReached } from '../rules/budget-tally';
import type { ApprovalAnswer } from '../rules/gates';
import type { GateDeadline, ModelChoice, ProviderKind } from '../../../shared/domain';
import type { Prepared } from '../context/prompt-builder';
import type { ModelProvider, ThinkingBlock, ToolCallRequest } from '../ports/model-provider';
import type { CallTokens } from '../ports/accounting';
import type { Decision } from '../rules/policy';
import type { RiskAssessment, Tool } from '../ports/tools';

/** A tool call as the model asked for it, parsed and assessed, or the reason it cannot run. */
export interface PreparedCall {
  readonly request: ToolCallRequest;
  readonly tool: Tool | null;
  readonly rawInput: unknown;
  readonly input: unknown;
  readonly invalid: string | null;
  readonly assessment: RiskAssessment;
  readonly summary: string;
  /** What the call would change; computed once the response is complete, or when its gate opens. */
  preview: string | null;
}

/** A gate a call reached before the app stopped: it opens again as it was, or its answer is taken as given. */
export interface EarlierGate {
  readonly approvalId: string;
  readonly answer: ApprovalAnswer | null;
  /** Its time limit as journalled: a gate opened again after a restart keeps it, on steady time. */
  readonly deadline?: GateDeadline;
}

/** A call that can run, with what the rules decided for it. */
export interface DecidedCall {
  readonly call: PreparedCall & { readonly tool: Tool };
  readonly decision: Decision;
  /** The person allowed it at its gate. */
  readonly approved?: boolean;
  /** The person changed its content at the gate: it runs with theirs, and the model is told so. */
  readonly changedByPerson?: { readonly field: string; readonly content: string };
  readonly earlierGate?: EarlierGate;
}

/**
 * What happens next: the loop's whole state machine is this union and one switch over it. Waiting
 * at a gate is a state like the others: the loop holds it, awaits the answer and goes on from it,
 * and a turn resumed after the app stopped starts from the same state.
 */
export type LoopState =
  /** A model request is to be made: budgets checked, the prompt built and fitted to the window. */
  | { readonly kind: 'model' }
  /** The request is made and its response streamed into the journal. */
  | { readonly kind: 'stream'; readonly request: ModelRequestMade }
  /** The response has ended: accounted, checkpointed, and what comes next decided from it. */
  | { readonly kind: 'settle'; readonly request: ModelRequestMade; readonly response: StreamedResponse }
  /**
   * Older messages are summarized so the conversation fits the window: before a request over the
   * threshold, after the server refused one as too large, or because the person asked.
   */
  | {
      readonly kind: 'compact';
      readonly trigger: 'threshold' | 'overflow' | 'manual';
      readonly instructions?: string;
      /** A compaction the person asked for ends the turn; the others go on to the model. */
      readonly then: 'model' | 'finish';
    }
  /** A response's calls, to be decided (and shown as a plan when there are enough of them). */
  | { readonly kind: 'decide'; readonly calls: readonly PreparedCall[]; readonly purpose: string }
  /** A plan waits for the person. */
  | {
      readonly kind: 'plan';
      readonly planId: string;
      readonly runnable: readonly DecidedCall[];
      /** When the plan's gate ends unanswered, and how; absent: it waits until answered. */
      readonly deadline?: GateDeadline;
    }
  /** Calls to run in order; consecutive read-only ones that may run go together. */
  | { readonly kind: 'execute'; readonly queue: readonly DecidedCall[]; readonly fromPlan: boolean }
  /** One call waits at its gate; `queue` comes after it. */
  | {
      readonly kind: 'approval';
      readonly approvalId: string;
      readonly item: DecidedCall;
      readonly queue: readonly DecidedCall[];
      readonly fromPlan: boolean;
      /** When the gate ends unanswered, and how; absent: it waits until answered. */
      readonly deadline?: GateDeadline;
    }
  /** Flagged results wait for the person, the first one first; `then` is where the loop goes after the last. */
  | { readonly kind: 'review'; readonly held: readonly HeldResult[]; readonly then: LoopState }
  /** A budget was reached: the loop waits for the person, and goes on to `then` when they give it `step` more. */
  | (BudgetReached & { readonly kind: 'budget'; readonly gateId: string; readonly step: number; readonly then: LoopState })
  | {
      readonly kind: 'finish';
      readonly status: 'completed' | 'failed' | 'cancelled';
      readonly error?: ErrorInfo;
      /** Text of a response cut short by Stop or an error: what the person saw streaming is kept with the turn's end. */
      readonly cutShort?: string;
    };

/** The model a request goes to: the turn's, or the profile's fallback. */
export interface ModelInUse {
  readonly choice: ModelChoice;
  readonly endpoint: { readonly kind: ProviderKind; readonly baseUrl: string };
  readonly provider: ModelProvider;
}

/** A request ready to be sent: the model it goes to and what the context budget made of it. */
export interface ModelRequestMade {
  readonly model: ModelInUse;
  readonly sent: Prepared;
}

/** What a streamed response brought, whole or cut short. */
export interface StreamedResponse {
  readonly messageId: string;
  /** Something of the response was shown (text, reasoning or a call being written). */
  readonly started: boolean;
  readonly startedAt: number;
  readonly text: string;
  readonly calls: readonly ToolCallRequest[];
  readonly thinking: readonly ThinkingBlock[];
  readonly usage: CallTokens;
  readonly attempts: number;
  readonly outcome: { readonly kind: 'done' } | { readonly kind: 'error'; readonly error: ErrorInfo };
  /** What the server said of its window when it refused the request as too large. */
  readonly refused: { readonly window?: number; readonly promptTokens?: number };
}

/** A call's result that signs of a prompt injection hold for the person before the model is given it. */
export interface HeldResult {
  readonly reviewId: string;
  readonly request: ToolCallRequest;
  /** What the model is given when the person lets it in. */
  readonly output: string;
  readonly status: ToolCallStatus;
  readonly signs: readonly InjectionSign[];
}

/**
 * What the turn has done so far that decides its next steps. The loop holds it beside its state and only the steps
 * that change it return a new one (`Advance`); a turn resumed after the app stopped starts from a rebuilt one.
 */
export interface TurnProgress {
  /** Model calls made so far in this turn. */
  readonly iterations: number;
  /** A compaction was made since the last model call: what still does not fit is shortened instead. */
  readonly compacted: boolean;
  /** A request was refused as too large and compacted once: a second refusal ends the turn. */
  readonly overflowRetried: boolean;
  /** The first model could not answer: the rest of the turn asks the profile's fallback. */
  readonly usingFallback: boolean;
}

/** A new turn's progress: nothing done yet. */
export const freshProgress: TurnProgress = { iterations: 0, compacted: false, overflowRetried: false, usingFallback: false };

/** Where a step that changes the turn's progress leaves the loop: its next state, and the progress from then on. */
export interface Advance {
  readonly next: LoopState;
  readonly progress: TurnProgress;
}
