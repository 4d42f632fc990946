import { grantDurationsMs, maxRisk, type ApprovalDecision, type TrustGrant } from '../../shared/domain';
import { CancelledError } from '../../shared/errors';
import type { PlanStep, RuntimeEvent, ToolCallStatus } from '../../shared/events';
import type { ApprovalAnswer } from './gates';
import type { ToolCallRequest } from './model-provider';
import { decide, type Decision } from './policy';
import type { RiskAssessment, Tool, ToolRegistry } from './tools';
import { capForDisk, truncateForModel } from './truncate';
import type { Turn, TurnServices, TurnSetup } from './turn';

/** A tool call as the model asked for it, parsed and assessed, or the reason it cannot run. */
export interface PreparedCall {
  readonly request: ToolCallRequest;
  readonly tool: Tool | null;
  readonly rawInput: unknown;
  readonly input: unknown;
  readonly invalid: string | null;
  readonly assessment: RiskAssessment;
  readonly summary: string;
  /** Filled in after the response is complete: what the call would change. */
  preview: string | null;
}

export function prepareCall(request: ToolCallRequest, tools: ToolRegistry, workspacePath: string | null): PreparedCall {
  let rawInput: unknown = request.arguments;
  let jsonError: string | null = null;
  try {
    rawInput = JSON.parse(request.arguments || '{}');
  } catch (error) {
    jsonError = `The arguments of ${request.name} are not valid JSON (${(error as Error).message}). Send them again as one JSON object.`;
  }
  const tool = tools.get(request.name) ?? null;
  const fallback: RiskAssessment = { level: tool?.baseRisk ?? 'read_only', reason: 'not run' };
  if (!tool) {
    const known =
      tools
        .list()
        .map((candidate) => candidate.name)
        .join(', ') || 'none';
    return {
      request,
      tool,
      rawInput,
      input: null,
      invalid: `There is no tool named ${request.name}. Available tools: ${known}.`,
      assessment: fallback,
      summary: request.name,
      preview: null,
    };
  }
  if (jsonError)
    return { request, tool, rawInput, input: null, invalid: jsonError, assessment: fallback, summary: request.name, preview: null };
  const parsed = tool.parse(rawInput);
  if (!parsed.ok)
    return { request, tool, rawInput, input: null, invalid: parsed.message, assessment: fallback, summary: request.name, preview: null };
  return {
    request,
    tool,
    rawInput,
    input: parsed.input,
    invalid: null,
    assessment: tool.assess(parsed.input, { workspacePath }),
    summary: tool.summarize(parsed.input),
    preview: null,
  };
}

/** What the journal knows of a call when its turn resumes after the app stopped. */
export interface PriorCall {
  /** It had finished; a damaged checkpoint lost its result, which the journal still has. */
  readonly finished?: { readonly output: string; readonly isError: boolean };
  /** It was running when the app stopped, and printed this much. */
  readonly interruptedOutput?: string;
  /** It was waiting at a gate: that gate's id, and its answer if one was given. */
  readonly gate?: { readonly approvalId: string; readonly answer: ApprovalAnswer | null };
}

type Decided = { readonly call: PreparedCall & { tool: Tool }; decision: Decision };

const timedDecisions: ReadonlySet<ApprovalDecision> = new Set(['allow_5m', 'allow_30m', 'allow_1h', 'allow_5h']);

/**
 * The tool half of a loop iteration: decide every call, show a plan when the response has enough
 * calls, wait at gates, run what may run (read-only calls of a batch in parallel, the rest in
 * order), and give every call a result, whatever happens.
 */
export class ToolStep {
  constructor(
    private readonly setup: TurnSetup,
    private readonly services: TurnServices,
    private readonly turn: Turn,
  ) {}

  async run(all: readonly PreparedCall[], purpose: string): Promise<{ kind: 'model' }> {
    const calls = this.settlePrior(all);
    const grants = this.services.trust.listActive(this.services.clock.now());
    const decided: Decided[] = [];
    const steps: PlanStep[] = [];
    for (const call of calls) {
      if (call.invalid !== null || call.tool === null) {
        steps.push({
          toolCallId: call.request.id,
          tool: call.request.name,
          summary: call.summary,
          risk: call.assessment.level,
          decision: 'deny',
        });
        continue;
      }
      const decision = decide(call.tool, call.input, call.assessment, this.policyContext(grants));
      decided.push({ call: call as Decided['call'], decision });
      steps.push({
        toolCallId: call.request.id,
        tool: call.tool.name,
        summary: call.summary,
        risk: call.assessment.level,
        decision: decision.action,
      });
    }

    for (const call of calls) if (call.invalid !== null) this.finishCall(call, 'failed', call.invalid, 0);
    for (const item of decided)
      if (item.decision.action === 'deny') this.finishCall(item.call, 'denied', `Not run: ${item.decision.reason}`, 0);
    const runnable = decided.filter((item) => item.decision.action !== 'deny');

    if (calls.length >= this.setup.planThreshold) {
      const approved = await this.proposePlan(purpose, steps, runnable);
      if (!approved) return { kind: 'model' };
      await this.execute(runnable, true);
    } else {
      await this.execute(runnable, false);
    }
    return { kind: 'model' };
  }

  /** Calls of a resumed turn that already ended get their result; the rest go on as usual. */
  private settlePrior(calls: readonly PreparedCall[]): PreparedCall[] {
    const prior = this.setup.resume?.prior;
    if (!prior) return [...calls];
    const rest: PreparedCall[] = [];
    for (const call of calls) {
      const known = prior.get(call.request.id);
      if (known?.finished) {
        this.turn.addToolResult(call.request, known.finished.output, known.finished.isError);
        this.turn.checkpoint('tool');
      } else if (known?.interruptedOutput !== undefined) {
        const sofar = known.interruptedOutput.length > 0 ? `\nIts output so far:\n${known.interruptedOutput}` : '';
        this.finishCall(call, 'failed', `The app stopped while this call was running, so it may have partly run.${sofar}`, 0);
      } else {
        rest.push(call);
      }
    }
    return rest;
  }

  /** Shows the plan; waits for an answer when any step needs one. Resolves false when the plan will not run. */
  private async proposePlan(purpose: string, steps: PlanStep[], runnable: Decided[]): Promise<boolean> {
    const { turnId, sessionId } = this.setup;
    const planId = this.services.newId();
    const needsApproval = runnable.some((item) => item.decision.action === 'ask');
    this.turn.record([
      {
        type: 'plan_proposed',
        turnId,
        planId,
        purpose: purpose || `${steps.length} steps`,
        steps,
        maxRisk: maxRisk(steps.map((step) => step.risk)),
        needsApproval,
      },
    ]);
    if (!needsApproval) return true;
    this.turn.setStatus('waiting_approval');
    this.turn.commit();
    const answer = await this.services.gates.waitForPlan(planId, sessionId, this.turn.signal);
    this.turn.record([{ type: 'plan_answered', turnId, planId, answer: answer.answer, ...(answer.text ? { text: answer.text } : {}) }]);
    this.turn.checkpoint('approval');
    if (answer.answer === 'approve') {
      // Approval covers exactly the listed steps of this run, nothing more.
      for (const item of runnable)
        if (item.decision.action === 'ask') item.decision = { action: 'run', rule: 'plan', reason: 'Approved as a step of the plan.' };
      return true;
    }
    const note =
      answer.answer === 'reject'
        ? `Not run: the user rejected the plan${answer.text ? `: ${answer.text}` : '.'}`
        : `Not run: the user asked for a different plan: ${answer.text ?? ''}\nPropose a revised plan.`;
    for (const item of runnable) this.finishCall(item.call, 'denied', note, 0);
    return false;
  }

  /** Runs in order; consecutive read-only calls that may run go together in parallel. */
  private async execute(runnable: Decided[], fromPlan: boolean): Promise<void> {
    let index = 0;
    while (index < runnable.length) {
      if (this.turn.signal.aborted) throw new CancelledError();
      const batch: Decided[] = [];
      while (
        index < runnable.length &&
        runnable[index]?.decision.action === 'run' &&
        runnable[index]?.call.assessment.level === 'read_only'
      ) {
        batch.push(runnable[index] as Decided);
        index += 1;
      }
      if (batch.length > 0) {
        await Promise.all(
          batch.map((item) =>
            this.runCall(
              item.call,
              item.decision.rule === 'grant' ? 'grant' : fromPlan && item.decision.rule === 'plan' ? 'plan' : 'matrix',
            ),
          ),
        );
        continue;
      }
      const item = runnable[index] as Decided;
      index += 1;
      if (item.decision.action === 'run') {
        await this.runCall(item.call, item.decision.rule === 'grant' ? 'grant' : item.decision.rule === 'plan' ? 'plan' : 'matrix');
        continue;
      }
      if (await this.askAtGate(item.call)) await this.runCall(item.call, 'approval');
    }
  }

  /** The per-call gate. Timed and session answers create a trust grant before the call runs. */
  private async askAtGate(call: Decided['call']): Promise<boolean> {
    const { turnId, sessionId } = this.setup;
    const { services } = this;
    const prior = this.setup.resume?.prior.get(call.request.id)?.gate;
    const approvalId = prior?.approvalId ?? services.newId();
    if (prior?.answer) return this.takeAnswer(call, approvalId, prior.answer, true);
    this.turn.setStatus('waiting_approval');
    // A gate that was open when the app stopped is journalled already: it opens again as it was.
    if (!prior)
      this.turn.record([
        {
          type: 'approval_requested',
          turnId,
          toolCallId: call.request.id,
          approvalId,
          tool: call.tool.name,
          summary: call.summary,
          input: call.rawInput,
          risk: call.assessment.level,
          reason: call.assessment.reason,
          ...(call.preview === null ? {} : { preview: call.preview }),
        },
      ]);
    this.turn.commit();
    const answer = await services.gates.waitForApproval(approvalId, sessionId, this.turn.signal);
    return this.takeAnswer(call, approvalId, answer, false);
  }

  /** Acts on a gate's answer; `journalled` when the answer is in the journal already (a resumed turn). */
  private takeAnswer(call: Decided['call'], approvalId: string, answer: ApprovalAnswer, journalled: boolean): boolean {
    const { turnId, sessionId, workspacePath } = this.setup;
    const { services } = this;
    const answeredEvent: RuntimeEvent = {
      type: 'approval_answered',
      turnId,
      toolCallId: call.request.id,
      approvalId,
      decision: answer.decision,
      ...(answer.reason ? { reason: answer.reason } : {}),
    };
    // A journalled answer was saved with its checkpoint then: nothing to write again.
    const answered = (): void => {
      if (journalled) return;
      this.turn.record([answeredEvent]);
      this.turn.checkpoint('approval');
    };
    if (answer.decision === 'deny') {
      answered();
      this.finishCall(call, 'denied', `Not run: the user denied this call${answer.reason ? `: ${answer.reason}` : '.'}`, 0);
      return false;
    }
    // A destructive call is allowed this once whatever the answer: no grant ever covers one.
    if (answer.decision === 'allow_once' || call.assessment.level === 'destructive' || journalled) {
      // A grant made from a journalled answer was created then, or is gone with the crash: either way this call runs once.
      answered();
      return true;
    }
    const now = services.clock.now();
    const pattern = call.tool.trustPattern(call.input);
    const grant: TrustGrant = {
      id: services.newId(),
      tool: call.tool.name,
      pattern,
      workspacePath,
      maxRisk: call.assessment.level,
      sessionId: answer.decision === 'allow_session' ? sessionId : null,
      createdAt: now,
      expiresAt: timedDecisions.has(answer.decision) ? now + grantDurationsMs[answer.decision as keyof typeof grantDurationsMs] : null,
      revokedAt: null,
      description: pattern.kind === 'exact' ? `${call.tool.name}: ${call.summary}` : `${call.tool.name}: ${pattern.words.join(' ')} …`,
    };
    this.turn.record([{ ...answeredEvent, grantId: grant.id } as RuntimeEvent, { type: 'trust_grant_created', grant }]);
    this.turn.checkpoint('approval');
    // The grant's row lands in the same transaction as its event.
    this.turn.write(() => services.trust.create(grant));
    this.turn.commit();
    return true;
  }

  private async runCall(call: Decided['call'], rule: 'matrix' | 'grant' | 'plan' | 'approval'): Promise<void> {
    const { turnId, sessionId, workspacePath } = this.setup;
    const { services } = this;
    const toolCallId = call.request.id;
    const changesFiles = call.assessment.level !== 'read_only';
    if (changesFiles) await this.turn.captureFiles();
    this.turn.setStatus('executing');
    this.turn.record([{ type: 'tool_call_started', turnId, toolCallId, rule }]);
    this.turn.commit();
    const startedAt = services.clock.now();
    const signal = this.turn.signal;
    let onAbort: (() => void) | null = null;
    const aborted = new Promise<never>((_resolve, reject) => {
      onAbort = () => reject(new CancelledError());
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      // A tool that ignores the signal cannot hold the turn: Stop wins the race.
      const outcome = await Promise.race([
        call.tool.execute(call.input, {
          signal,
          sessionId,
          toolCallId,
          workspacePath,
          emitOutput: (text) => this.turn.stream({ type: 'tool_output', turnId, toolCallId, text }),
        }),
        aborted,
      ]);
      this.finishCall(call, outcome.isError ? 'failed' : 'succeeded', outcome.output, services.clock.now() - startedAt);
    } catch (error) {
      if (signal.aborted) {
        this.finishCall(call, 'cancelled', 'Stopped by the user while running.', services.clock.now() - startedAt);
        throw new CancelledError();
      }
      this.finishCall(
        call,
        'failed',
        `${call.tool.name} failed: ${error instanceof Error ? error.message : String(error)}`,
        services.clock.now() - startedAt,
      );
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
      aborted.catch(() => undefined);
      // What the call changed is saved with its result's checkpoint, even when it was stopped.
      if (changesFiles) await this.turn.captureFiles();
    }
  }

  /** Gives a call its result: journalled, accounted, and added to what the model sees next. */
  private finishCall(call: PreparedCall, status: ToolCallStatus, output: string, latencyMs: number): void {
    const { turnId, sessionId } = this.setup;
    const forModel = truncateForModel(output);
    const onDisk = capForDisk(output);
    this.turn.record([
      {
        type: 'tool_call_finished',
        turnId,
        toolCallId: call.request.id,
        status,
        output: forModel.text,
        outputBytes: onDisk.bytes,
        truncated: forModel.truncated || onDisk.capped,
        latencyMs,
      },
    ]);
    const at = this.services.clock.now();
    this.turn.write(() =>
      this.services.accounting.recordToolCall({
        id: call.request.id,
        sessionId,
        turnId,
        tool: call.request.name,
        input: typeof call.rawInput === 'string' ? call.rawInput : JSON.stringify(call.rawInput),
        output: onDisk.text,
        outputBytes: onDisk.bytes,
        truncated: onDisk.capped,
        status,
        latencyMs,
        at,
      }),
    );
    if (status === 'failed') this.turn.noteToolFailure();
    this.turn.addToolResult(call.request, forModel.text, status !== 'succeeded');
    this.turn.checkpoint('tool');
  }

  private policyContext(grants: readonly TrustGrant[]) {
    return {
      autonomy: this.setup.autonomy,
      sessionId: this.setup.sessionId,
      workspacePath: this.setup.workspacePath,
      now: this.services.clock.now(),
      deniedTools: this.setup.deniedTools,
      grants,
    };
  }
}
