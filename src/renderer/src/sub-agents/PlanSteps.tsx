/*
 * A plan run as a graph (`run_plan`): its steps in order, what each needs first, and, once it runs, each step's
 * sub-agent as it stands.
 */

import { runPlanInputSchema, type PlanStep } from '../../../shared/plan-graph';
import type { AppStore } from '../store';
import { SubAgentLink } from './SubAgentLink';

/** Where the plan's sub-agents are, when it has run or runs. */
export interface PlanRun {
  readonly store: AppStore;
  readonly sessionId: string;
  readonly toolCallId: string;
  readonly running: boolean;
}

/** The stages of a plan: the steps that can start at once, then those that need only them, and so on. */
export function planStages(steps: readonly PlanStep[]): PlanStep[][] {
  const stageOf = new Map<string, number>();
  const place = (step: PlanStep, seen: ReadonlySet<string>): number => {
    const known = stageOf.get(step.id);
    if (known !== undefined) return known;
    // A circle never passes the tool's check; drawn anyway, it stops at the step met again.
    if (seen.has(step.id)) return 0;
    const next = new Set([...seen, step.id]);
    const stage = Math.max(
      0,
      ...step.dependsOn.map((id) => {
        const dependency = steps.find((candidate) => candidate.id === id);
        return dependency ? place(dependency, next) + 1 : 0;
      }),
    );
    stageOf.set(step.id, stage);
    return stage;
  };
  const stages: PlanStep[][] = [];
  for (const step of steps) (stages[place(step, new Set())] ??= []).push(step);
  return stages.filter((stage) => stage.length > 0);
}

/** A plan drawn as its graph, stage by stage, in the Plan tab: each step with its sub-agent as it stands. */
export function PlanGraph({ input, run }: { input: unknown; run: PlanRun }) {
  const parsed = runPlanInputSchema.safeParse(input);
  if (!parsed.success) return null;
  const stages = planStages(parsed.data.steps);
  return (
    <section className="plan-graph" aria-label="Plan graph">
      <h4>{parsed.data.goal}</h4>
      {stages.map((stage, index) => (
        <div key={index} className="plan-stage" role="group" aria-label={`Stage ${index + 1}`}>
          <p className="muted small">
            {index === 0 ? 'First' : 'Then'}
            {stage.length > 1 ? `, ${stage.length} at once` : ''}
          </p>
          <StepList steps={stage} run={run} />
        </div>
      ))}
    </section>
  );
}

/** The steps of a plan, as the gate shows them before it runs and its card while and after it runs. */
export function PlanSteps({ input, run }: { input: unknown; run?: PlanRun }) {
  const parsed = runPlanInputSchema.safeParse(input);
  if (!parsed.success) return null;
  return <StepList steps={parsed.data.steps} {...(run ? { run } : {})} />;
}

function StepList({ steps, run }: { steps: readonly PlanStep[]; run?: PlanRun }) {
  return (
    <ol className="graph-steps small" aria-label="Steps of the plan">
      {steps.map((step) => (
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
