/*
 * Plans as graphs: the `run_plan` tool takes steps with a goal, what each returns and the steps each depends on,
 * checks the graph, and runs each step as a sub-agent once its dependencies are done, in parallel up to the limit;
 * then one more writes the answer from the results and another checks it against the goal.
 */
import { CancelledError, WorkbenchError } from '../../../shared/errors';
import {
  answerStepId,
  checkLine,
  checkStepId,
  checkVerdictOf,
  replanLine,
  runPlanInputSchema,
  type CheckVerdict,
  type PlanStep,
  type RunPlanInput,
} from '../../../shared/plan-graph';
import { defineTool, type Tool, type ToolContext, type ToolOutcome } from '../ports/tools';
import { briefHold, screenedResults, type DelegateInput } from './sub-agent-brief';
import type { SubAgents } from './sub-agents';

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
    ...(known.length > 0 ? ['', 'Results of the steps it depends on:', ...screenedResults(known)] : []),
  ].join('\n');
  return {
    goal: step.goal,
    ...(step.returns ? { returns: step.returns } : {}),
    context,
    tools: step.tools,
    ...(step.worktree && step.tools === 'read_write' ? { worktree: true } : {}),
  };
}

/** What running a plan needs of the sub-agents: a step's sub-agent, and the plans run before it in its turn. */
export type PlanHands = Pick<SubAgents, 'hand' | 'plansBefore'>;

/** The goal of a plan's answer step and of its check, as their sub-agents' briefs name them. */
export const answerGoal = (plan: Pick<RunPlanInput, 'goal'>): string =>
  `Write the answer to “${firstLine(plan.goal)}” from the results of its steps`;
export const checkGoal = (plan: Pick<RunPlanInput, 'goal'>): string =>
  `Check the answer written for “${firstLine(plan.goal)}” against its goal`;

function firstLine(text: string): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** Every step's result, each within its share of `room`, for the answer's brief or when there is no answer. */
function resultLines(plan: RunPlanInput, results: ReadonlyMap<string, StepResult>, room: number): string[] {
  const share = Math.floor(room / plan.steps.length);
  return plan.steps.map((step) => {
    const result = results.get(step.id) ?? { state: 'not run', output: '' };
    const output = result.output.length > share ? `${result.output.slice(0, share)} […]` : result.output;
    const head = `[${step.id}] ${firstLine(step.goal)}: ${result.state}`;
    return result.state === 'done' ? `${head}\n${output}` : `${head}: ${output}`;
  });
}

/** The brief of the step that writes the answer from the results. */
function answerBrief(plan: RunPlanInput, results: ReadonlyMap<string, StepResult>): DelegateInput {
  return {
    goal: answerGoal(plan),
    returns: 'The answer to the goal, complete, as the person who set the goal should read it.',
    context: [
      `The goal, in full: ${plan.goal}`,
      '',
      'The results of the steps:',
      ...screenedResults(resultLines(plan, results, dependencyRoom)),
    ].join('\n'),
    tools: 'read_only',
  };
}

/** The brief of the step that checks the answer against the goal. */
function checkBrief(plan: RunPlanInput, answer: string): DelegateInput {
  return {
    goal: checkGoal(plan),
    returns:
      'On the first line PASS if the answer meets the goal, or FAIL if it does not; then, in a few lines, why: what is ' +
      'missing or wrong. Read the files it names where that settles a doubt.',
    context: [`The goal, in full: ${plan.goal}`, '', 'The answer written for it:', ...screenedResults([answer])].join('\n'),
    tools: 'read_only',
  };
}

/** What the parent should do with a checked answer. */
function adviceOn(verdict: CheckVerdict, replan: boolean): string {
  if (verdict.passed === true) return 'Give the person this answer; you may put it in your own words.';
  if (verdict.passed === null) return 'The check gave no clear verdict: read the answer against the goal yourself before you give it.';
  return replan
    ? 'This plan was the one replan: give the person the answer and say plainly what falls short.'
    : 'You may replan once: call run_plan again with steps that address what the check found (their briefs can hold ' +
        'what the results below already tell), or give the answer and say what falls short.';
}

/**
 * Runs a plan's graph: each step as a sub-agent once every step it depends on is done, as many at once as the
 * sub-agents' limit allows (and writers one at a time per folder). A step that fails leaves those that depend on it
 * not run; the others go on. Then a last step writes the answer from the results and another checks it against the
 * goal: when the check fails, the model may replan once, and a plan after a failed replan is refused. Stop stops them
 * all. Run again after a stop of the app, finished steps keep their results and the others are picked up where they
 * were.
 */
export async function runPlan(plan: RunPlanInput, context: ToolContext, hands: PlanHands): Promise<ToolOutcome> {
  // After a failed check, the next plan of the turn is its one replan; none runs after that.
  const before = hands.plansBefore(context);
  const failedAt = before.findIndex((verdict) => verdict?.passed === false);
  if (failedAt >= 0 && failedAt < before.length - 1)
    throw new WorkbenchError(
      'invalid_state',
      'A plan is replanned once in a turn after its check fails, and the replan has run: give the person the answer there is and say what falls short.',
    );
  const replan = failedAt >= 0;
  const lead = replan ? [`${replanLine} It found: ${before[failedAt]?.why.split('\n')[0] ?? ''}`] : [];
  if (replan) context.emitOutput(`${lead.join('')}\n`);
  const results = await runSteps(plan, context, hands);
  const failed = plan.steps.filter((step) => results.get(step.id)?.state !== 'done').length;
  const ran = `The plan's ${plan.steps.length} steps ran${failed > 0 ? `, ${failed} of them without a result` : ''}`;
  if (failed === plan.steps.length)
    return { output: [...lead, `${ran}.`, ...resultLines(plan, results, dependencyRoom)].join('\n\n'), isError: true };

  const answer = await hands.hand(answerBrief(plan, results), context, answerStepId).catch(failure);
  if (context.signal.aborted) throw new CancelledError();
  if (answer.isError)
    return {
      output: [
        ...lead,
        `${ran}, but its answer could not be written (${answer.output.split('\n')[0] ?? ''}). Write it from the results, and check it against the goal: ${plan.goal.slice(0, 500)}`,
        ...resultLines(plan, results, dependencyRoom),
      ].join('\n\n'),
    };
  const checked = await hands.hand(checkBrief(plan, answer.output), context, checkStepId).catch(failure);
  if (context.signal.aborted) throw new CancelledError();
  const verdict: CheckVerdict = checked.isError
    ? { passed: null, why: `the check could not run: ${checked.output.split('\n')[0] ?? ''}` }
    : checkVerdictOf(checked.output);
  context.emitOutput(`${checkLine(verdict)}\n`);
  // The parent holds the answer and a line per step; each step's whole result is in its sub-agent's session.
  const steps = plan.steps.map((step) => {
    const result = results.get(step.id) ?? { state: 'not run', output: '' };
    const said = firstLine(result.output);
    return `[${step.id}] ${firstLine(step.goal)}: ${result.state}${said === '' ? '' : `: ${said.slice(0, 160)}`}`;
  });
  return {
    output: [
      ...lead,
      `${ran}, and its answer was written from their results and checked against the goal.`,
      `${checkLine(verdict)}\n${adviceOn(verdict, replan)}`,
      `The answer:\n${answer.output}`,
      `The steps:\n${steps.join('\n')}`,
    ].join('\n\n'),
  };
}

const failure = (error: unknown): ToolOutcome => {
  if (error instanceof CancelledError) throw error;
  return { output: error instanceof Error ? error.message : String(error), isError: true };
};

/** The plan's own steps, each as a sub-agent once its dependencies are done, as many at once as allowed. */
async function runSteps(plan: RunPlanInput, context: ToolContext, hands: PlanHands): Promise<Map<string, StepResult>> {
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
        hands
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
  return results;
}

/** The `run_plan` tool: a plan approved as a whole when any step may write, then run as a graph of sub-agents. */
export function runPlanTool(hands: PlanHands): Tool {
  return defineTool({
    name: runPlanToolName,
    description:
      'Runs a plan as a graph of sub-tasks, each by a sub-agent: steps with an id, a goal, what it returns, the step ids ' +
      'it needs (dependsOn), and tools "read_write" if it changes files (with worktree: true, in a git checkout of its own, ' +
      'so writing steps run in parallel too). Ready steps run in parallel; then one more writes ' +
      'the answer from their results and another checks it against the goal. Returns the answer, the check and each step.',
    input: runPlanInputSchema,
    risk: 'read_only',
    resumable: true,
    optional: true,
    changesFiles: (plan) => plan.steps.some((step) => step.tools === 'read_write'),
    // A plan with steps that may write is approved as a whole first, as any writing call is at its level; each write
    // is asked for again at its sub-agent's own gate, by the same rules.
    assess: (plan) =>
      briefHold([plan.goal, ...plan.steps.flatMap((step) => [step.goal, step.returns])]) ??
      (plan.steps.some((step) => step.tools === 'read_write')
        ? { level: 'write_low', reason: 'run_plan runs a plan with steps that may change files' }
        : { level: 'read_only', reason: 'run_plan runs a plan of read-only steps' }),
    summarize: (plan) => `${plan.steps.length} steps: ${plan.goal.split('\n')[0]?.slice(0, 160) ?? ''}`,
    execute: (plan, context) => runPlan(plan, context, hands),
  });
}
