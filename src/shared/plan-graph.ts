/*
 * A plan as a graph of sub-tasks, as the `run_plan` tool takes it: its steps, each with a goal, what it returns, the
 * steps it depends on and whether it may write, checked before anything runs.
 */
import { z } from 'zod';

/** The most steps a plan may have: more is work for several plans, one after another. */
export const maxPlanSteps = 12;

const stepSchema = z
  .object({
    id: z.string(),
    goal: z.string().trim().min(1, 'every step needs a goal').max(2_000),
    returns: z.string().trim().max(1_000).optional(),
    dependsOn: z.array(z.string()).default([]),
    tools: z.enum(['read_only', 'read_write']).default('read_only'),
  })
  .strict();
export type PlanStep = z.output<typeof stepSchema>;

/**
 * Why a graph of steps cannot run, or null: ids used twice, a dependency on a step that is not there or on itself, or
 * steps that depend on each other in a circle (named in order).
 */
export function graphProblem(steps: ReadonlyArray<Pick<PlanStep, 'id' | 'dependsOn'>>): string | null {
  const ids = new Set<string>();
  for (const step of steps) {
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(step.id)) return `a step id is 1 to 32 letters, digits, "-" or "_", not "${step.id.slice(0, 40)}"`;
    if (ids.has(step.id)) return `two steps have the id "${step.id}": each needs its own`;
    ids.add(step.id);
  }
  for (const step of steps)
    for (const dependency of step.dependsOn) {
      if (dependency === step.id) return `step "${step.id}" depends on itself`;
      if (!ids.has(dependency)) return `step "${step.id}" depends on "${dependency}", which is not a step of the plan`;
    }
  // A circle: walked depth first, a step met again while it is still on the path.
  const byId = new Map(steps.map((step) => [step.id, step]));
  const state = new Map<string, 'on path' | 'done'>();
  const path: string[] = [];
  const circle = (id: string): string[] | null => {
    if (state.get(id) === 'done') return null;
    if (state.get(id) === 'on path') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'on path');
    path.push(id);
    for (const dependency of byId.get(id)?.dependsOn ?? []) {
      const found = circle(dependency);
      if (found) return found;
    }
    path.pop();
    state.set(id, 'done');
    return null;
  };
  for (const step of steps) {
    const found = circle(step.id);
    if (found) return `the steps ${found.map((id) => `"${id}"`).join(' → ')} depend on each other in a circle, so none of them could start`;
  }
  return null;
}

export const runPlanInputSchema = z
  .object({
    goal: z.string().trim().min(1, 'Say what the plan is for: the goal is empty.').max(4_000),
    steps: z
      .array(stepSchema)
      .min(2, 'a plan has at least two steps (for one, use delegate)')
      .max(maxPlanSteps, `a plan has at most ${maxPlanSteps} steps: split the work into plans run one after another`),
  })
  .strict()
  .superRefine((plan, issues) => {
    const problem = graphProblem(plan.steps);
    if (problem) issues.addIssue({ code: 'custom', path: ['steps'], message: problem });
  });
export type RunPlanInput = z.output<typeof runPlanInputSchema>;
