import { useState } from 'react';
import type { ViewPlan, ViewToolCallState } from '../../../shared/session-view';
import { useAppState, type AppStore } from '../store';
import { escalationTitles } from './ApprovalGate';
import { RiskBadge, toolStateLabel } from './ToolCard';

const finished: ReadonlySet<ViewToolCallState> = new Set(['succeeded', 'failed', 'denied', 'cancelled', 'interrupted']);
const icons: Partial<Record<ViewToolCallState, string>> = {
  succeeded: '✓',
  failed: '✗',
  denied: '⊘',
  cancelled: '■',
  interrupted: '!',
  running: '▶',
  waiting: '?',
};

/** A plan: its steps with their state and the progress, with Approve, Reject and Refine while it waits. */
export function PlanCard({ store, sessionId, plan }: { store: AppStore; sessionId: string; plan: ViewPlan }) {
  const [text, setText] = useState('');
  const states = useAppState(store, (state) => {
    const calls = new Map<string, ViewToolCallState>();
    for (const message of state.views[sessionId]?.messages ?? []) for (const call of message.toolCalls) calls.set(call.id, call.state);
    return plan.steps.map((step) => calls.get(step.toolCallId) ?? 'requested').join(',');
  });
  const stepStates = states.split(',') as ViewToolCallState[];
  const done = stepStates.filter((state) => finished.has(state)).length;
  const answer = (kind: 'approve' | 'reject' | 'refine'): void => {
    void store.attempt(() =>
      store.call('plan:answer', { planId: plan.planId, answer: kind, ...(kind !== 'approve' && text.trim() ? { text: text.trim() } : {}) }),
    );
  };
  return (
    <section className="gate plan" role="region" aria-label="Plan">
      <header className="row">
        <strong>Plan: {plan.purpose}</strong>
        <RiskBadge risk={plan.maxRisk} />
      </header>
      <progress aria-label="Plan progress" max={plan.steps.length} value={done} />
      <span className="muted small">
        {done} of {plan.steps.length} steps done
        {plan.state === 'rejected' ? ' · rejected' : plan.state === 'refining' ? ' · asked for changes' : ''}
      </span>
      <ol className="plan-steps">
        {plan.steps.map((step, index) => {
          const state = stepStates[index] ?? 'requested';
          return (
            <li key={step.toolCallId} data-state={state}>
              <span className={`step-icon dot-${state}`} aria-label={toolStateLabel(state)} title={toolStateLabel(state)}>
                {icons[state] ?? '○'}
              </span>{' '}
              <code>{step.tool}</code> {step.summary} <RiskBadge risk={step.risk} />
              {step.escalation && (
                <span className="escalation small" title={escalationTitles[step.escalation.kind]}>
                  {' '}
                  {step.escalation.reason}
                </span>
              )}
              {step.decision === 'ask' && plan.state === 'waiting' && <span className="muted small"> needs approval</span>}
              {step.decision === 'deny' && <span className="error small"> will not run</span>}
            </li>
          );
        })}
      </ol>
      {plan.state === 'waiting' && (
        <div className="row wrap">
          <input
            aria-label="Reason or feedback"
            placeholder="Reason to reject, or what to change"
            value={text}
            maxLength={4000}
            onChange={(event) => setText(event.target.value)}
          />
          <button type="button" className="danger" onClick={() => answer('reject')}>
            Reject
          </button>
          <button type="button" disabled={text.trim() === ''} onClick={() => answer('refine')}>
            Refine
          </button>
          <button type="button" className="primary" aria-keyshortcuts="Alt+A" onClick={() => answer('approve')}>
            Approve plan
          </button>
        </div>
      )}
    </section>
  );
}
