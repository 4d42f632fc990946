/*
 * Runs the calls that may run, read-only ones together, each to its result.
 */
import { CancelledError } from '../../../shared/errors';
import { decideAgain, openCallGate, takeApproval } from './approvals';
import { beforeTool, openBudgetGate, reachedBudget, toolCallsLeft } from './budget-gate';
import { screenResult, waitForReviews } from './result-review';
import { addPreviews, giveResult } from './tool-calls';
import { withRetries } from './tool-retry';
import type { DecidedCall, HeldResult, LoopState } from './loop-state';
import type { StepContext } from './step-context';
import { problemReportSchema, problemsText } from '../../../shared/diagnostics';

type RunRule = 'matrix' | 'grant' | 'plan' | 'approval';

/** Consecutive read-only calls that may run without asking go together, in parallel. */
const runsInBatch = (item: DecidedCall | undefined): item is DecidedCall =>
  item !== undefined && !item.approved && !item.earlierGate && item.decision.action === 'run' && item.call.assessment.level === 'read_only';

/** Why a call runs, as its event says. A plan step in a batch counts as the plan's only when the plan was shown. */
function ruleOf(item: DecidedCall, fromPlan: boolean, inBatch: boolean): RunRule {
  if (item.approved) return 'approval';
  if (item.decision.rule === 'grant') return 'grant';
  return item.decision.rule === 'plan' && (fromPlan || !inBatch) ? 'plan' : 'matrix';
}

/**
 * Takes the next calls of the queue: runs a batch of read-only calls, or one call, or opens the
 * gate of a call that asks (taking its answer at once when it was given before the app stopped).
 * When the queue is empty the model is asked again.
 */
export async function runNextCalls(context: StepContext, state: Extract<LoopState, { kind: 'execute' }>): Promise<LoopState> {
  const { fromPlan } = state;
  if (state.queue.length === 0) return { kind: 'model' };
  if (context.writer.signal.aborted) throw new CancelledError();
  // A grant answered at a gate before this point (in this response too) covers the calls it matches.
  const queue = decideAgain(context, state.queue);
  let batch = 0;
  while (runsInBatch(queue[batch])) batch += 1;
  const next = queue[0];
  if (next && (next.approved || next.decision.action === 'run')) {
    // A call about to run waits at a budget gate first when the turn's tool calls or time are used up; a batch runs
    // no more calls than the budget has left, and the gate comes before the rest.
    const reached = reachedBudget(context, beforeTool);
    if (reached) return openBudgetGate(context, reached, { kind: 'execute', queue, fromPlan });
    batch = Math.min(batch, toolCallsLeft(context));
  }
  if (batch > 0) {
    const results = await Promise.all(queue.slice(0, batch).map((item) => runCall(context, item, ruleOf(item, fromPlan, true))));
    return afterReviews(context, results, { kind: 'execute', queue: queue.slice(batch), fromPlan });
  }
  const [item, ...rest] = queue as [DecidedCall, ...DecidedCall[]];
  if (!item.approved && item.decision.action === 'deny') {
    // A tool the person denied in Settings after the response's calls were first decided (see `decideAgain`).
    giveResult(context, item.call, 'denied', `Not run: ${item.decision.reason}`, 0);
    return { kind: 'execute', queue: rest, fromPlan };
  }
  // A gate opened before the app stopped is answered there (or was): nothing decided since runs its call instead.
  const earlier = item.approved ? undefined : item.earlierGate;
  if (earlier?.answer)
    return takeApproval(
      context,
      { approvalId: earlier.approvalId, item, queue: rest, fromPlan, ...(earlier.deadline ? { deadline: earlier.deadline } : {}) },
      earlier.answer,
      true,
    );
  if (item.approved || (!earlier && item.decision.action === 'run')) {
    const held = await runCall(context, item, ruleOf(item, fromPlan, false));
    return afterReviews(context, [held], { kind: 'execute', queue: rest, fromPlan });
  }
  if (!earlier) {
    // Nobody is asked about a call that cannot do anything (an edit whose text is not there, a write that changes
    // nothing): it fails at once, as it would have run. Asked now, after the calls before it in the response have run.
    const { workspacePath } = context.setup;
    const failure = (await item.call.tool.check?.(item.call.input, { workspacePath })) ?? null;
    if (failure !== null) {
      giveResult(context, item.call, 'failed', `${item.call.tool.name} failed: ${failure}`, 0);
      return { kind: 'execute', queue: rest, fromPlan };
    }
    // What it would change, as the files are now: the calls before it may have changed them since the response ended.
    await addPreviews([item.call], workspacePath);
  }
  return openCallGate(context, item, rest, fromPlan);
}

/** Results held for the person are reviewed before the loop goes on. */
function afterReviews(context: StepContext, results: ReadonlyArray<HeldResult | null>, then: LoopState): LoopState {
  const held = results.filter((result): result is HeldResult => result !== null);
  return held.length > 0 ? waitForReviews(context, held, then) : then;
}

/**
 * Runs one call to its result, retrying a read-only one that fails for a passing reason. Stop wins over a tool that
 * ignores the signal; what it changed is saved either way. Returns its result when that is held for the person.
 */
async function runCall(context: StepContext, item: DecidedCall, rule: RunRule): Promise<HeldResult | null> {
  const { setup, services, writer } = context;
  const { call } = item;
  const { turnId, sessionId, workspacePath } = setup;
  const toolCallId = call.request.id;
  const changesFiles = call.assessment.level !== 'read_only' || (call.tool.changesFiles?.(call.input) ?? false);
  if (changesFiles) await writer.captureFiles();
  writer.setStatus('executing');
  context.budget.toolCalls += 1;
  const grantId = rule === 'grant' && item.decision.action === 'run' ? item.decision.grantId : undefined;
  writer.journal([{ type: 'tool_call_started', turnId, toolCallId, rule, ...(grantId ? { grantId } : {}) }]);
  // A call that may change something runs only once its start is saved. A read-only one changes
  // nothing, so its start is written within a frame: with its result when it is quick (one commit
  // for the step instead of two), on its own when it takes longer.
  if (changesFiles) writer.flush();
  else writer.flushWithinFrame();
  const startedAt = services.clock.now();
  const { signal } = writer;
  let onAbort: (() => void) | null = null;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(new CancelledError());
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  const emitOutput = (text: string): void => writer.stream({ type: 'tool_output', turnId, toolCallId, text });
  // The files as the call left them, saved before its result is given (their problems go with it) and journalled after
  // it, so the change belongs to the call's own step.
  let saved: { announce(): void } | null = null;
  try {
    const outcome = await withRetries(context, call, () =>
      Promise.race([call.tool.execute(call.input, { signal, sessionId, toolCallId, workspacePath, emitOutput }), aborted]),
    );
    const latencyMs = services.clock.now() - startedAt;
    let output = personsVersion(item) + outcome.output;
    if (changesFiles) {
      const snapshot = await writer.snapshotFiles();
      saved = snapshot;
      output = await withProblems(context, toolCallId, snapshot.changed, output);
    }
    return screenResult(context, call, outcome.isError ? 'failed' : 'succeeded', output, latencyMs);
  } catch (error) {
    if (signal.aborted) {
      giveResult(context, call, 'cancelled', 'Stopped by the user while running.', services.clock.now() - startedAt);
      throw new CancelledError();
    }
    // An error's message is the tool's (or its server's) text like any output: it is checked, and held, the same way.
    const message = `${call.tool.name} failed: ${error instanceof Error ? error.message : String(error)}`;
    return screenResult(context, call, 'failed', message, services.clock.now() - startedAt);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    aborted.catch(() => undefined);
    // What the call changed is saved with its result's checkpoint, even when it was stopped.
    if (saved) saved.announce();
    else if (changesFiles) await writer.captureFiles();
  }
}

/** What the model is told first of a call the person changed at its gate: that they did, and what ran. */
function personsVersion(item: DecidedCall): string {
  const changed = item.changedByPerson;
  if (!changed) return '';
  const what = changed.field === 'content' ? 'the content' : `the ${changed.field}`;
  return `The person changed ${what} you proposed before approving it; this ran with their version instead of yours:\n<person_version>\n${changed.content}\n</person_version>\n\n`;
}

/**
 * A call's output with the problems language servers report in the files it changed, journalled for the tool card and
 * the status bar. A check that cannot be made (no server, a server that fails) is a note, and the output stands.
 */
async function withProblems(context: StepContext, toolCallId: string, changed: readonly string[], output: string): Promise<string> {
  const { setup, services, writer } = context;
  if (!services.diagnostics || setup.workspacePath === null || changed.length === 0) return output;
  const report = await services.diagnostics
    .check({ workspacePath: setup.workspacePath, paths: changed, signal: writer.signal })
    .catch((error: unknown) => ({
      checked: [],
      problems: [],
      errors: 0,
      warnings: 0,
      notes: [`The changed files could not be checked: ${(error instanceof Error ? error.message : String(error)).slice(0, 500)}`],
      unallowed: [],
    }));
  if (report === null || writer.signal.aborted) return output;
  // Journalled only in the shape the journal reads back: a report that is not is said as a note instead.
  const checked = problemReportSchema.safeParse(report);
  const saved = checked.success
    ? checked.data
    : { checked: [], problems: [], errors: 0, warnings: 0, notes: ['The language server’s problems could not be read.'], unallowed: [] };
  writer.journal([{ type: 'problems_reported', turnId: setup.turnId, toolCallId, report: saved }]);
  const text = problemsText(saved);
  return text === '' ? output : `${output}\n\n${text}`;
}
