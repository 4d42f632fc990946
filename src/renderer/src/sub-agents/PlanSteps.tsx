/*
 * A plan run as a graph (`run_plan`): its steps in order, what each needs first, and, once it runs, each step's
 * sub-agent as it stands.
 */

import { runPlanInputSchema } from '../../../shared/plan-graph';
import type { AppStore } from '../store';
import { SubAgentLink } from './SubAgentLink';

/** Where the plan's sub-agents are, when it has run or runs. */
export interface PlanRun {
  readonly store: AppStore;
  readonly sessionId: string;
  readonly toolCallId: string;
  readonly running: boolean;
}

/** The steps of a plan, as the gate shows them before it runs and its card while and after it runs. */
export function PlanSteps({ input, run }: { input: unknown; run?: PlanRun }) {
  const parsed = runPlanInputSchema.safeParse(input);
  if (!parsed.success) return null;
  const plan = parsed.data;
  return (
    <ol className="plan-steps small" aria-label="Steps of the plan">
      {plan.steps.map((step) => (
        <li key={step.id}>
          <span className="plan-step-head">
            <code>{step.id}</code> {step.goal}
            {step.returns ? <span className="muted"> · returns {step.returns}</span> : null}
            {step.dependsOn.length > 0 ? <span className="muted"> · after {step.dependsOn.join(', ')}</span> : null}
            <span className="muted">{step.tools === 'read_write' ? ' · may change files' : ' · reads only'}</span>
          </span>
          {run && (
            <SubAgentLink store={run.store} sessionId={run.sessionId} toolCallId={run.toolCallId} running={run.running} stepId={step.id} />
          )}
        </li>
      ))}
    </ol>
  );
}
