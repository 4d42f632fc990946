/*
 * A plan run as a graph (`run_plan`): its steps in order, what each needs first, and, once it runs, each step's
 * sub-agent as it stands, then the answer written from their results and its check against the goal.
 */

import { answerStepId, checkInResult, checkStepId, replanLine, runPlanInputSchema, type PlanStep } from '../../../shared/plan-graph';
import type { AppStore } from '../store';
import { SubAgentLink } from './SubAgentLink';

/** Where the plan's sub-agents are, when it has run or runs. */
export interface PlanRun {
  readonly store: AppStore;
  readonly sessionId: string;
  readonly toolCallId: string;
  readonly running: boolean;
  /** The call's output: live while it runs, its result once finished (the check's verdict is read from it). */
  readonly output: string;
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
      <ReplanNote run={run} />
      {stages.map((stage, index) => (
        <div key={index} className="plan-stage" role="group" aria-label={`Stage ${index + 1}`}>
          <p className="muted small">
            {index === 0 ? 'First' : 'Then'}
            {stage.length > 1 ? `, ${stage.length} at once` : ''}
          </p>
          <StepList steps={stage} run={run} />
        </div>
      ))}
      <div className="plan-stage" role="group" aria-label="Answer and check">
        <p className="muted small">Last</p>
        <ol className="graph-steps small">
          <Finish run={run} />
        </ol>
      </div>
    </section>
  );
}

/** The steps of a plan, as the gate shows them before it runs and its card while and after it runs. */
export function PlanSteps({ input, run }: { input: unknown; run?: PlanRun }) {
  const parsed = runPlanInputSchema.safeParse(input);
  if (!parsed.success) return null;
  if (!run) return <StepList steps={parsed.data.steps} />;
  return (
    <>
      <ReplanNote run={run} />
      <StepList steps={parsed.data.steps} run={run} />
      <ol className="graph-steps small" aria-label="Answer and check">
        <Finish run={run} />
      </ol>
    </>
  );
}

/** Over a plan run as the one replan after a failed check: says so, and what the check had found. */
function ReplanNote({ run }: { run: PlanRun }) {
  if (!run.output.startsWith(replanLine)) return null;
  const found = /It found: (.*)$/m.exec(run.output)?.[1];
  return (
    <p className="notice notice-info small" role="note" aria-label="Replan">
      A replan: the check of the plan before it failed{found ? `: ${found}` : '.'}
    </p>
  );
}

/** The two steps every plan ends with: the answer written from the results, and its check against the goal. */
function Finish({ run }: { run: PlanRun }) {
  const check = checkInResult(run.output);
  return (
    <>
      <li>
        <span className="plan-step-head">
          <code>answer</code> Write the answer from the results <span className="muted"> · reads only</span>
        </span>
        <SubAgentLink store={run.store} sessionId={run.sessionId} toolCallId={run.toolCallId} running={run.running} stepId={answerStepId} />
      </li>
      <li>
        <span className="plan-step-head">
          <code>check</code> Check the answer against the goal
          {check && (
            <span className={check.head === 'failed' ? 'plan-check failed' : 'plan-check'} aria-label="Check">
              {' '}
              · {check.head}
              {check.why ? `: ${check.why}` : ''}
            </span>
          )}
        </span>
        <SubAgentLink store={run.store} sessionId={run.sessionId} toolCallId={run.toolCallId} running={run.running} stepId={checkStepId} />
      </li>
    </>
  );
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
