/*
 * A model step's last part: the response accounted and checkpointed, and what comes next decided from it.
 */
import type { RuntimeEvent } from '../../../shared/events';
import { costOf, priceFor } from '../ports/accounting';
import { addPreviews, prepareCall } from './tool-calls';
import type { Advance, LoopState, TurnProgress } from './loop-state';
import type { StepContext } from './step-context';

type SettleState = Extract<LoopState, { kind: 'settle' }>;

/** Failures that mean the model cannot answer now (unreachable, overloaded, timing out), after its retries: the fallback is asked. */
const fallbackErrors: ReadonlySet<string> = new Set([
  'model_connection_failed',
  'model_rate_limited',
  'model_server_error',
  'model_timeout',
]);

/** The first line of a response's text: what its calls are for. */
const purposeOf = (text: string): string => text.trim().split('\n')[0]?.slice(0, 300) ?? '';

/**
 * The last part of a model step: the response is accounted and checkpointed, and says what comes next: its tool
 * calls, the end of the turn, or the error or Stop that cut it short. A request the server refused as too large is
 * made again once after a compaction, and a model that cannot be reached gives way to the profile's fallback; neither
 * counts as a model call.
 */
export async function settleResponse(context: StepContext, state: SettleState, before: TurnProgress): Promise<Advance> {
  const { setup, services, writer } = context;
  const { turnId } = setup;
  const { model, sent } = state.request;
  const { messageId, started, text, calls, thinking, usage, outcome } = state.response;
  if (writer.failure) return { next: { kind: 'finish', status: 'failed', error: writer.failure }, progress: before };
  const progress: TurnProgress = { ...before, compacted: false };
  const truncated = services.context.observe(model.choice, sent, usage.inputTokens);
  if (truncated)
    writer.journal([
      { type: 'context_truncated', turnId, sentTokens: truncated.sent, reportedTokens: truncated.reported, message: truncated.message },
    ]);
  const uncounted = { ...progress, iterations: progress.iterations - 1 };
  if (outcome.kind === 'error' && outcome.error.code === 'model_context_overflow' && !started && !progress.overflowRetried) {
    // The server's window is smaller than the one budgeted: learn it, make room, and try once more.
    services.context.refused(model.choice, sent, state.response.refused);
    return { next: { kind: 'compact', trigger: 'overflow', then: 'model' }, progress: { ...uncounted, overflowRetried: true } };
  }
  if (
    outcome.kind === 'error' &&
    !started &&
    !writer.signal.aborted &&
    setup.fallback &&
    !progress.usingFallback &&
    fallbackErrors.has(outcome.error.code)
  ) {
    const { choice: to } = setup.fallback;
    const message = `${model.choice.model} could not answer (${outcome.error.message}); the rest of this turn uses the profile's fallback, ${to.model}.`;
    writer.journal([{ type: 'model_fallback_used', turnId, from: model.choice, to, error: outcome.error, message }]);
    writer.flush();
    return { next: { kind: 'model' }, progress: { ...uncounted, usingFallback: true } };
  }
  const cancelled = writer.signal.aborted || (outcome.kind === 'error' && outcome.error.code === 'cancelled');
  // A response that is only calls has shown nothing yet: its message starts with them, and it is accounted as shown.
  const startsNow = calls.length > 0 && !cancelled && outcome.kind === 'done' && !started;
  if (startsNow) writer.journal([{ type: 'assistant_message_started', turnId, messageId }]);
  const shown = started || startsNow;
  const prepared = cancelled || outcome.kind === 'error' ? [] : calls.map((call) => prepareCall(call, services.tools, setup));
  await addPreviews(prepared, setup.workspacePath);
  const events: RuntimeEvent[] = prepared.map((call) => ({
    type: 'tool_call_requested',
    turnId,
    toolCallId: call.request.id,
    messageId,
    tool: call.request.name,
    input: call.rawInput,
    summary: call.summary,
    risk: call.assessment.level,
    riskReason: call.assessment.reason,
    ...(call.preview === null ? {} : { preview: call.preview }),
  }));
  if (shown || usage.inputTokens > 0 || usage.outputTokens > 0) {
    account(context, state, cancelled, events);
  } else if (events.length > 0) {
    writer.journal(events);
  }
  if (cancelled) return { next: { kind: 'finish', status: 'cancelled', cutShort: text }, progress };
  if (outcome.kind === 'error') return { next: { kind: 'finish', status: 'failed', error: outcome.error, cutShort: text }, progress };
  writer.addMessage({
    role: 'assistant',
    content: text,
    ...(calls.length > 0 ? { toolCalls: calls } : {}),
    // Kept with the model that wrote it: the blocks go back to that model only, exactly as they came.
    ...(thinking.length > 0 ? { thinking: { providerId: model.choice.providerId, model: model.choice.model, blocks: thinking } } : {}),
  });
  writer.checkpoint('model');
  if (calls.length === 0) return { next: { kind: 'finish', status: 'completed' }, progress };
  return { next: { kind: 'decide', calls: prepared, purpose: purposeOf(text) }, progress };
}

/** Journals the call's figures after `events` (its tool calls), with its accounting row in the same transaction. */
function account(context: StepContext, state: SettleState, cancelled: boolean, events: RuntimeEvent[]): void {
  const { setup, services, writer } = context;
  const { turnId } = setup;
  const { model } = state.request;
  const { messageId, startedAt, usage, attempts, outcome } = state.response;
  const latencyMs = services.clock.now() - startedAt;
  const { kind, baseUrl } = model.endpoint;
  const costUsd = costOf(kind, baseUrl, model.choice.model, usage, priceFor(setup.prices?.(), model.choice));
  writer.journal([...events, { type: 'model_call_finished', turnId, messageId, ...usage, latencyMs, attempts, costUsd }]);
  const status = cancelled ? 'cancelled' : outcome.kind === 'done' ? 'completed' : 'failed';
  const at = services.clock.now();
  writer.stage(() =>
    services.accounting.recordModelCall({
      id: messageId,
      sessionId: setup.sessionId,
      turnId,
      providerId: model.choice.providerId,
      providerKind: kind,
      model: model.choice.model,
      ...usage,
      latencyMs,
      costUsd,
      status,
      at,
    }),
  );
}
