/*
 * A model step's first part: the budgets checked, and the request built for the model's window and measured.
 */
import { beforeModel, openBudgetGate, reachedBudget, readsStoredFigures } from './budget-gate';
import type { Advance, ModelInUse, TurnProgress } from './loop-state';
import { autonomyNow, type StepContext } from './step-context';
import { contextNote, conversationFiles, mapBudget } from '../context/recalled-memories';
import type { GivenCodeMap } from '../../../shared/events';
import type { ContextWindow } from '../../../shared/domain';
import type { AssembledPrompt } from '../../../shared/prompt';
import type { ToolSpec } from '../ports/model-provider';

/** The system prompt of a request to the model in use, made for its window, and the tools it is offered. */
export interface PromptInUse {
  readonly window: ContextWindow;
  readonly assembled: AssembledPrompt;
  readonly tools: readonly ToolSpec[] | undefined;
  /** Tokens of so many characters, by the model's ratio. */
  readonly tokens: (chars: number) => number;
}

/**
 * The system prompt for the model in use, made for its window with the memories relevant to the person's latest
 * message, and the tools it is offered: those the person denied in settings are not offered at all (a call to one
 * anyway is refused by the rules).
 */
export async function promptInUse(context: StepContext, model: ModelInUse): Promise<PromptInUse> {
  const { setup, services, writer } = context;
  const denied = setup.deniedTools();
  // The tools of every session, and those of this session's folder (its own MCP servers, when the person trusts it).
  const folder = setup.workspacePath;
  const tools = services.tools.offered(denied, folder).length > 0 ? services.tools.specs(denied, folder) : undefined;
  const window = await services.context.window(model.choice, writer.signal);
  const tokens = services.context.tokensOf(model.choice);
  const profile = setup.profile?.profile;
  const assembled = await services.prompts.assemble({
    ...(profile ? { profile } : {}),
    workspacePath: setup.workspacePath,
    autonomy: autonomyNow(context).autonomy,
    tools,
    entries: writer.messages,
    window: window.tokens,
    tokens,
    ...(setup.sessionStartedAt === undefined ? {} : { startedAt: setup.sessionStartedAt }),
  });
  return { window, assembled, tools, tokens };
}

/**
 * The repository map for the person's message, leaning towards the files the conversation holds and those the message
 * names; null when there is none to give (no workspace, the map off or too small for the window, the index not ready).
 */
async function codeMapFor(
  context: StepContext,
  message: string,
  window: number,
  tokens: (chars: number) => number,
): Promise<{ text: string; budget: number; given: Omit<GivenCodeMap, 'tokens'> } | null> {
  const { setup, services, writer } = context;
  const budget = mapBudget(window, setup.codeMapShare ?? 0);
  if (!services.codeMap || setup.workspacePath === null || budget === 0) return null;
  const result = await services.codeMap
    .render({
      workspacePath: setup.workspacePath,
      chatFiles: conversationFiles(writer.messages),
      attachedFiles: (setup.userAttachments ?? []).map((attachment) => attachment.path),
      message,
      budget,
      tokens,
      signal: writer.signal,
    })
    // A map is a help, never a reason for the turn to stop: one that fails (or is stopped with the turn) is left out.
    .catch(() => null);
  if (result?.kind !== 'map') return null;
  const { text, files, definitions, indexed } = result;
  return { text, budget, given: { text, files, definitions, indexed } };
}

/** The model the turn asks now: the profile's fallback once the first could not answer. */
export function modelInUse(context: StepContext, progress: TurnProgress): ModelInUse {
  const { setup } = context;
  return progress.usingFallback && setup.fallback ? setup.fallback : setup;
}

/**
 * The first part of a model step: the budgets checked, then the request built for the window the model has (the
 * system prompt, the tools offered, the conversation fitted) and measured in the journal. It goes on to the stream,
 * counted as one more model call, or to a budget gate, a compaction, or the turn's end.
 */
export async function prepareModelRequest(context: StepContext, progress: TurnProgress): Promise<Advance> {
  const { setup, services, writer } = context;
  const { turnId } = setup;
  const stay = (next: Advance['next']): Advance => ({ next, progress });
  const model = modelInUse(context, progress);
  // A budget reached pauses the turn at a gate before the request is made, never ends it by itself. What the last
  // call cost is written first when a session budget reads it from the store; otherwise it lands with the status below,
  // in one commit instead of two.
  if (readsStoredFigures(context, beforeModel)) writer.flush();
  const reached = reachedBudget(context, beforeModel);
  if (reached) return stay(openBudgetGate(context, reached, { kind: 'model' }));
  writer.setStatus('planning');
  if (progress.iterations === 0) {
    writer.flush();
    // The request carries the whole conversation, and building it takes time that grows with it: the
    // first one of a turn is built once the send that started the turn has been answered, so the
    // person's message shows at once.
    await new Promise<void>((resolve) => setImmediate(resolve));
  } else {
    // The step before (a call's result, its checkpoint) is written within the frame, while the model reads the prompt,
    // not in front of the request: no event announces a request, and what the step did has happened already. Its
    // calls' starts were written before they ran, so a crash in between leaves them found as interrupted, as it would
    // a moment earlier.
    writer.flushWithinFrame();
  }
  const { assembled, tools, tokens, window } = await promptInUse(context, model);
  const profile = setup.profile?.profile;
  // The date when it is new to the conversation, the memories relevant to the person's new message and the repository
  // map made for it go after it, once, before its first request: the system prompt stays the same from turn to turn.
  if (progress.iterations === 0 && setup.userText !== null) {
    const memories = services.prompts.recall(setup.workspacePath, writer.messages);
    const map = await codeMapFor(context, setup.userText, window.tokens, tokens);
    const note = contextNote(
      { memories, now: services.clock.now(), startedAt: setup.sessionStartedAt ?? services.clock.now(), entries: writer.messages, map },
      window.tokens,
      tokens,
    );
    if (note) writer.recallMemories(note.text, note.used, note.map && map ? { ...map.given, tokens: tokens(map.text.length) } : undefined);
  }
  if (writer.signal.aborted) return stay({ kind: 'finish', status: 'cancelled' });
  const preparation = await services.context.prepare({
    choice: model.choice,
    provider: model.provider,
    system: assembled.text,
    tools,
    entries: writer.messages,
    signal: writer.signal,
    mayCompact: !progress.compacted,
    cacheKey: setup.sessionId,
    ...(profile?.temperature == null ? {} : { temperature: profile.temperature }),
    ...(profile?.maxAnswerTokens == null ? {} : { answerTokens: profile.maxAnswerTokens }),
  });
  if (writer.signal.aborted) return stay({ kind: 'finish', status: 'cancelled' });
  if (preparation.kind === 'compact') return stay({ kind: 'compact', trigger: 'threshold', then: 'model' });
  if (preparation.kind === 'too_large') return stay({ kind: 'finish', status: 'failed', error: preparation.error });
  const sent = preparation.prepared;
  const { request, measure } = sent;
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
      ...(measure.shared === undefined ? {} : { shared: measure.shared }),
      ...(promptId === null ? {} : { promptId }),
    },
  ]);
  writer.flushWithinFrame();
  return { next: { kind: 'stream', request: { model, sent } }, progress: { ...progress, iterations: progress.iterations + 1 } };
}
