/*
 * The agent's plan: its steps with their state and the progress, and the answers (Approve, Reject, Refine) while it
 * waits.
 *
 * Also the prompt above the message box that offers the same answers when the plan panel is not in view.
 */

import { counted } from '../../../shared/counts';
import { useState } from 'react';
import type { ViewPlan, ViewToolCallState } from '../../../shared/session-view';
import { useAppState, type AppStore } from '../store';
import { escalationTitles } from './ApprovalGate';
import { RiskBadge, toolStateLabel } from '../tool-calls/ToolCard';
import { useAltKeys } from './alt-keys';
import { GateCountdown } from './GateCountdown';

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

/** A plan's title: its purpose, without a "Plan:" the model already put in front. */
export const planTitle = (plan: ViewPlan): string => `Plan: ${plan.purpose.replace(/^\s*plan\s*[:\-–]\s*/i, '')}`;

/** Reject, Refine (with the text typed) and Approve for a waiting plan; Alt+A approves it (one of these shows at a time). */
function PlanAnswers({ store, plan }: { store: AppStore; plan: ViewPlan }) {
  const [text, setText] = useState('');
  const answer = (kind: 'approve' | 'reject' | 'refine'): void => {
    void store.attempt(() =>
      store.call('plan:answer', { planId: plan.planId, answer: kind, ...(kind !== 'approve' && text.trim() ? { text: text.trim() } : {}) }),
    );
  };
  useAltKeys({ a: () => answer('approve') }, plan.planId);
  return (
    <div className="row wrap">
      <input
        aria-label="Reason or feedback"
        placeholder="Why, or what to change"
        title="Why you reject the plan, or what to change in it (for Refine)"
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
      <button type="button" className="primary" aria-keyshortcuts="Alt+A" title="Approve plan (Alt+A)" onClick={() => answer('approve')}>
        Approve plan
      </button>
    </div>
  );
}

/**
 * A waiting plan in the conversation, above the message box, for when the plan panel is not in view: its title, its
 * size and the same answers, so a person with the side panel folded away is never stuck.
 */
export function PlanPrompt({ store, sessionId, onShowPlan }: { store: AppStore; sessionId: string; onShowPlan: () => void }) {
  const plan = useAppState(store, (state) => state.views[sessionId]?.plan ?? null);
  if (!plan || plan.state !== 'waiting') return null;
  return (
    <section className="gate plan-prompt" role="region" aria-label="Plan waiting for you" data-region="gate">
      <header className="row">
        <strong>{planTitle(plan)}</strong>
        <RiskBadge risk={plan.maxRisk} />
        <span className="muted small">
          {plan.steps.length} step{plan.steps.length === 1 ? '' : 's'}
        </span>
        <button type="button" className="link" onClick={onShowPlan}>
          Show the steps
        </button>
      </header>
      <PlanAnswers store={store} plan={plan} />
    </section>
  );
}

/** A plan: its steps with their state and the progress, with Approve, Reject and Refine while it waits. */
export function PlanCard({ store, sessionId, plan }: { store: AppStore; sessionId: string; plan: ViewPlan }) {
  const states = useAppState(store, (state) => {
    const calls = new Map<string, ViewToolCallState>();
    for (const message of state.views[sessionId]?.messages ?? []) for (const call of message.toolCalls) calls.set(call.id, call.state);
    return plan.steps.map((step) => calls.get(step.toolCallId) ?? 'requested').join(',');
  });
  const stepStates = states.split(',') as ViewToolCallState[];
  const done = stepStates.filter((state) => finished.has(state)).length;
  return (
    <section className="gate plan" role="region" aria-label="Plan" data-gate={plan.state === 'waiting' ? '' : undefined}>
      <header className="row">
        <strong>{planTitle(plan)}</strong>
        <RiskBadge risk={plan.maxRisk} />
        {plan.state === 'waiting' && <GateCountdown deadline={plan.deadline} plan />}
      </header>
      <progress aria-label="Plan progress" max={plan.steps.length} value={done} />
      <span className="muted small">
        {done} of {counted(plan.steps.length, 'step')} done
        {plan.state === 'rejected' ? ' · rejected' : plan.state === 'refining' ? ' · asked for changes' : ''}
      </span>
      <ol className="plan-steps">
        {plan.steps.map((step, index) => {
          const state = stepStates[index] ?? 'requested';
          return (
            <li key={step.toolCallId} data-state={state}>
              <span className={`step-icon dot-${state}`} aria-label={toolStateLabel(state)} title={toolStateLabel(state)}>
                {icons[state] ?? '○'}
              </span>
              <span className="step-number muted small">{index + 1}.</span>
              {/* One line per step, whatever its length: the full text on hover; what it needs below it. */}
              <span className="plan-step-main">
                <span className="plan-step-line" title={`${step.tool} ${step.summary}`}>
                  <code>{step.tool}</code> {step.summary}
                </span>
                {step.escalation && (
                  <span className="escalation small" title={escalationTitles[step.escalation.kind]}>
                    {step.escalation.reason}
                  </span>
                )}
                {step.decision === 'ask' && plan.state === 'waiting' && <span className="muted small">needs approval</span>}
                {step.decision === 'deny' && <span className="error small">will not run</span>}
              </span>
              <RiskBadge risk={step.risk} />
            </li>
          );
        })}
      </ol>
      {plan.state === 'waiting' && <PlanAnswers store={store} plan={plan} />}
    </section>
  );
}
