/* The gates' part of the session view's fold: plans shown and answered, approvals asked and answered, trust granted. */

import { BugError } from '../errors';
import type { RuntimeEvent } from '../events';
import type { SessionView } from './types';
import { toolOf, updateToolCall } from './updates';

export type GateEvent = Extract<
  RuntimeEvent,
  { type: 'plan_proposed' | 'plan_answered' | 'approval_requested' | 'approval_answered' | 'trust_grant_created' }
>;

/** The view after one event of a plan or an approval. */
export function applyGateEvent(view: SessionView, event: GateEvent): SessionView {
  switch (event.type) {
    case 'plan_proposed':
      return {
        ...view,
        plan: {
          planId: event.planId,
          purpose: event.purpose,
          steps: event.steps,
          maxRisk: event.maxRisk,
          state: event.needsApproval ? 'waiting' : 'running',
          deadline: event.deadline
            ? { wallAt: event.deadline.wallAt, seconds: event.deadline.seconds, action: event.deadline.action }
            : null,
        },
      };
    case 'plan_answered': {
      const answered = { ...view, lastAnswer: { gate: 'plan', decision: event.answer } as const };
      if (view.plan?.planId !== event.planId) return answered;
      const state = event.answer === 'approve' ? 'running' : event.answer === 'reject' ? 'rejected' : 'refining';
      return { ...answered, plan: { ...view.plan, state } };
    }
    case 'approval_requested':
      return {
        ...updateToolCall(view, event.toolCallId, (call) => ({ ...call, state: 'waiting' })),
        pendingApproval: {
          approvalId: event.approvalId,
          toolCallId: event.toolCallId,
          tool: event.tool,
          summary: event.summary,
          input: event.input,
          risk: event.risk,
          reason: event.reason,
          preview: event.preview ?? null,
          escalation: event.escalation ?? null,
          folders: event.folders ?? [],
          editableField: event.editableField ?? null,
          deadline: event.deadline
            ? { wallAt: event.deadline.wallAt, seconds: event.deadline.seconds, action: event.deadline.action }
            : null,
        },
      };
    case 'approval_answered': {
      const asked = view.pendingApproval?.approvalId === event.approvalId ? view.pendingApproval : null;
      const tool = asked?.tool ?? toolOf(view, event.toolCallId);
      // A call the person changed at its gate says so on its card, with their version.
      const marked =
        event.content === undefined
          ? view
          : updateToolCall(view, event.toolCallId, (call) => ({ ...call, changedByPerson: event.content }));
      return {
        ...marked,
        pendingApproval: asked ? null : view.pendingApproval,
        lastAnswer: { gate: 'call', tool, decision: event.decision },
      };
    }
    case 'trust_grant_created':
      // The grants are listed from the trust store, not from the view.
      return view;
    default: {
      const unhandled: never = event;
      throw new BugError(`The gates' fold has no case for ${JSON.stringify(unhandled)}.`);
    }
  }
}
