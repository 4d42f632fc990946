import type { AuditDecider, AuditRow } from '../../../shared/audit';
import type { Autonomy, Escalation, RiskLevel, TrustGrant } from '../../../shared/domain';
import type { RuntimeEvent } from '../../../shared/events';
import { autonomyMatrix } from '../rules/policy';
import { budgetAnswered, budgetRow, heldRow, reviewed } from './audit-reviews';

/** A journal row as the fold reads it: every branch's rows, in the order they were written. */
export interface AuditedRow {
  readonly seq: number;
  readonly at: number;
  readonly event: RuntimeEvent;
}

export interface AuditOptions {
  /** A grant by id as the trust store has it now (revoked or not); null when it is gone. */
  readonly grant: (grantId: string) => TrustGrant | null;
}

const autonomyNames: Readonly<Record<Autonomy, string>> = {
  L0: 'L0 observe',
  L1: 'L1 recommend',
  L2: 'L2 assisted',
  L3: 'L3 supervised',
};

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

const person: AuditDecider = { kind: 'person', id: null, label: 'You' };
const waiting: AuditDecider = { kind: 'person', id: null, label: 'Waiting for you' };

interface Call {
  readonly turnId: string;
  readonly tool: string;
  readonly summary: string;
  readonly risk: RiskLevel;
  readonly riskReason: string;
}

/**
 * Every decision of a session, in the order it was made: a pure fold over its journal (every branch), with the
 * trust store consulted only for what the journal does not hold (a grant made in another session, a revocation).
 * The autonomy of a decision is the one its turn started with (recorded on `run_started`); for journals from
 * before that was recorded, the last change of autonomy, else the level named in the gate's reason.
 */
export function auditOf(rows: Iterable<AuditedRow>, options: AuditOptions): AuditRow[] {
  const out: AuditRow[] = [];
  const calls = new Map<string, Call>();
  const gates = new Map<string, AuditRow>();
  const gatedCalls = new Set<string>();
  const startedCalls = new Set<string>();
  const plans = new Map<string, AuditRow>();
  /** The plan approved last in each turn: its steps run on it. */
  const approvedPlan = new Map<string, string>();
  const refusedPlanTurns = new Set<string>();
  const turnAutonomy = new Map<string, Autonomy | null>();
  const madeHere = new Map<string, TrustGrant>();
  const grantsSeen = new Set<string>();
  let autonomy: Autonomy | null = null;

  const key = (turnId: string, toolCallId: string): string => `${turnId}\0${toolCallId}`;
  const grantOf = (grantId: string): TrustGrant | null => madeHere.get(grantId) ?? options.grant(grantId);
  const base = (seq: number, at: number, turnId: string | null, toolCallId: string | null) => ({
    seq,
    at,
    turnId,
    toolCallId,
    answerReason: null,
    decidedAt: at,
    grantId: null,
  });

  for (const { seq, at, event } of rows) {
    switch (event.type) {
      case 'run_started':
        turnAutonomy.set(event.turnId, event.autonomy ?? autonomy);
        break;
      case 'autonomy_changed':
        autonomy = event.to;
        out.push({
          ...base(seq, at, null, null),
          kind: 'autonomy_changed',
          tool: null,
          summary: `Autonomy ${event.from} → ${event.to}`,
          risk: null,
          reason: 'Changed from the status bar; a running turn keeps the autonomy it started with.',
          answer: 'changed',
          decidedBy: person,
          policy: levelRow(event.to),
        });
        break;
      case 'tool_call_requested':
        calls.set(key(event.turnId, event.toolCallId), {
          turnId: event.turnId,
          tool: event.tool,
          summary: event.summary,
          risk: event.risk,
          riskReason: event.riskReason,
        });
        break;
      case 'approval_requested': {
        gatedCalls.add(key(event.turnId, event.toolCallId));
        // A gate opened again after a restart is the same gate: it is listed once.
        if (gates.has(event.approvalId)) break;
        const level = turnAutonomy.get(event.turnId) ?? autonomyIn(event.reason);
        const row: AuditRow = {
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
        gates.set(event.approvalId, row);
        out.push(row);
        break;
      }
      case 'approval_answered': {
        const row = gates.get(event.approvalId);
        if (!row) break;
        Object.assign(row, {
          answer: event.decision,
          answerReason: event.reason ?? null,
          decidedBy: person,
          decidedAt: at,
          grantId: event.grantId ?? null,
        });
        break;
      }
      case 'trust_grant_created': {
        const { grant } = event;
        madeHere.set(grant.id, grant);
        grantsSeen.add(grant.id);
        out.push({
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
        });
        break;
      }
      case 'plan_proposed': {
        const level = turnAutonomy.get(event.turnId) ?? null;
        const row: AuditRow = {
          ...base(seq, at, event.turnId, null),
          kind: 'plan',
          tool: null,
          summary: `${event.purpose} (${event.steps.length} steps: ${event.steps.map((step) => step.tool).join(', ')})`,
          risk: event.maxRisk,
          reason: event.needsApproval ? 'A step asks first at this autonomy: the whole plan waits.' : 'Every step runs at this autonomy.',
          answer: event.needsApproval ? 'pending' : 'not_asked',
          decidedBy: event.needsApproval ? waiting : { kind: 'matrix', id: null, label: 'Autonomy matrix' },
          decidedAt: event.needsApproval ? null : at,
          policy: `plan · ${policyRow(level, event.maxRisk, event.steps.find((step) => step.escalation)?.escalation)}`,
        };
        plans.set(event.planId, row);
        out.push(row);
        break;
      }
      case 'plan_answered': {
        const row = plans.get(event.planId);
        if (event.answer === 'approve') approvedPlan.set(event.turnId, event.planId);
        else refusedPlanTurns.add(event.turnId);
        if (row) Object.assign(row, { answer: event.answer, answerReason: event.text ?? null, decidedBy: person, decidedAt: at });
        break;
      }
      case 'tool_call_started': {
        const callKey = key(event.turnId, event.toolCallId);
        startedCalls.add(callKey);
        // A call allowed at its gate is that gate's row.
        if (event.rule === 'approval') break;
        const call = calls.get(callKey);
        const level = turnAutonomy.get(event.turnId) ?? null;
        const risk = call?.risk ?? 'read_only';
        let decidedBy: AuditDecider = { kind: 'matrix', id: null, label: 'Autonomy matrix' };
        let policy = policyRow(level, risk);
        if (event.rule === 'grant' && event.grantId) {
          grantsSeen.add(event.grantId);
          const grant = grantOf(event.grantId);
          decidedBy = {
            kind: 'grant',
            id: event.grantId,
            label: `Trust grant ${event.grantId}: ${grant?.description ?? 'no longer stored'}`,
          };
          policy = `${policyRow(level, risk)}; trust grant → run`;
        } else if (event.rule === 'plan') {
          const planId = approvedPlan.get(event.turnId) ?? null;
          decidedBy = { kind: 'plan', id: planId, label: planId ? `Plan approval ${planId}` : 'Plan approval' };
          policy = `${policyRow(level, risk)}; approved plan → run`;
        }
        out.push({
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
        });
        break;
      }
      case 'tool_call_finished': {
        const callKey = key(event.turnId, event.toolCallId);
        // Refused by a rule: denied without a gate, before it started, and not as a step of a plan the person turned down.
        if (event.status !== 'denied' || gatedCalls.has(callKey) || startedCalls.has(callKey) || refusedPlanTurns.has(event.turnId)) break;
        const call = calls.get(callKey);
        const reason = event.output.replace(/^Not run: /, '');
        const inSettings = /in Settings/.test(reason);
        out.push({
          ...base(seq, at, event.turnId, event.toolCallId),
          kind: 'rule',
          tool: call?.tool ?? null,
          summary: call?.summary ?? '',
          risk: call?.risk ?? null,
          reason,
          answer: 'denied',
          decidedBy: { kind: 'rule', id: null, label: inSettings ? 'Your denial in Settings' : 'Built-in rule' },
          policy: inSettings ? 'denied tools (Settings) → deny' : 'built-in denial → deny',
        });
        break;
      }
      case 'tool_result_held': {
        if (gates.has(event.reviewId)) break;
        const row = heldRow(seq, at, event, calls.get(key(event.turnId, event.toolCallId))?.summary ?? null);
        gates.set(event.reviewId, row);
        out.push(row);
        break;
      }
      case 'tool_result_reviewed': {
        const row = gates.get(event.reviewId);
        if (row) reviewed(row, event, at);
        break;
      }
      case 'budget_reached': {
        if (gates.has(event.gateId)) break;
        const row = budgetRow(seq, at, event);
        gates.set(event.gateId, row);
        out.push(row);
        break;
      }
      case 'budget_answered': {
        const row = gates.get(event.gateId);
        if (row) budgetAnswered(row, event, at);
        break;
      }
      case 'run_finished':
        // What still waits when its turn ends was never answered.
        for (const row of [...gates.values(), ...plans.values()]) {
          if (row.turnId !== event.turnId || row.answer !== 'pending') continue;
          Object.assign(row, {
            answer: 'unanswered',
            answerReason: `The turn ended (${event.status}) first.`,
            decidedBy: { kind: 'person', id: null, label: 'Nobody' },
          });
        }
        break;
      default:
        break;
    }
  }
  return withRevocations(out, grantsSeen, options.grant);
}

/** A gate's reason names the autonomy that asked ("autonomy L1 asks first"): the fallback for journals that did not record it. */
function autonomyIn(reason: string): Autonomy | null {
  const found = /autonomy (L[0-3])\b/.exec(reason)?.[1];
  return found === 'L0' || found === 'L1' || found === 'L2' || found === 'L3' ? found : null;
}

/** Revocations of the grants the session made or ran on (as the trust store has them now), placed among the journal's rows by time. */
function withRevocations(rows: AuditRow[], grantIds: ReadonlySet<string>, stored: (grantId: string) => TrustGrant | null): AuditRow[] {
  const revoked: AuditRow[] = [];
  for (const grantId of grantIds) {
    const grant = stored(grantId);
    if (!grant || grant.revokedAt === null) continue;
    revoked.push({
      seq: null,
      at: grant.revokedAt,
      kind: 'grant_revoked',
      turnId: null,
      toolCallId: null,
      tool: grant.tool,
      summary: grant.description,
      risk: grant.maxRisk,
      reason: 'Revoked before it expired.',
      answer: 'revoked',
      answerReason: null,
      decidedBy: person,
      decidedAt: grant.revokedAt,
      policy: `trust grant · ${grant.tool} → no longer runs`,
      grantId,
    });
  }
  if (revoked.length === 0) return rows;
  revoked.sort((a, b) => a.at - b.at);
  const merged: AuditRow[] = [];
  let next = 0;
  for (const row of rows) {
    while (next < revoked.length && (revoked[next]?.at ?? Infinity) < row.at) merged.push(revoked[next++] as AuditRow);
    merged.push(row);
  }
  return [...merged, ...revoked.slice(next)];
}
