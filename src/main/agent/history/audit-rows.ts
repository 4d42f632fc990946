/*
 * The audit's rows of the decisions the journal records: a gate, a grant made, a plan, a call the matrix, a grant or
 * a plan let run, a call a rule refused, a change of autonomy; and the policy line that says which rule decided each.
 */

import { counted } from '../../../shared/counts';
import type { AuditDecider, AuditRow } from '../../../shared/audit';
import type { Autonomy, Escalation, RiskLevel, TrustGrant } from '../../../shared/domain';
import type { RuntimeEvent } from '../../../shared/events';
import { autonomyMatrix } from '../rules/policy';

type EventOf<T extends RuntimeEvent['type']> = Extract<RuntimeEvent, { type: T }>;

/** A requested call as the audit remembers it, for the rows of its start or refusal. */
export interface AuditedCall {
  readonly turnId: string;
  readonly tool: string;
  readonly summary: string;
  readonly risk: RiskLevel;
  readonly riskReason: string;
}

const autonomyNames: Readonly<Record<Autonomy, string>> = {
  L0: 'L0 observe',
  L1: 'L1 recommend',
  L2: 'L2 assisted',
  L3: 'L3 supervised',
};

export const person: AuditDecider = { kind: 'person', id: null, label: 'You' };
const waiting: AuditDecider = { kind: 'person', id: null, label: 'Waiting for you' };
const matrix: AuditDecider = { kind: 'matrix', id: null, label: 'Autonomy matrix' };

/** The row of the autonomy matrix (design section 3) that decided a call, in words: "L1 recommend · write_low → ask". */
export function policyRow(autonomy: Autonomy | null, risk: RiskLevel, escalation?: Escalation): string {
  const level = autonomy === null ? 'autonomy not recorded' : autonomyNames[autonomy];
  if (escalation) return `${level} · ${risk} + ${escalation.kind} → ask (more than the sandbox always asks)`;
  if (risk === 'destructive') return `${level} · destructive → ask (always)`;
  return autonomy === null ? `${level} · ${risk}` : `${level} · ${risk} → ${autonomyMatrix[autonomy][risk]}`;
}

/** Which level of the matrix a whole row allows, in words, for a change of autonomy. */
function levelRow(autonomy: Autonomy): string {
  const cells = autonomyMatrix[autonomy];
  const runs = (Object.keys(cells) as RiskLevel[]).filter((risk) => cells[risk] === 'run');
  return `${autonomyNames[autonomy]} · ${runs.length === 0 ? 'nothing' : runs.join(', ')} → run; the rest → ask`;
}

/** A gate's reason names the autonomy that asked ("autonomy L1 asks first"): the fallback for journals that did not record it. */
export function autonomyIn(reason: string): Autonomy | null {
  const found = /autonomy (L[0-3])\b/.exec(reason)?.[1];
  return found === 'L0' || found === 'L1' || found === 'L2' || found === 'L3' ? found : null;
}

/** The columns every row starts from: decided when it happened, with no answer's reason and no grant. */
function base(seq: number, at: number, turnId: string | null, toolCallId: string | null) {
  return { seq, at, turnId, toolCallId, answerReason: null, decidedAt: at, grantId: null };
}

/** A change of autonomy from the status bar. */
export function autonomyRow(seq: number, at: number, event: EventOf<'autonomy_changed'>): AuditRow {
  return {
    ...base(seq, at, null, null),
    kind: 'autonomy_changed',
    tool: null,
    summary: `Autonomy ${event.from} → ${event.to}`,
    risk: null,
    reason: 'Changed from the status bar; a running turn keeps the autonomy it started with.',
    answer: 'changed',
    decidedBy: person,
    policy: levelRow(event.to),
  };
}

/** A gate opened for a call, waiting for the person until its answer is folded in. */
export function gateRow(seq: number, at: number, event: EventOf<'approval_requested'>, level: Autonomy | null): AuditRow {
  return {
    ...base(seq, at, event.turnId, event.toolCallId),
    kind: 'gate',
    tool: event.tool,
    summary: event.summary,
    risk: event.risk,
    reason: event.escalation ? `${event.reason} (${event.escalation.reason})` : event.reason,
    answer: 'pending',
    decidedBy: waiting,
    decidedAt: null,
    policy: policyRow(level, event.risk, event.escalation),
  };
}

/** A trust grant the person made at a gate. */
export function grantRow(seq: number, at: number, grant: TrustGrant): AuditRow {
  return {
    ...base(seq, at, null, null),
    kind: 'grant_created',
    tool: grant.tool,
    summary: grant.description,
    risk: grant.maxRisk,
    reason: grant.expiresAt === null ? 'For this session' : `Until ${new Date(grant.expiresAt).toISOString()}`,
    answer: 'created',
    decidedBy: person,
    policy: `trust grant · ${grant.tool} up to ${grant.maxRisk}${grant.escalation ? ` + ${grant.escalation}` : ''} → run`,
    grantId: grant.id,
  };
}

/** A plan shown: waiting when a step asks first at the turn's autonomy, else run by the matrix. */
export function planRow(seq: number, at: number, event: EventOf<'plan_proposed'>, level: Autonomy | null): AuditRow {
  return {
    ...base(seq, at, event.turnId, null),
    kind: 'plan',
    tool: null,
    summary: `${event.purpose} (${counted(event.steps.length, 'step')}: ${event.steps.map((step) => step.tool).join(', ')})`,
    risk: event.maxRisk,
    reason: event.needsApproval ? 'A step asks first at this autonomy: the whole plan waits.' : 'Every step runs at this autonomy.',
    answer: event.needsApproval ? 'pending' : 'not_asked',
    decidedBy: event.needsApproval ? waiting : matrix,
    decidedAt: event.needsApproval ? null : at,
    policy: `plan · ${policyRow(level, event.maxRisk, event.steps.find((step) => step.escalation)?.escalation)}`,
  };
}

/** What let a call run without a gate: a trust grant, an approved plan, or the matrix. */
export interface RunRule {
  readonly level: Autonomy | null;
  /** The grant it ran on, as the trust store has it (null: no longer stored). */
  readonly grant?: { readonly id: string; readonly stored: TrustGrant | null };
  /** The plan approved last in its turn, when it ran as a step of one (null: not known). */
  readonly plan?: { readonly id: string | null };
}

/** A call that ran without a gate, and what let it. */
export function automaticRow(
  seq: number,
  at: number,
  event: EventOf<'tool_call_started'>,
  call: AuditedCall | undefined,
  rule: RunRule,
): AuditRow {
  const risk = call?.risk ?? 'read_only';
  let decidedBy = matrix;
  let policy = policyRow(rule.level, risk);
  if (rule.grant) {
    const { id, stored } = rule.grant;
    decidedBy = { kind: 'grant', id, label: `Trust grant ${id}: ${stored?.description ?? 'no longer stored'}` };
    policy = `${policyRow(rule.level, risk)}; trust grant → run`;
  } else if (rule.plan) {
    const planId = rule.plan.id;
    decidedBy = { kind: 'plan', id: planId, label: planId ? `Plan approval ${planId}` : 'Plan approval' };
    policy = `${policyRow(rule.level, risk)}; approved plan → run`;
  }
  return {
    ...base(seq, at, event.turnId, event.toolCallId),
    kind: 'automatic',
    tool: call?.tool ?? null,
    summary: call?.summary ?? '',
    risk: call?.risk ?? null,
    reason: call?.riskReason ?? '',
    answer: 'run',
    decidedBy,
    policy,
    grantId: event.rule === 'grant' ? (event.grantId ?? null) : null,
  };
}

/** A call a rule refused before it started: a denial in Settings, or a built-in one. */
export function ruleRow(seq: number, at: number, event: EventOf<'tool_call_finished'>, call: AuditedCall | undefined): AuditRow {
  const reason = event.output.replace(/^Not run: /, '');
  const inSettings = /in Settings/.test(reason);
  return {
    ...base(seq, at, event.turnId, event.toolCallId),
    kind: 'rule',
    tool: call?.tool ?? null,
    summary: call?.summary ?? '',
    risk: call?.risk ?? null,
    reason,
    answer: 'denied',
    decidedBy: { kind: 'rule', id: null, label: inSettings ? 'Your denial in Settings' : 'Built-in rule' },
    policy: inSettings ? 'denied tools (Settings) → deny' : 'built-in denial → deny',
  };
}
