/*
 * The person's side of the loop: the rules' decisions, plans, gates, and what their answers do. What the rules
 * decide for each call, the plan a response with enough calls becomes, the gates calls wait at, and their answers. Every function here is
 * a transition from one loop state to the next; none of them waits. The loop waits at the gates.
 */
import { counted } from '../../../shared/counts';
import {
  grantDurationsMs,
  maxRisk,
  type ApprovalDecision,
  type EscalationKind,
  type GateDeadline,
  type GrantPattern,
  type TrustGrant,
} from '../../../shared/domain';
import type { PlanStep, RuntimeEvent } from '../../../shared/events';
import type { ApprovalAnswer, PlanAnswer } from '../rules/gates';
import { decide, type Decision, type PolicyContext } from '../rules/policy';
import { gateDeadline } from './gate-deadline';
import { giveResult } from './tool-calls';
import type { Tool } from '../ports/tools';
import type { DecidedCall, LoopState, PreparedCall } from './loop-state';
import type { StepContext } from './step-context';
import { isRestricted } from '../ports/folder-trust';

/** How a grant's description names the escalation it covers. */
const escalationLabel: Readonly<Record<EscalationKind, string>> = { network: 'with network access', no_sandbox: 'outside the sandbox' };

const timedDecisions: ReadonlySet<ApprovalDecision> = new Set(['allow_5m', 'allow_30m', 'allow_1h', 'allow_5h']);

export function policyContext({ setup, services }: StepContext): PolicyContext {
  const now = services.clock.now();
  const { autonomy, sessionId, workspacePath } = setup;
  const restricted = isRestricted(services.folderTrust, workspacePath);
  return {
    autonomy,
    ...(restricted ? { restricted } : {}),
    sessionId,
    workspacePath,
    now,
    deniedTools: setup.deniedTools(),
    ...(setup.rootSessionId ? { rootSessionId: setup.rootSessionId } : {}),
    ...(setup.outOfReach ? { outOfReach: setup.outOfReach() } : {}),
    grants: services.trust.listActive(now),
  };
}

/** The rules' decision for a call that can run. */
export function decideCall(call: PreparedCall & { readonly tool: Tool }, policy: PolicyContext): Decision {
  return decide(call.tool, call.input, call.assessment, policy);
}

/**
 * Decides every call of a response. Calls that cannot run get their result at once; a response
 * with `planThreshold` calls or more is shown as a plan, which waits for the person when any step
 * needs an answer.
 */
export function decideCalls(context: StepContext, calls: readonly PreparedCall[], purpose: string): LoopState {
  const { setup, services, writer } = context;
  const policy = policyContext(context);
  const decided: DecidedCall[] = [];
  const steps: PlanStep[] = [];
  for (const call of calls) {
    const { escalation } = call.assessment;
    const step = { toolCallId: call.request.id, summary: call.summary, risk: call.assessment.level, ...(escalation ? { escalation } : {}) };
    if (call.invalid !== null || call.tool === null) {
      steps.push({ ...step, tool: call.request.name, decision: 'deny' });
      continue;
    }
    const runnable = call as DecidedCall['call'];
    const decision = decideCall(runnable, policy);
    decided.push({ call: runnable, decision });
    steps.push({ ...step, tool: runnable.tool.name, decision: decision.action });
  }
  for (const call of calls) if (call.invalid !== null) giveResult(context, call, 'failed', call.invalid, 0);
  for (const item of decided)
    if (item.decision.action === 'deny') giveResult(context, item.call, 'denied', `Not run: ${item.decision.reason}`, 0);
  const runnable = decided.filter((item) => item.decision.action !== 'deny');
  if (calls.length < setup.planThreshold) return { kind: 'execute', queue: runnable, fromPlan: false };

  const planId = services.newId();
  const needsApproval = runnable.some((item) => item.decision.action === 'ask');
  const risks = steps.map((step) => step.risk);
  const plan = { type: 'plan_proposed', turnId: setup.turnId, planId, purpose: purpose || counted(steps.length, 'step'), steps } as const;
  const deadline = needsApproval ? gateDeadline(context) : undefined;
  writer.journal([{ ...plan, maxRisk: maxRisk(risks), needsApproval, ...(deadline ? { deadline } : {}) }]);
  if (!needsApproval) return { kind: 'execute', queue: runnable, fromPlan: true };
  return waitForPlan(context, planId, runnable, deadline);
}

/**
 * Decides again, as the grants are now, the calls whose decision rests on them: a grant answered at
 * an earlier gate of the same response covers the calls after it that it matches, and a grant
 * revoked meanwhile covers nothing. A call whose tool the person has denied in Settings meanwhile is
 * denied, whatever it had (a denial comes before every allow). Otherwise calls the matrix runs, steps
 * of an approved plan, calls allowed at their gate and gates opened before the app stopped keep what
 * they had. The loop asks this before it acts on the next call, so a resumed turn decides its
 * remaining calls the same way.
 */
export function decideAgain(context: StepContext, queue: readonly DecidedCall[]): readonly DecidedCall[] {
  const denied = context.setup.deniedTools();
  const nowDenied = (item: DecidedCall): boolean => denied.includes(item.call.tool.name);
  const restsOnGrants = (item: DecidedCall): boolean =>
    !item.approved && !item.earlierGate && (item.decision.action === 'ask' || item.decision.rule === 'grant');
  if (!queue.some((item) => nowDenied(item) || restsOnGrants(item))) return queue;
  const policy = policyContext(context);
  return queue.map((item) => {
    if (nowDenied(item)) return { call: item.call, decision: decideCall(item.call, policy) };
    return restsOnGrants(item) ? { ...item, decision: decideCall(item.call, policy) } : item;
  });
}

/** Opens the plan's gate; the loop waits there. */
export function waitForPlan(context: StepContext, planId: string, runnable: readonly DecidedCall[], deadline?: GateDeadline): LoopState {
  const { setup, services, writer } = context;
  services.gates.openGate(planId, 'plan', setup.sessionId);
  writer.setStatus('waiting_approval');
  writer.flush();
  return { kind: 'plan', planId, runnable, ...(deadline ? { deadline } : {}) };
}

/** The note a call gets when its plan will not run. */
export function planRefusal(answer: PlanAnswer): string {
  return answer.answer === 'reject'
    ? `Not run: the user rejected the plan${answer.text ? `: ${answer.text}` : '.'}`
    : `Not run: the user asked for a different plan: ${answer.text ?? ''}\nPropose a revised plan.`;
}

/** Approving a plan approves exactly its listed steps for this run; rejecting or refining it tells the model why. */
export function takePlanAnswer(context: StepContext, state: Extract<LoopState, { kind: 'plan' }>, answer: PlanAnswer): LoopState {
  const { setup, writer } = context;
  writer.journal([
    {
      type: 'plan_answered',
      turnId: setup.turnId,
      planId: state.planId,
      answer: answer.answer,
      ...(answer.text ? { text: answer.text } : {}),
      ...(answer.timedOut ? { timedOut: true as const } : {}),
    },
  ]);
  writer.checkpoint('approval');
  if (answer.answer === 'approve') return { kind: 'execute', queue: state.runnable.map(approvedInPlan), fromPlan: true };
  const note = answer.timedOut ? `Not run: ${answer.text ?? 'no answer came in time'}, so the plan was rejected.` : planRefusal(answer);
  for (const item of state.runnable) giveResult(context, item.call, 'denied', note, 0);
  if (answer.timedOut && state.deadline?.action === 'stop') return { kind: 'finish', status: 'cancelled' };
  return { kind: 'model' };
}

/** A step of an approved plan that would have asked runs as part of the plan. */
export function approvedInPlan(item: DecidedCall): DecidedCall {
  if (item.decision.action !== 'ask') return item;
  return { ...item, decision: { action: 'run', rule: 'plan', reason: 'Approved as a step of the plan.' } };
}

/**
 * Opens a call's gate: journalled, shown, and the loop waits there. A gate that was open when the
 * app stopped is in the journal already and opens again as it was, with the same id.
 */
export function openCallGate(context: StepContext, item: DecidedCall, queue: readonly DecidedCall[], fromPlan: boolean): LoopState {
  const { setup, services, writer } = context;
  const { call } = item;
  const approvalId = item.earlierGate?.approvalId ?? services.newId();
  writer.setStatus('waiting_approval');
  // A gate opened again after a restart keeps its deadline; a new one gets the one its autonomy level has now.
  const deadline = item.earlierGate ? item.earlierGate.deadline : gateDeadline(context);
  if (!item.earlierGate) {
    // A grant may cover a folder only where a grant may be made at all: not for a destructive call or an escalation.
    const folders = call.assessment.level === 'destructive' || call.assessment.escalation ? [] : call.tool.grantFolders(call.input, setup);
    writer.journal([
      {
        type: 'approval_requested',
        turnId: setup.turnId,
        toolCallId: call.request.id,
        approvalId,
        tool: call.tool.name,
        summary: call.summary,
        input: call.rawInput,
        risk: call.assessment.level,
        reason: isRestricted(services.folderTrust, setup.workspacePath)
          ? `${call.assessment.reason}; this folder is not trusted (restricted mode): every change asks, and no grant counts here`
          : call.assessment.reason,
        ...(call.preview === null ? {} : { preview: call.preview }),
        ...(call.assessment.escalation ? { escalation: call.assessment.escalation } : {}),
        ...(folders.length > 0 ? { folders } : {}),
        ...(call.tool.editableField === undefined ? {} : { editableField: call.tool.editableField }),
        ...(deadline ? { deadline } : {}),
      },
    ]);
  }
  const field = call.tool.editableField;
  const current: unknown = call.input;
  const editable =
    field !== undefined && typeof current === 'object' && current !== null
      ? (content: string): string | null => {
          const parsed = call.tool.parse({ ...(current as Record<string, unknown>), [field]: content });
          return parsed.ok ? null : parsed.message;
        }
      : null;
  services.gates.openGate(approvalId, 'approval', setup.sessionId, editable);
  writer.flush();
  return { kind: 'approval', approvalId, item, queue, fromPlan, ...(deadline ? { deadline } : {}) };
}

/**
 * Acts on a gate's answer. Deny gives the call its result; allow puts it first in the queue to
 * run; a timed or session answer also creates a trust grant, whose row lands with its event (and
 * which the calls after it in the queue are decided again against, see `decideAgain`). A call that
 * asks for more than the sandbox gets a grant only when the person chose to trust that escalation
 * (`trustEscalation`); otherwise any allow runs it once. `journalled`: the answer was saved before
 * the app stopped, so nothing is written again and no grant is made again (the grant was created
 * then, or is gone with the crash: either way this call runs once).
 */
export function takeApproval(
  context: StepContext,
  state: Pick<Extract<LoopState, { kind: 'approval' }>, 'approvalId' | 'item' | 'queue' | 'fromPlan' | 'deadline'>,
  answer: ApprovalAnswer,
  journalled: boolean,
): LoopState {
  const { setup, services, writer } = context;
  const { approvalId, queue, fromPlan } = state;
  // The person's own version of a write's or an edit's content, when they changed it at the gate: the call runs with it.
  const changed = answer.decision === 'deny' ? null : withPersonsContent(state.item, answer.content);
  const item = changed ?? state.item;
  const { call } = item;
  const answered: RuntimeEvent = {
    type: 'approval_answered',
    turnId: setup.turnId,
    toolCallId: call.request.id,
    approvalId,
    decision: answer.decision,
    ...(answer.reason ? { reason: answer.reason } : {}),
    ...(answer.trustEscalation ? { trustEscalation: true as const } : {}),
    ...(changed?.changedByPerson ? { content: changed.changedByPerson.content } : {}),
    ...(answer.timedOut ? { timedOut: true as const } : {}),
  };
  const allowed: LoopState = { kind: 'execute', queue: [{ ...item, approved: true }, ...queue], fromPlan };
  if (answer.decision === 'deny') {
    if (!journalled) {
      writer.journal([answered]);
      writer.checkpoint('approval');
    }
    if (answer.timedOut) {
      giveResult(context, call, 'denied', `Not run: ${answer.reason ?? 'no answer came in time'}, so it was denied.`, 0);
      // The setting may stop the turn there: the calls after it are not run, as when the person stops it.
      if (state.deadline?.action === 'stop') return { kind: 'finish', status: 'cancelled' };
      return { kind: 'execute', queue, fromPlan };
    }
    giveResult(context, call, 'denied', `Not run: the user denied this call${answer.reason ? `: ${answer.reason}` : '.'}`, 0);
    return { kind: 'execute', queue, fromPlan };
  }
  // A destructive call is allowed this once whatever the answer: no grant ever covers one. Nor is an
  // escalation trusted for longer than this call unless the person chose that explicitly.
  const escalationUntrusted = call.assessment.escalation !== undefined && answer.trustEscalation !== true;
  if (answer.decision === 'allow_once' || call.assessment.level === 'destructive' || escalationUntrusted || journalled) {
    if (!journalled) {
      writer.journal([answered]);
      writer.checkpoint('approval');
    }
    return allowed;
  }
  const grant = grantFor(context, item, answer.decision, answer.folder);
  writer.journal([{ ...answered, grantId: grant.id } as RuntimeEvent, { type: 'trust_grant_created', grant }]);
  writer.checkpoint('approval');
  writer.stage(() => services.trust.create(grant));
  writer.flush();
  return allowed;
}

/**
 * The call with the person's content in its editable field, or null when they changed nothing (or the tool has no such
 * field, or their content is not input the tool takes: then the model's call runs as it was approved).
 */
function withPersonsContent(item: DecidedCall, content: string | undefined): DecidedCall | null {
  const field = item.call.tool.editableField;
  if (content === undefined || field === undefined) return null;
  const current: unknown = item.call.input;
  if (typeof current !== 'object' || current === null || (current as Record<string, unknown>)[field] === content) return null;
  const raw = { ...(current as Record<string, unknown>), [field]: content };
  const parsed = item.call.tool.parse(raw);
  if (!parsed.ok) return null;
  return { ...item, call: { ...item.call, input: parsed.input, rawInput: raw }, changedByPerson: { field, content } };
}

function grantFor({ setup, services }: StepContext, item: DecidedCall, decision: ApprovalDecision, folder?: string): TrustGrant {
  const { call } = item;
  const now = services.clock.now();
  // Only reached for an escalation the person chose to trust (see `takeApproval`). Trusting one covers this very
  // call's arguments, never the wider pattern of an ordinary grant: network for `curl <one URL>` is not network for curl.
  const escalation = call.assessment.escalation;
  // A folder the person picked at the gate, when it is one the gate offered (it holds this call's path); never for an
  // escalation. Anything else falls back to the tool's own pattern, which is never wider.
  const inFolder = !escalation && folder !== undefined && call.tool.grantFolders(call.input, setup).includes(folder);
  const pattern: GrantPattern = escalation
    ? call.tool.exactPattern(call.input)
    : inFolder
      ? { kind: 'path_prefix', folder: folder ?? '' }
      : call.tool.trustPattern(call.input);
  const expiresAt = timedDecisions.has(decision) ? now + grantDurationsMs[decision as keyof typeof grantDurationsMs] : null;
  const what =
    pattern.kind === 'exact'
      ? `${call.tool.name}: ${call.summary}`
      : pattern.kind === 'command_prefix'
        ? `${call.tool.name}: ${pattern.words.join(' ')} …`
        : `${call.tool.name} ${pattern.folder === '' ? 'anywhere in the workspace' : `in ${pattern.folder}`}`;
  return {
    id: services.newId(),
    tool: call.tool.name,
    pattern,
    workspacePath: setup.workspacePath,
    maxRisk: call.assessment.level,
    sessionId: decision === 'allow_session' ? (setup.rootSessionId ?? setup.sessionId) : null,
    createdAt: now,
    expiresAt,
    revokedAt: null,
    description: escalation ? `${what} (${escalationLabel[escalation.kind]})` : what,
    ...(escalation ? { escalation: escalation.kind } : {}),
  };
}
