/*
 * Where a line stands, as a fold over its journal. A change to what it computes changes `headFormatVersion`, so the
 * heads stored before it are computed again.
 */
import type { JournalEntry, RuntimeEvent } from '../../../shared/events';
import { emptyHead, type CallStanding, type PlanStanding, type ResumeState, type SessionHead } from '../ports/session-head';

function withCall(resume: ResumeState | null, toolCallId: string, change: (call: CallStanding) => CallStanding): ResumeState | null {
  if (resume?.at !== 'tools') return resume;
  let found = false;
  const calls = resume.calls.map((call) => {
    if (call.toolCallId !== toolCallId) return call;
    found = true;
    return change(call);
  });
  return found ? { ...resume, calls } : resume;
}

/**
 * An imported turn as if none of its gates had been opened or answered and its plan never shown: what a
 * file says was approved is never taken (a file can say anything), so its open calls are decided again.
 * A rejected or refused plan stays so: not running is never less safe.
 */
function withoutAnswers(resume: ResumeState | null): ResumeState | null {
  if (resume?.at !== 'tools') return resume;
  const calls = resume.calls.map((call): CallStanding => {
    if (call.state === 'gate' || call.state === 'answered') return { toolCallId: call.toolCallId, state: 'requested' };
    // A held result the file says was let in is held again: the file's answer is not the person's.
    if (call.state === 'reviewed' && call.reviewId) return { toolCallId: call.toolCallId, state: 'held', reviewId: call.reviewId };
    return call;
  });
  const plan = resume.plan?.state === 'waiting' || resume.plan?.state === 'approved' ? null : resume.plan;
  return { ...resume, plan, calls };
}

/** The head after one more journal row. */
export function advanceHead(head: SessionHead, seq: number, event: RuntimeEvent): SessionHead {
  const next = { ...head, lastSeq: seq };
  switch (event.type) {
    case 'branch_started':
      // A branch leaves its parent's line at a checkpoint, with nothing running and nothing queued.
      return { checkpointId: event.checkpointId, openTurn: null, queued: null, resume: null, lastSeq: seq };
    case 'checkpoint_saved':
      return { ...next, checkpointId: event.checkpointId };
    case 'run_started':
      // A resumed turn goes on from where it stood.
      return event.resumed ? { ...next, openTurn: event.turnId } : { ...next, openTurn: event.turnId, resume: { at: 'model' } };
    case 'run_finished':
      return { ...next, openTurn: null, resume: null };
    case 'message_queued':
      return { ...next, queued: event.text };
    case 'queue_cleared':
      return { ...next, queued: null };
    case 'memories_recalled':
      return next;
    case 'assistant_message_started':
      return head.openTurn === null ? next : { ...next, resume: { at: 'model' } };
    case 'tool_call_requested': {
      if (head.openTurn === null) return next;
      const current = head.resume;
      const phase =
        current?.at === 'tools' && current.messageId === event.messageId
          ? current
          : { at: 'tools' as const, messageId: event.messageId, firstSeq: seq, plan: null, calls: [] };
      return { ...next, resume: { ...phase, calls: [...phase.calls, { toolCallId: event.toolCallId, state: 'requested' }] } };
    }
    case 'plan_proposed':
      if (head.resume?.at !== 'tools') return next;
      return {
        ...next,
        resume: {
          ...head.resume,
          plan: {
            planId: event.planId,
            state: event.needsApproval ? 'waiting' : 'ran',
            ...(event.deadline ? { deadline: event.deadline } : {}),
          },
        },
      };
    case 'plan_answered': {
      if (head.resume?.at !== 'tools' || head.resume.plan?.planId !== event.planId) return next;
      const state = event.answer === 'approve' ? 'approved' : event.answer === 'reject' ? 'rejected' : 'refined';
      const plan: PlanStanding = {
        planId: event.planId,
        state,
        ...(event.text ? { text: event.text } : {}),
        // A time-out keeps what the deadline said: a resumed turn ends as the setting said.
        ...(head.resume.plan.deadline ? { deadline: head.resume.plan.deadline } : {}),
        ...(event.timedOut ? { timedOut: true as const } : {}),
      };
      return { ...next, resume: { ...head.resume, plan } };
    }
    case 'approval_requested':
      return {
        ...next,
        resume: withCall(head.resume, event.toolCallId, (call) => ({
          ...call,
          state: 'gate',
          approvalId: event.approvalId,
          ...(event.deadline ? { deadline: event.deadline } : {}),
        })),
      };
    case 'approval_answered': {
      const answer = {
        decision: event.decision,
        ...(event.reason ? { reason: event.reason } : {}),
        ...(event.content === undefined ? {} : { content: event.content }),
        ...(event.timedOut ? { timedOut: true as const } : {}),
      };
      return { ...next, resume: withCall(head.resume, event.toolCallId, (call) => ({ ...call, state: 'answered', answer })) };
    }
    case 'tool_call_started':
      return { ...next, resume: withCall(head.resume, event.toolCallId, (call) => ({ ...call, state: 'running' })) };
    case 'tool_call_finished':
      return {
        ...next,
        resume: withCall(head.resume, event.toolCallId, ({ toolCallId }) => ({ toolCallId, state: 'finished' })),
      };
    case 'tool_result_held':
      return { ...next, resume: withCall(head.resume, event.toolCallId, (call) => ({ ...call, state: 'held', reviewId: event.reviewId })) };
    case 'tool_result_reviewed':
      return {
        ...next,
        resume: withCall(head.resume, event.toolCallId, (call) => ({ ...call, state: 'reviewed', review: event.decision })),
      };
    case 'budget_reached': {
      if (head.resume === null) return next;
      const { gateId, budget, figure, limit, step } = event;
      return { ...next, resume: { ...head.resume, budget: { gateId, budget, figure, limit, step } } };
    }
    case 'budget_answered': {
      if (head.resume?.budget?.gateId !== event.gateId) return next;
      const { budget: _answered, ...rest } = head.resume;
      return { ...next, resume: rest };
    }
    case 'session_imported':
      return { ...next, resume: withoutAnswers(head.resume) };
    case 'user_message':
    case 'checkpoint_recovered':
    case 'status_changed':
    case 'text_delta':
    case 'reasoning_delta':
    case 'model_call_finished':
    case 'trust_grant_created':
    case 'tool_output':
    case 'problems_reported':
    case 'check_ran':
    case 'files_snapshotted':
    case 'files_restored':
    case 'git_committed':
    case 'worktree_created':
    case 'worktree_brought_back':
    case 'worktree_removed':
    case 'model_retry_scheduled':
    case 'tool_retry_scheduled':
    case 'context_measured':
    case 'context_compacted':
    case 'context_truncated':
    case 'autonomy_changed':
    case 'model_fallback_used':
      return next;
    default: {
      const unhandled: never = event;
      throw new Error(`Unknown event ${JSON.stringify(unhandled)}`);
    }
  }
}

/** The head of a line by replaying its journal: what the stored row must always equal. */
export function replayHead(entries: readonly Pick<JournalEntry, 'seq' | 'event'>[], from: SessionHead = emptyHead): SessionHead {
  let head = from;
  for (const entry of entries) head = advanceHead(head, entry.seq, entry.event);
  return head;
}
