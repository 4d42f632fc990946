/*
 * The compaction as a step of the loop: room made in one step (a summary, shortened old results, or both), its model
 * calls accounted, its event and its checkpoint.
 */
import { costOf, priceFor } from '../ports/accounting';
import {
  askForSummary,
  continuationInstruction,
  digest,
  notesTooLong,
  planCompaction,
  summarize,
  summaryTokens,
  type CallUsage,
  type CompactionPlan,
  type SummaryResult,
} from '../context/compaction';
import { compactedView, latestCompaction, pinnedRequests, summaryMessage, type CompactionEntry, type Cut } from '../context/context-view';
import { makeRoom } from '../context/room';
import type { ChatMessage } from '../ports/model-provider';
import type { Advance, LoopState, ModelInUse, TurnProgress } from './loop-state';
import { modelInUse, promptInUse, type PromptInUse } from './model-prepare';
import type { StepContext } from './step-context';

type CompactState = Extract<LoopState, { kind: 'compact' }>;

/**
 * The compaction step: makes room in one step that frees enough for many more. It summarizes what is older than the
 * last steps when that frees more than the summary takes (asked as a continuation of the conversation the server has
 * read, when that fits, else in separate requests; a list of the steps made by the app stands in when the model cannot
 * give one), and shortens older results until the conversation is well under the threshold. The result is one entry in
 * the conversation, with its journal event and a checkpoint of its own; until the next one, the view only grows at its
 * end. The journal keeps every message; restoring a checkpoint before this one brings back the view without it.
 */
export async function runCompaction(context: StepContext, state: CompactState, progress: TurnProgress): Promise<Advance> {
  // Whatever comes of it, the next request does not compact again: what still does not fit is shortened instead.
  return { next: await compact(context, state, modelInUse(context, progress)), progress: { ...progress, compacted: true } };
}

async function compact(context: StepContext, state: CompactState, model: ModelInUse): Promise<LoopState> {
  const { setup, services, writer } = context;
  const { choice } = model;
  const next: LoopState = state.then === 'model' ? { kind: 'model' } : { kind: 'finish', status: 'completed' };
  writer.setStatus('planning');
  writer.flush();
  const budget = services.context;
  const prompt = await promptInUse(context, model);
  const { window } = prompt;
  const entries = writer.messages;
  const shape = budget.shape({ choice, system: prompt.assembled.text, tools: prompt.tools, entries }, window);
  const answerTokens = setup.profile?.profile.maxAnswerTokens ?? undefined;
  const { limit, target } = budget.limits(window, 0, answerTokens);
  const count = (messages: readonly ChatMessage[]): number => budget.count(choice, messages);
  const before = shape.fixed + count(compactedView(entries));
  const previous = latestCompaction(entries)?.entry ?? null;
  const plan = planCompaction(entries, count, window);
  // A summary is worth it when it frees more than it takes; the person asking for one gets one whenever there is anything.
  const summarizing = plan !== null && (state.trigger === 'manual' || count(plan.messages) > summaryTokens(window));
  const written = summarizing && plan ? await writeSummary(context, model, prompt, plan, state.instructions ?? null) : null;
  if (writer.signal.aborted) return { kind: 'finish', status: 'cancelled' };
  const summary = written?.summary ?? previous?.summary ?? '';
  const upTo = plan && written ? plan.upTo : (previous?.upTo ?? pinnedRequests(entries).first + 1);
  const room = makeRoom({
    entries,
    upTo,
    carried: previous?.cuts ?? [],
    fixed: shape.fixed + (summary === '' ? 0 : count([summaryMessage(summary)])),
    target,
    limit,
    size: (message) => count([message]),
  });
  if (!written && sameCuts(room.cuts, previous?.cuts ?? [])) {
    if (state.trigger === 'manual')
      return {
        kind: 'finish',
        status: 'failed',
        error: { code: 'invalid_state', message: 'There is nothing old enough to summarize or shorten yet.' },
      };
    // Nothing frees room: the request goes as it is when it fits the window, and is cut hard when it does not.
    return next;
  }
  const entry: CompactionEntry = { role: 'compaction', id: services.newId(), summary, upTo, cuts: room.cuts };
  writer.addMessage(entry);
  writer.journal([
    {
      type: 'context_compacted',
      turnId: setup.turnId,
      compactionId: entry.id,
      summary,
      upTo,
      messages: written && plan ? plan.messages.length : 0,
      turns: written && plan ? plan.turns : 0,
      tokensBefore: before,
      tokensAfter: shape.fixed + count(compactedView(writer.messages)),
      trigger: state.trigger,
      method: written?.method ?? 'shortened',
      cuts: [...room.cuts],
      ...(written?.continued ? { continued: true } : {}),
      ...(written?.note ? { note: written.note } : {}),
    },
  ]);
  writer.checkpoint('compaction');
  writer.flush();
  return next;
}

/** The notes that replace the plan's messages: the model's, or the app's list of the steps when the model cannot write them. */
async function writeSummary(
  context: StepContext,
  model: ModelInUse,
  prompt: PromptInUse,
  plan: CompactionPlan,
  instructions: string | null,
): Promise<{ summary: string; method: 'model' | 'digest'; continued: boolean; note?: string }> {
  const { setup, services, writer } = context;
  const { choice } = model;
  const budget = services.context;
  const { window } = prompt;
  const onCall = (usage: CallUsage): void => account(context, model, usage);
  // First as a continuation of the conversation the server holds: only the instruction is new to it.
  const continuation = budget.continuation(
    { choice, system: prompt.assembled.text, tools: prompt.tools, entries: writer.messages, cacheKey: setup.sessionId },
    window,
    continuationInstruction(instructions),
    // Notes cut short by their room are not used: the separate requests below write them instead.
    { answer: summaryTokens(window), least: Math.min(summaryTokens(window), 384) },
  );
  if (continuation) {
    const startedAt = services.clock.now();
    const answer = await askForSummary(model.provider, continuation.request, writer.signal);
    onCall({ ...answer.usage, latencyMs: services.clock.now() - startedAt });
    const tooLong = answer.kind === 'summary' ? notesTooLong(answer.text, plan, budget, choice) : null;
    if (answer.kind === 'summary' && answer.text !== '' && tooLong === null)
      return { summary: answer.text, method: 'model', continued: true };
  }
  if (writer.signal.aborted) return { summary: '', method: 'digest', continued: false };
  // Else in requests of their own, on a line of their own, so they do not take the conversation's place in the cache.
  const result: SummaryResult = await summarize({
    plan,
    choice,
    provider: model.provider,
    budget,
    window,
    instructions,
    signal: writer.signal,
    now: () => services.clock.now(),
    onCall,
    cacheKey: `${setup.sessionId}:summary`,
  });
  if (result.kind === 'summary') return { summary: result.text, method: 'model', continued: false };
  return {
    summary: digest(plan, summaryTokens(window) * 3),
    method: 'digest',
    continued: false,
    note: `The model's summary could not be used (${result.reason}), so a list of the steps stands in for it.`,
  };
}

/** A summary request's cost, in the journal and the session's accounting. */
function account(context: StepContext, model: ModelInUse, usage: CallUsage): void {
  const { setup, services, writer } = context;
  if (usage.inputTokens === 0 && usage.outputTokens === 0) return;
  const { choice } = model;
  const { kind, baseUrl } = model.endpoint;
  const costUsd = costOf(kind, baseUrl, choice.model, usage, priceFor(setup.prices?.(), choice));
  const messageId = services.newId();
  writer.journal([{ type: 'model_call_finished', turnId: setup.turnId, messageId, ...usage, attempts: 1, costUsd }]);
  const at = services.clock.now();
  writer.stage(() =>
    services.accounting.recordModelCall({
      id: messageId,
      sessionId: setup.sessionId,
      turnId: setup.turnId,
      providerId: choice.providerId,
      providerKind: kind,
      model: choice.model,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      ...(usage.cacheReadTokens === undefined ? {} : { cacheReadTokens: usage.cacheReadTokens }),
      ...(usage.cacheWriteTokens === undefined ? {} : { cacheWriteTokens: usage.cacheWriteTokens }),
      latencyMs: usage.latencyMs,
      costUsd,
      status: 'completed',
      at,
    }),
  );
}

/** Whether two lists of cuts are the same: then nothing new was shortened. */
function sameCuts(a: readonly Cut[], b: readonly Cut[]): boolean {
  return a.length === b.length && a.every((cut, index) => cut.at === b[index]?.at && cut.keep === b[index]?.keep);
}
