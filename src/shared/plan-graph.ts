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
    /** A writing step in a git worktree of its own (see the delegate tool's `worktree`). */
    worktree: z.boolean().optional(),
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

/**
 * Every plan ends with two steps of its own, after those the model gave: one writes the answer from the results, one
 * checks it against the goal. Their ids cannot be taken by a plan's steps (ids have no ":").
 */
export const answerStepId = ':answer';
export const checkStepId = ':check';

/** What the check of a plan's answer found: passed, failed, or no verdict (an answer that says neither), and why. */
export interface CheckVerdict {
  readonly passed: boolean | null;
  readonly why: string;
}

/** A line that gives a verdict: PASS or FAIL first, after a label such as "Verdict:" at most. */
const verdictLine =
  /^(?:(?:verdict|result|status|check|pass\s*\/\s*fail)\s*[:\-–—]\s*)?(pass|fail)(?:ed|es|s)?\b(?!\s*\/)[\s:.,;\-–—]*(.*)$/i;

/**
 * The check's verdict from its answer: the first of its first three lines that starts with PASS or FAIL (markdown
 * marks taken off, a label such as "Verdict:" allowed), then why. Neither: no verdict.
 */
export function checkVerdictOf(answer: string): CheckVerdict {
  const lines = answer
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  for (let index = 0; index < Math.min(3, lines.length); index += 1) {
    const found = verdictLine.exec((lines[index] ?? '').replace(/[*_`#>]/g, '').trim());
    if (!found) continue;
    const why = [found[2] ?? '', ...lines.slice(index + 1)].join('\n').replace(/[*`]/g, '').trim().slice(0, 500);
    return { passed: found[1]?.toLowerCase() === 'pass', why };
  }
  return { passed: null, why: answer.trim().slice(0, 500) };
}

/** How a plan's result says what its check found, on a line of its own (read back by the plan's card). */
export function checkLine(verdict: CheckVerdict): string {
  const head = verdict.passed === null ? 'no verdict' : verdict.passed ? 'passed' : 'failed';
  const why = verdict.why.split('\n')[0]?.trim() ?? '';
  return `Check against the goal: ${head}${why === '' ? '' : `: ${why}`}`;
}

/** The check a finished plan's result reports, or null when it reports none (its answer could not be written). */
export function checkInResult(output: string): { readonly head: 'passed' | 'failed' | 'no verdict'; readonly why: string } | null {
  const found = /^Check against the goal: (passed|failed|no verdict)(?:: (.*))?$/m.exec(output);
  if (!found) return null;
  return { head: found[1] as 'passed' | 'failed' | 'no verdict', why: found[2] ?? '' };
}

/** The first line of the result of a plan run as the one replan after a failed check. */
export const replanLine = 'This plan is the replan after the check of the plan before it failed.';
