/*
 * The compaction as a step of the loop: its model calls accounted, its event and its checkpoint.
 */
import { costOf } from '../ports/accounting';
import { digest, planCompaction, summarize, summaryTokens } from '../context/compaction';
import { compactedView } from '../context/context-view';
import type { Advance, LoopState, ModelInUse, TurnProgress } from './loop-state';
import { modelInUse } from './model-prepare';
import type { StepContext } from './step-context';

/**
 * The compaction step: plans what to summarize, asks the model for the summary (a list of the
 * steps made by the app stands in when it cannot give one), and adds the compaction to the
 * conversation with its journal event and a checkpoint of its own. The journal keeps every
 * message; restoring a checkpoint before this one brings back the view without it.
 */
export async function runCompaction(
  context: StepContext,
  state: Extract<LoopState, { kind: 'compact' }>,
  progress: TurnProgress,
): Promise<Advance> {
  // Whatever comes of it, the next request does not compact again: what still does not fit is shortened instead.
  return { next: await compact(context, state, modelInUse(context, progress)), progress: { ...progress, compacted: true } };
}

async function compact(context: StepContext, state: Extract<LoopState, { kind: 'compact' }>, model: ModelInUse): Promise<LoopState> {
  const { setup, services, writer } = context;
  const { turnId } = setup;
  const { choice } = model;
  const next: LoopState = state.then === 'model' ? { kind: 'model' } : { kind: 'finish', status: 'completed' };
  writer.setStatus('planning');
  writer.flush();
  const budget = services.context;
  const window = await budget.window(choice, writer.signal);
  const count = (messages: Parameters<typeof budget.count>[1]): number => budget.count(choice, messages);
  const plan = planCompaction(writer.messages, count, window);
  if (!plan) {
    // Nothing older than the last steps to summarize: what does not fit is shortened instead.
    if (state.trigger === 'manual')
      return {
        kind: 'finish',
        status: 'failed',
        error: { code: 'invalid_state', message: 'There is nothing old enough to summarize yet.' },
      };
    return next;
  }
  const before = count(compactedView(writer.messages));
  const compactionId = services.newId();
  const { kind, baseUrl } = model.endpoint;
  const result = await summarize({
    plan,
    choice,
    provider: model.provider,
    budget,
    window,
    instructions: state.instructions ?? null,
    signal: writer.signal,
    now: () => services.clock.now(),
    onCall: (usage) => {
      if (usage.inputTokens === 0 && usage.outputTokens === 0) return;
      const costUsd = costOf(kind, baseUrl, choice.model, usage.inputTokens, usage.outputTokens);
      const messageId = services.newId();
      writer.journal([{ type: 'model_call_finished', turnId, messageId, ...usage, attempts: 1, costUsd }]);
      const at = services.clock.now();
      const { inputTokens, outputTokens, latencyMs } = usage;
      writer.stage(() =>
        services.accounting.recordModelCall({
          id: messageId,
          sessionId: setup.sessionId,
          turnId,
          providerId: choice.providerId,
          providerKind: kind,
          model: choice.model,
          inputTokens,
          outputTokens,
          latencyMs,
          costUsd,
          status: 'completed',
          at,
        }),
      );
    },
  });
  if (writer.signal.aborted) return { kind: 'finish', status: 'cancelled' };
  const summary = result.kind === 'summary' ? result.text : digest(plan, summaryTokens(window) * 3);
  const entry = { role: 'compaction' as const, id: compactionId, summary, upTo: plan.upTo };
  writer.addMessage(entry);
  const after = count(compactedView(writer.messages));
  writer.journal([
    {
      type: 'context_compacted',
      turnId,
      compactionId,
      summary,
      upTo: plan.upTo,
      messages: plan.messages.length,
      turns: plan.turns,
      tokensBefore: before,
      tokensAfter: after,
      trigger: state.trigger,
      method: result.kind === 'summary' ? 'model' : 'digest',
      ...(result.kind === 'failed'
        ? { note: `The model's summary could not be used (${result.reason}), so a list of the steps stands in for it.` }
        : {}),
    },
  ]);
  writer.checkpoint('compaction');
  writer.flush();
  return next;
}
