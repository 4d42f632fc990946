/*
 * The guardrail between a tool's result and the model. The result is checked for the signs of a prompt injection; a
 * flagged one is marked on its card, and when the person chose to hold its tool group it waits at a gate of its own
 * until they let the model see it or withhold it. Every step is journalled, so a held result waits again after the app
 * stopped, with the same id.
 */
import { WorkbenchError } from '../../../shared/errors';
import type { ToolCallStatus } from '../../../shared/events';
import { defaultHeldToolGroups, isHeldGroup, withheldNote } from '../../../shared/guardrails';
import { toolGroupOf } from '../../../shared/tool-groups';
import { detectInjectionSigns } from '../rules/injection-signs';
import type { ReviewAnswer } from '../rules/gates';
import { giveResult } from './tool-calls';
import { truncateForModel } from '../rules/truncate';
import type { HeldResult, LoopState, PreparedCall } from './loop-state';
import type { StepContext } from './step-context';

/**
 * Gives a call its result after checking it. Returns the held result when it waits for the person: the model has not
 * been given anything for that call yet, and the loop goes to `waitForReviews`.
 */
export function screenResult(
  context: StepContext,
  call: PreparedCall,
  status: ToolCallStatus,
  output: string,
  latencyMs: number,
): HeldResult | null {
  // What is checked is what the model would be given: the cut it gets of a long output, as it gets it.
  const signs = detectInjectionSigns(truncateForModel(output).text);
  if (signs.length === 0) {
    giveResult(context, call, status, output, latencyMs);
    return null;
  }
  const { setup, services } = context;
  const held =
    call.tool !== null &&
    isHeldGroup(
      toolGroupOf({
        name: call.tool.name,
        ...(call.tool.group === undefined ? {} : { group: call.tool.group }),
        readOnly: call.tool.baseRisk === 'read_only',
      }),
      setup.heldToolGroups?.() ?? defaultHeldToolGroups,
    );
  if (!held) {
    giveResult(context, call, status, output, latencyMs, { injection: { signs, held: false } });
    return null;
  }
  const reviewId = services.newId();
  const given = giveResult(context, call, status, output, latencyMs, { injection: { signs, held: true }, reviewId });
  return { reviewId, request: call.request, output: given, status, signs };
}

/** Opens the gates of held results (again, after a restart, with their ids); the loop waits at the first. */
export function waitForReviews(context: StepContext, held: readonly HeldResult[], then: LoopState): LoopState {
  const { setup, services, writer } = context;
  for (const result of held) services.gates.openGate(result.reviewId, 'review', setup.sessionId);
  writer.setStatus('waiting_approval');
  writer.flush();
  return { kind: 'review', held, then };
}

/** Gives a held result to the model as the person answered: the output, or a note that it was withheld. */
export function giveReviewed(context: StepContext, result: HeldResult, answer: ReviewAnswer, stopped = false): void {
  const { setup, writer } = context;
  writer.journal([
    {
      type: 'tool_result_reviewed',
      turnId: setup.turnId,
      toolCallId: result.request.id,
      reviewId: result.reviewId,
      decision: answer.decision,
      ...(stopped ? { stopped: true as const } : {}),
    },
  ]);
  const content = answer.decision === 'release' ? result.output : withheldNote(result.signs, stopped);
  writer.addToolResult(result.request, content, result.status);
  writer.checkpoint('approval');
}

/**
 * Waits for the person's answer to the first held result, then goes on to the next or to what comes after them. Stop
 * while a result is held withholds it and every other held one (nobody let them in), and ends the turn cancelled.
 */
export async function takeReview(context: StepContext, state: Extract<LoopState, { kind: 'review' }>): Promise<LoopState> {
  const { services, writer } = context;
  const [first, ...rest] = state.held;
  if (!first) return state.then;
  let answer: ReviewAnswer;
  try {
    answer = await services.gates.wait(first.reviewId, 'review', writer.signal);
  } catch (error) {
    const cancelled = writer.signal.aborted || (error instanceof WorkbenchError && error.code === 'cancelled');
    if (cancelled) for (const result of state.held) giveReviewed(context, result, { decision: 'withhold' }, true);
    throw error;
  }
  giveReviewed(context, first, answer);
  if (rest.length > 0) return { kind: 'review', held: rest, then: state.then };
  writer.setStatus('executing');
  return state.then;
}
