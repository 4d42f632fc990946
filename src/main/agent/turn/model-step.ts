import { BugError, type ErrorInfo } from '../../../shared/errors';
import type { RuntimeEvent } from '../../../shared/events';
import { costOf } from '../ports/accounting';
import { beforeModel, openBudgetGate, reachedBudget } from './budget-gate';
import type { ThinkingBlock, ToolCallRequest } from '../ports/model-provider';
import { addPreviews, prepareCall } from './tool-calls';
import type { LoopState, StepContext } from './turn-types';

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
 * One model call: streams the response into the journal as it arrives (text and reasoning per
 * frame), accounts for it, checkpoints it, and says what comes next: its tool calls, the end of
 * the turn, or the error or Stop that cut it short.
 */
export async function runModelStep(context: StepContext): Promise<LoopState> {
  const { setup, services, writer } = context;
  const { turnId } = setup;
  // Once the first model could not be reached, the rest of the turn asks the profile's fallback.
  const model = writer.usingFallback && setup.fallback ? setup.fallback : setup;
  // A budget reached pauses the turn at a gate before the request is made, never ends it by itself. What the last
  // call cost is written first, so the session's figures include it.
  writer.flush();
  const reached = reachedBudget(context, beforeModel);
  if (reached) return openBudgetGate(context, reached, { kind: 'model' });
  writer.setStatus('planning');
  writer.flush();
  // The request carries the whole conversation, and building it takes time that grows with it: the
  // first one of a turn is built once the send that started the turn has been answered, so the
  // person's message shows at once.
  if (writer.iterations === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  const denied = setup.deniedTools();
  // Tools the person denied in settings are not offered at all; a call to one anyway is refused by the rules.
  const tools = services.tools.offered(denied).length > 0 ? services.tools.specs(denied) : undefined;
  // The system prompt is made for this call's window, with the memories relevant to the person's latest message.
  const window = await services.context.window(model.choice, writer.signal);
  const tokens = services.context.tokensOf(model.choice);
  const profile = setup.profile?.profile;
  const assembled = await services.prompts.assemble({
    ...(profile ? { profile } : {}),
    workspacePath: setup.workspacePath,
    autonomy: setup.autonomy,
    tools,
    entries: writer.messages,
    window: window.tokens,
    tokens,
  });
  if (writer.signal.aborted) return { kind: 'finish', status: 'cancelled' };
  const preparation = await services.context.prepare({
    choice: model.choice,
    provider: model.provider,
    system: assembled.text,
    tools,
    entries: writer.messages,
    signal: writer.signal,
    mayCompact: !writer.compacted,
    ...(profile?.temperature == null ? {} : { temperature: profile.temperature }),
    ...(profile?.maxAnswerTokens == null ? {} : { answerTokens: profile.maxAnswerTokens }),
  });
  if (writer.signal.aborted) return { kind: 'finish', status: 'cancelled' };
  if (preparation.kind === 'compact') return { kind: 'compact', trigger: 'threshold', then: 'model' };
  if (preparation.kind === 'too_large') return { kind: 'finish', status: 'failed', error: preparation.error };
  const sent = preparation.prepared;
  const { request, measure } = sent;
  writer.iterations += 1;
  const promptId = services.prompts.record(assembled, request.system ?? '', request.tools, tokens);
  writer.journal([
    {
      type: 'context_measured',
      turnId,
      tokens: measure.tokens,
      window: measure.window.tokens,
      windowSource: measure.window.source,
      windowDetail: measure.window.detail,
      threshold: measure.threshold,
      reserve: measure.reserve,
      counting: measure.counting,
      shortened: measure.shortened,
      ...(promptId === null ? {} : { promptId }),
    },
  ]);
  writer.flushWithinFrame();
  const messageId = services.newId();
  const startedAt = services.clock.now();
  let started = false;
  const startMessage = (): void => {
    if (started) return;
    started = true;
    writer.journal([{ type: 'assistant_message_started', turnId, messageId }]);
  };
  let text = '';
  let attempts = 1;
  let usage = { inputTokens: 0, outputTokens: 0 };
  let refused: { window?: number; promptTokens?: number } = {};
  let outcome: { kind: 'done' } | { kind: 'error'; error: ErrorInfo } = {
    kind: 'error',
    error: { code: 'model_bad_response', message: 'The model stream ended without finishing.' },
  };
  const calls: ToolCallRequest[] = [];
  const thinking: ThinkingBlock[] = [];

  for await (const event of model.provider.stream(request, writer.signal)) {
    switch (event.type) {
      case 'text_delta':
      case 'reasoning_delta':
        if (event.text.length === 0) break;
        startMessage();
        if (event.type === 'text_delta') text += event.text;
        writer.stream({ type: event.type, turnId, messageId, text: event.text });
        break;
      case 'reasoning_block':
        thinking.push(event.block);
        break;
      case 'usage':
        usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens };
        break;
      case 'retry_scheduled':
        attempts = event.attempt + 1;
        writer.journal([{ type: 'model_retry_scheduled', turnId, attempt: event.attempt, delayMs: event.delayMs, error: event.error }]);
        writer.flush();
        break;
      case 'tool_call_ready':
        // Servers reuse ids such as call_0 across responses; the runtime gives each call its own.
        calls.push({ id: `call_${services.newId()}`, name: event.name, arguments: event.arguments });
        break;
      // Shown as the model writes them, so a long file or command is seen coming; journalled once complete.
      case 'tool_call_started':
        startMessage();
        writer.draft({ type: 'tool_call_draft_started', turnId, messageId, index: event.index, callId: event.id, tool: event.name });
        break;
      case 'tool_call_arguments_delta':
        if (event.delta.length === 0) break;
        startMessage();
        writer.draft({ type: 'tool_call_draft_delta', turnId, messageId, index: event.index, callId: event.id, text: event.delta });
        break;
      case 'done':
        outcome = { kind: 'done' };
        break;
      case 'error':
        outcome = { kind: 'error', error: event.error };
        refused = {
          ...(event.window === undefined ? {} : { window: event.window }),
          ...(event.promptTokens === undefined ? {} : { promptTokens: event.promptTokens }),
        };
        break;
      default: {
        const unhandled: never = event;
        throw new BugError(`Unhandled model event ${JSON.stringify(unhandled)}`);
      }
    }
  }
  writer.dropDrafts();
  if (writer.failure) return { kind: 'finish', status: 'failed', error: writer.failure };
  writer.compacted = false;
  const truncated = services.context.observe(model.choice, sent, usage.inputTokens);
  if (truncated)
    writer.journal([
      { type: 'context_truncated', turnId, sentTokens: truncated.sent, reportedTokens: truncated.reported, message: truncated.message },
    ]);
  if (outcome.kind === 'error' && outcome.error.code === 'model_context_overflow' && !started && !writer.overflowRetried) {
    // The server's window is smaller than the one budgeted: learn it, make room, and try once more.
    writer.overflowRetried = true;
    writer.iterations -= 1;
    services.context.refused(model.choice, sent, refused);
    return { kind: 'compact', trigger: 'overflow', then: 'model' };
  }
  if (
    outcome.kind === 'error' &&
    !started &&
    !writer.signal.aborted &&
    setup.fallback &&
    !writer.usingFallback &&
    fallbackErrors.has(outcome.error.code)
  ) {
    writer.usingFallback = true;
    writer.iterations -= 1;
    const { choice: to } = setup.fallback;
    const message = `${model.choice.model} could not answer (${outcome.error.message}); the rest of this turn uses the profile's fallback, ${to.model}.`;
    writer.journal([{ type: 'model_fallback_used', turnId, from: model.choice, to, error: outcome.error, message }]);
    writer.flush();
    return { kind: 'model' };
  }
  const cancelled = writer.signal.aborted || (outcome.kind === 'error' && outcome.error.code === 'cancelled');
  if (calls.length > 0 && !cancelled && outcome.kind === 'done') startMessage();
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
  if (started || usage.inputTokens > 0 || usage.outputTokens > 0) {
    const latencyMs = services.clock.now() - startedAt;
    const { kind, baseUrl } = model.endpoint;
    const costUsd = costOf(kind, baseUrl, model.choice.model, usage.inputTokens, usage.outputTokens);
    events.push({ type: 'model_call_finished', turnId, messageId, ...usage, latencyMs, attempts, costUsd });
    writer.journal(events);
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
  } else if (events.length > 0) {
    writer.journal(events);
  }
  if (cancelled || outcome.kind === 'error') writer.cutShort = text;
  if (cancelled) return { kind: 'finish', status: 'cancelled' };
  if (outcome.kind === 'error') return { kind: 'finish', status: 'failed', error: outcome.error };
  writer.addMessage({
    role: 'assistant',
    content: text,
    ...(calls.length > 0 ? { toolCalls: calls } : {}),
    // Kept with the model that wrote it: the blocks go back to that model only, exactly as they came.
    ...(thinking.length > 0 ? { thinking: { providerId: model.choice.providerId, model: model.choice.model, blocks: thinking } } : {}),
  });
  writer.checkpoint('model');
  if (calls.length === 0) return { kind: 'finish', status: 'completed' };
  return { kind: 'decide', calls: prepared, purpose: purposeOf(text) };
}
