/*
 * Plans as graphs: the `run_plan` tool takes steps with a goal, what each returns and the steps each depends on,
 * checks the graph, and runs each step as a sub-agent once its dependencies are done, in parallel up to the limit.
 */
import { CancelledError } from '../../../shared/errors';
import { runPlanInputSchema, type PlanStep, type RunPlanInput } from '../../../shared/plan-graph';
import { defineTool, type Tool, type ToolContext, type ToolOutcome } from '../ports/tools';
import type { DelegateInput, SubAgents } from './sub-agents';

/** Room in a step's brief for the results of the steps it depends on. */
const dependencyRoom = 7_000;

export const runPlanToolName = 'run_plan';

type StepResult = { readonly state: 'done' | 'failed' | 'not run'; readonly output: string };

/** A step's brief: its goal, and the plan's goal and its dependencies' results as what it should know. */
function briefOf(plan: RunPlanInput, step: PlanStep, results: ReadonlyMap<string, StepResult>): DelegateInput {
  const share = Math.floor(dependencyRoom / Math.max(1, step.dependsOn.length));
  const known = step.dependsOn.map((id) => {
    const output = results.get(id)?.output ?? '';
    return `[${id}] ${output.length > share ? `${output.slice(0, share)} […]` : output}`;
  });
  const context = [
    `This is step "${step.id}" of a plan for: ${plan.goal.slice(0, 500)}`,
    ...(known.length > 0 ? ['', 'Results of the steps it depends on:', ...known] : []),
  ].join('\n');
  return { goal: step.goal, ...(step.returns ? { returns: step.returns } : {}), context, tools: step.tools };
}

/**
 * Runs a plan's graph: each step as a sub-agent once every step it depends on is done, as many at once as the
 * sub-agents' limit allows (and writers one at a time per folder). A step that fails leaves those that depend on it
 * not run; the others go on. Stop stops them all. Run again after a stop of the app, finished steps keep their results
 * and the others are picked up where they were.
 */
export async function runPlan(plan: RunPlanInput, context: ToolContext, subAgents: Pick<SubAgents, 'hand'>): Promise<ToolOutcome> {
  const results = new Map<string, StepResult>();
  const running = new Map<string, Promise<void>>();
  const started = new Set<string>();
  for (;;) {
    if (context.signal.aborted) throw new CancelledError();
    for (const step of plan.steps) {
      if (started.has(step.id)) continue;
      const blocked = step.dependsOn.find((id) => {
        const result = results.get(id);
        return result !== undefined && result.state !== 'done';
      });
      if (blocked !== undefined) {
        started.add(step.id);
        results.set(step.id, { state: 'not run', output: `it depends on "${blocked}", which did not finish` });
        continue;
      }
      if (!step.dependsOn.every((id) => results.get(id)?.state === 'done')) continue;
      started.add(step.id);
      running.set(
        step.id,
        subAgents
          .hand(briefOf(plan, step, results), context, step.id)
          .then(
            (outcome): StepResult => ({ state: outcome.isError ? 'failed' : 'done', output: outcome.output }),
            (error: unknown): StepResult => ({ state: 'failed', output: error instanceof Error ? error.message : String(error) }),
          )
          .then((result) => {
            results.set(step.id, result);
            running.delete(step.id);
          }),
      );
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
  }
  if (context.signal.aborted) throw new CancelledError();
  const failed = plan.steps.filter((step) => results.get(step.id)?.state !== 'done').length;
  const lines = plan.steps.map((step) => {
    const result = results.get(step.id) ?? { state: 'not run', output: '' };
    const head = `[${step.id}] ${step.goal.split('\n')[0]?.slice(0, 200) ?? ''}: ${result.state}`;
    return result.state === 'done' ? `${head}\n${result.output}` : `${head}: ${result.output}`;
  });
  return {
    output: [
      `The plan's ${plan.steps.length} steps ran${failed > 0 ? `, ${failed} of them without a result` : ''}. Write the answer from their results, and check it against the goal: ${plan.goal.slice(0, 500)}`,
      ...lines,
    ].join('\n\n'),
    ...(failed === plan.steps.length ? { isError: true } : {}),
  };
}

/** The `run_plan` tool: a plan approved as a whole when any step may write, then run as a graph of sub-agents. */
export function runPlanTool(subAgents: Pick<SubAgents, 'hand'>): Tool {
  return defineTool({
    name: runPlanToolName,
    description:
      'Runs a plan as a graph of sub-tasks, each by a sub-agent: steps with an id, a goal, what it returns, the step ids ' +
      'it needs (dependsOn), and tools "read_write" if it changes files. Ready steps run in parallel. Returns every result.',
    input: runPlanInputSchema,
    risk: 'read_only',
    resumable: true,
    optional: true,
    changesFiles: (plan) => plan.steps.some((step) => step.tools === 'read_write'),
    // A plan with steps that may write is approved as a whole first, as any writing call is at its level; each write
    // is asked for again at its sub-agent's own gate, by the same rules.
    assess: (plan) =>
      plan.steps.some((step) => step.tools === 'read_write')
        ? { level: 'write_low', reason: 'run_plan runs a plan with steps that may change files' }
        : { level: 'read_only', reason: 'run_plan runs a plan of read-only steps' },
    summarize: (plan) => `${plan.steps.length} steps: ${plan.goal.split('\n')[0]?.slice(0, 160) ?? ''}`,
    execute: (plan, context) => runPlan(plan, context, subAgents),
  });
}
