import { useState } from 'react';
import type { ViewPlan } from '../../../shared/session-view';
import type { AppStore } from '../store';
import { RiskBadge } from './ToolCard';

/** A proposed plan: its steps and what each would need, with Approve, Reject and Refine. */
export function PlanCard({ store, plan }: { store: AppStore; plan: ViewPlan }) {
  const [text, setText] = useState('');
  const answer = (kind: 'approve' | 'reject' | 'refine'): void => {
    void store.attempt(() => store.call('plan:answer', { planId: plan.planId, answer: kind, ...(kind !== 'approve' && text.trim() ? { text: text.trim() } : {}) }));
  };
  return (
    <section className="gate plan" role="region" aria-label="Plan">
      <header className="row">
        <strong>Plan: {plan.purpose}</strong>
        <RiskBadge risk={plan.maxRisk} />
      </header>
      <ol className="plan-steps">
        {plan.steps.map((step) => (
          <li key={step.toolCallId}>
            <code>{step.tool}</code> {step.summary} <RiskBadge risk={step.risk} />
            {step.decision === 'ask' && <span className="muted small"> needs approval</span>}
            {step.decision === 'deny' && <span className="error small"> will not run</span>}
          </li>
        ))}
      </ol>
      {plan.state === 'waiting' && (
        <div className="row">
          <input aria-label="Reason or feedback" placeholder="Reason to reject, or what to change" value={text} maxLength={4000} onChange={(event) => setText(event.target.value)} />
          <button type="button" className="danger" onClick={() => answer('reject')}>
            Reject
          </button>
          <button type="button" disabled={text.trim() === ''} onClick={() => answer('refine')}>
            Refine
          </button>
          <button type="button" className="primary" onClick={() => answer('approve')}>
            Approve plan
          </button>
        </div>
      )}
    </section>
  );
}
