/* The gates' part of the session view's fold: plans shown and answered, approvals asked and answered, trust granted. */

import { BugError } from '../errors';
import type { RuntimeEvent } from '../events';
import type { SessionView } from './types';
import { updateToolCall } from './updates';

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
        },
      };
    case 'plan_answered': {
      if (view.plan?.planId !== event.planId) return view;
      const state = event.answer === 'approve' ? 'running' : event.answer === 'reject' ? 'rejected' : 'refining';
      return { ...view, plan: { ...view.plan, state } };
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
        },
      };
    case 'approval_answered':
      return { ...view, pendingApproval: view.pendingApproval?.approvalId === event.approvalId ? null : view.pendingApproval };
    case 'trust_grant_created':
      // The grants are listed from the trust store, not from the view.
      return view;
    default: {
      const unhandled: never = event;
      throw new BugError(`The gates' fold has no case for ${JSON.stringify(unhandled)}.`);
    }
  }
}
