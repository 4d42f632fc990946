/*
 * Where a turn the app stopped in the middle of goes on: the loop state it was in, rebuilt from its head and
 * journal.
 */
import type { JournalEntry, ToolCallStatus } from '../../../shared/events';
import type { InjectionSign } from '../../../shared/guardrails';
import { reopenBudgetGate } from './budget-gate';
import { giveReviewed, waitForReviews } from './result-review';
import { approvedInPlan, decideCall, planRefusal, policyContext, waitForPlan } from './approvals';
import type { ConversationEntry } from '../context/context-view';
import type { ToolCallRequest } from '../ports/model-provider';
import type { Decision } from '../rules/policy';
import type { CallStanding, ResumeState } from '../ports/session-head';
import { giveResult, prepareCall } from './tool-calls';
import { freshProgress, type DecidedCall, type HeldResult, type LoopState, type PreparedCall } from './loop-state';
import type { StepContext } from './step-context';
import type { TurnStart } from './turn';

/** The calls of the conversation's last response that have no result yet, and that response's first line. */
function openCalls(entries: readonly ConversationEntry[]): { calls: ToolCallRequest[]; purpose: string } | 'answered' | null {
  // A compaction says nothing of where the turn stood: the messages before it do.
  let end = entries.length;
  while (end > 0 && entries[end - 1]?.role === 'compaction') end -= 1;
  const history = entries.slice(0, end);
  const last = history.at(-1);
  if (!last || last.role === 'user') return null;
  if (last.role === 'assistant' && !last.toolCalls?.length) return 'answered';
  let index = history.length - 1;
  while (index >= 0 && history[index]?.role === 'tool') index -= 1;
  const response = history[index];
  if (response?.role !== 'assistant' || !response.toolCalls) return null;
  const answered = new Set(history.slice(index + 1).flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])));
  const calls = response.toolCalls.filter((call) => !answered.has(call.id));
  return { calls, purpose: response.content.trim().split('\n')[0]?.slice(0, 300) ?? '' };
}

/** The tools the open calls of the conversation's last response name: a resumed turn looks them up at its start. */
export function openCallTools(history: readonly ConversationEntry[]): string[] {
  const open = openCalls(history);
  return open === null || open === 'answered' ? [] : open.calls.map((call) => call.name);
}

interface CallRecord {
  output: string;
  result?: { output: string; isError: boolean; status: ToolCallStatus; signs: readonly InjectionSign[] };
}

/** What the journal says of the calls since `firstSeq`: their output so far and their results. */
function callRecords(rows: readonly JournalEntry[]): Map<string, CallRecord> {
  const records = new Map<string, CallRecord>();
  for (const { event } of rows) {
    if (event.type !== 'tool_output' && event.type !== 'tool_call_finished' && event.type !== 'tool_call_started') continue;
    const record = records.get(event.toolCallId) ?? { output: '' };
    if (event.type === 'tool_call_started') record.output = '';
    else if (event.type === 'tool_output') record.output += event.text;
    else
      record.result = {
        output: event.output,
        isError: event.status !== 'succeeded',
        status: event.status,
        signs: event.injection?.signs ?? [],
      };
    records.set(event.toolCallId, record);
  }
  return records;
}

export interface ResumeInput {
  /** The conversation at the newest checkpoint, calls without results left open. */
  readonly history: readonly ConversationEntry[];
  /** Where the session's head says the turn stood. */
  readonly resume: ResumeState | null;
  /** The journal rows from a row on; read only when a call's output or result is needed. */
  readonly rowsFrom: (seq: number) => JournalEntry[];
}

/**
 * Where a turn the app stopped in the middle of goes on: the same loop state it was in. Calls the
 * stop cut off while running get a result saying so (never run again by themselves); calls whose
 * result the journal has but a damaged checkpoint lost get it back; a plan or a gate that was
 * waiting waits again, with the same id, whatever the rules would say of its call now; an answer
 * already given is taken as given; calls not yet reached are decided again, as the rules are now.
 */
export function resumeFrom(input: ResumeInput): TurnStart {
  const where = resumeAt(input);
  return (context) => {
    const next = where(context);
    const budget = input.resume?.budget;
    if (!budget || next.kind === 'finish') return { next, progress: freshProgress };
    // A budget gate the turn waited at opens again first, as it was; the turn goes on from where it stood after it,
    // with the model calls it had made when the gate opened.
    const progress = budget.budget === 'model_calls' ? { ...freshProgress, iterations: budget.figure } : freshProgress;
    return { next: reopenBudgetGate(context, budget, next), progress };
  };
}

/** How a resumable call cut off while running is decided again: as it was, since it had started. */
const resumedDecision: Decision = { action: 'run', rule: 'matrix', reason: 'It was running when the app stopped, and goes on.' };

function resumeAt(input: ResumeInput): (context: StepContext) => LoopState {
  return (context) => {
    const open = openCalls(input.history);
    if (open === 'answered') return { kind: 'finish', status: 'completed' };
    if (open === null || open.calls.length === 0) return { kind: 'model' };
    const { setup, services, writer } = context;
    const phase =
      input.resume?.at === 'tools' && input.resume.calls.some((call) => open.calls.some((item) => item.id === call.toolCallId))
        ? input.resume
        : null;
    const standing = new Map<string, CallStanding>(phase?.calls.map((call) => [call.toolCallId, call]) ?? []);
    const needsRows = open.calls.some((call) => ['running', 'finished', 'held', 'reviewed'].includes(standing.get(call.id)?.state ?? ''));
    const records = phase && needsRows ? callRecords(input.rowsFrom(phase.firstSeq)) : new Map<string, CallRecord>();
    // Results held for the person when the app stopped wait again at their gates, with the same ids.
    const held: HeldResult[] = [];
    const after = (next: LoopState): LoopState => (held.length > 0 ? waitForReviews(context, held, next) : next);

    const rest: PreparedCall[] = [];
    const resumed: DecidedCall[] = [];
    for (const request of open.calls) {
      const prepared = prepareCall(request, services.tools, setup);
      const known = standing.get(request.id);
      const record = records.get(request.id);
      if ((known?.state === 'held' || known?.state === 'reviewed') && known.reviewId && record?.result) {
        const { output, status, signs } = record.result;
        const result: HeldResult = { reviewId: known.reviewId, request, output, status, signs };
        if (known.state === 'reviewed' && known.review) giveReviewed(context, result, { decision: known.review });
        else held.push(result);
      } else if (known?.state === 'finished' && record?.result) {
        writer.addMessage({ role: 'tool', toolCallId: request.id, content: record.result.output, isError: record.result.isError });
        writer.checkpoint('tool');
      } else if (known?.state === 'running' && prepared.tool?.resumable && prepared.invalid === null) {
        // It picks up where it was (a sub-agent resumes); it was decided and started before, so it runs as it was.
        resumed.push({ call: prepared as DecidedCall['call'], decision: resumedDecision, approved: true });
      } else if (known?.state === 'running') {
        const sofar = record && record.output.length > 0 ? `\nIts output so far:\n${record.output}` : '';
        giveResult(context, prepared, 'failed', `The app stopped while this call was running, so it may have partly run.${sofar}`, 0);
      } else {
        rest.push(prepared);
      }
    }
    if (rest.length === 0) return after(resumed.length > 0 ? { kind: 'execute', queue: resumed, fromPlan: false } : { kind: 'model' });
    const progressed = phase?.calls.some((call) => call.state !== 'requested') ?? false;
    if (!phase?.plan && !progressed && resumed.length === 0) return { kind: 'decide', calls: rest, purpose: open.purpose };

    const policy = policyContext(context);
    const runnable: DecidedCall[] = [];
    for (const call of rest) {
      if (call.invalid !== null || call.tool === null) {
        giveResult(context, call, 'failed', call.invalid ?? 'Not run.', 0);
        continue;
      }
      const decidable = call as DecidedCall['call'];
      const decision = decideCall(decidable, policy);
      if (decision.action === 'deny') {
        giveResult(context, call, 'denied', `Not run: ${decision.reason}`, 0);
        continue;
      }
      const known = standing.get(call.request.id);
      const earlierGate = known?.approvalId
        ? { approvalId: known.approvalId, answer: known.answer ?? null, ...(known.deadline ? { deadline: known.deadline } : {}) }
        : undefined;
      if (!earlierGate) {
        runnable.push({ call: decidable, decision });
        continue;
      }
      // A gate opened before the app stopped is answered at that gate: a decision made now (another autonomy,
      // a plan approved before the gate opened) never runs its call in its place.
      const waits: Decision =
        earlierGate.answer === null && decision.action === 'run'
          ? { action: 'ask', rule: 'matrix', reason: `${call.assessment.reason}; its gate was open when the app stopped.` }
          : decision;
      runnable.push({ call: decidable, decision: waits, earlierGate });
    }
    const plan = phase?.plan ?? null;
    if (plan === null) return after({ kind: 'execute', queue: [...resumed, ...runnable], fromPlan: false });
    switch (plan.state) {
      case 'waiting':
        return waitForPlan(context, plan.planId, runnable, plan.deadline);
      case 'approved':
        // A step that had a gate of its own (a grant it rested on was revoked) is answered there, not by the plan.
        return after({
          kind: 'execute',
          queue: [...resumed, ...runnable.map((item) => (item.earlierGate ? item : approvedInPlan(item)))],
          fromPlan: true,
        });
      case 'ran':
        return after({ kind: 'execute', queue: [...resumed, ...runnable], fromPlan: true });
      case 'rejected':
      case 'refined': {
        if (plan.timedOut) {
          const timedOut = `Not run: ${plan.text ?? 'no answer came in time'}, so the plan was rejected.`;
          for (const item of runnable) giveResult(context, item.call, 'denied', timedOut, 0);
          return plan.deadline?.action === 'stop' ? { kind: 'finish', status: 'cancelled' } : after({ kind: 'model' });
        }
        const note = planRefusal(
          plan.state === 'rejected'
            ? { answer: 'reject', ...(plan.text ? { text: plan.text } : {}) }
            : { answer: 'refine', text: plan.text ?? '' },
        );
        for (const item of runnable) giveResult(context, item.call, 'denied', note, 0);
        return after({ kind: 'model' });
      }
    }
  };
}
