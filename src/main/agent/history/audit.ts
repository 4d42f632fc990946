/*
 * The audit of a session: every decision of it, in the order it was made, as a fold over its journal. The rows
 * themselves are built in audit-rows.ts and audit-reviews.ts; this file keeps what the fold remembers as it reads.
 */

import type { AuditRow } from '../../../shared/audit';
import type { Autonomy, TrustGrant } from '../../../shared/domain';
import { BugError } from '../../../shared/errors';
import type { RuntimeEvent } from '../../../shared/events';
import { budgetAnswered, budgetRow, heldRow, reviewed } from './audit-reviews';
import {
  automaticRow,
  autonomyIn,
  autonomyRow,
  gateRow,
  grantRow,
  person,
  planRow,
  ruleRow,
  type AuditedCall,
  type RunRule,
} from './audit-rows';

export { policyRow } from './audit-rows';

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

type EventOf<T extends RuntimeEvent['type']> = Extract<RuntimeEvent, { type: T }>;

const key = (turnId: string, toolCallId: string): string => `${turnId}\0${toolCallId}`;

/** Who answered a gate whose time ran out: the setting, for nobody did. */
const timedOut = { kind: 'rule', id: null, label: 'Nobody: the gate timed out' } as const;

/** What the audit remembers while it reads a journal, and the rows so far. */
class AuditFold {
  private readonly out: AuditRow[] = [];
  private readonly calls = new Map<string, AuditedCall>();
  private readonly gates = new Map<string, AuditRow>();
  private readonly gatedCalls = new Set<string>();
  private readonly startedCalls = new Set<string>();
  private readonly plans = new Map<string, AuditRow>();
  /** The plan approved last in each turn: its steps run on it. */
  private readonly approvedPlan = new Map<string, string>();
  private readonly refusedPlanTurns = new Set<string>();
  private readonly turnAutonomy = new Map<string, Autonomy | null>();
  private readonly madeHere = new Map<string, TrustGrant>();
  private readonly grantsSeen = new Set<string>();
  private autonomy: Autonomy | null = null;

  constructor(private readonly options: AuditOptions) {}

  /** Folds in one journal row. */
  read(seq: number, at: number, event: RuntimeEvent): void {
    switch (event.type) {
      case 'run_started':
        this.turnAutonomy.set(event.turnId, event.autonomy ?? this.autonomy);
        return;
      case 'autonomy_changed':
        this.autonomy = event.to;
        this.out.push(autonomyRow(seq, at, event));
        return;
      case 'tool_call_requested': {
        const { turnId, tool, summary, risk, riskReason } = event;
        this.calls.set(key(turnId, event.toolCallId), { turnId, tool, summary, risk, riskReason });
        return;
      }
      case 'approval_requested':
        return this.gateOpened(seq, at, event);
      case 'approval_answered':
        return this.gateAnswered(at, event);
      case 'trust_grant_created':
        this.madeHere.set(event.grant.id, event.grant);
        this.grantsSeen.add(event.grant.id);
        this.out.push(grantRow(seq, at, event.grant));
        return;
      case 'plan_proposed':
        return this.planProposed(seq, at, event);
      case 'plan_answered':
        return this.planAnswered(at, event);
      case 'tool_call_started':
        return this.callStarted(seq, at, event);
      case 'tool_call_finished':
        return this.callFinished(seq, at, event);
      case 'tool_result_held':
        return this.openOnce(event.reviewId, () =>
          heldRow(seq, at, event, this.calls.get(key(event.turnId, event.toolCallId))?.summary ?? null),
        );
      case 'tool_result_reviewed': {
        const row = this.gates.get(event.reviewId);
        if (row) reviewed(row, event, at);
        return;
      }
      case 'budget_reached':
        return this.openOnce(event.gateId, () => budgetRow(seq, at, event));
      case 'budget_answered': {
        const row = this.gates.get(event.gateId);
        if (row) budgetAnswered(row, event, at);
        return;
      }
      case 'run_finished':
        return this.turnEnded(event);
      // Events that decide nothing.
      case 'user_message':
      case 'branch_started':
      case 'checkpoint_recovered':
      case 'status_changed':
      case 'assistant_message_started':
      case 'text_delta':
      case 'reasoning_delta':
      case 'model_call_finished':
      case 'tool_output':
      case 'problems_reported':
      case 'check_ran':
      case 'tool_retry_scheduled':
      case 'checkpoint_saved':
      case 'context_measured':
      case 'context_compacted':
      case 'context_truncated':
      case 'files_snapshotted':
      case 'files_restored':
      case 'git_committed':
      case 'worktree_created':
      case 'worktree_brought_back':
      case 'worktree_removed':
      case 'session_imported':
      case 'message_queued':
      case 'queue_cleared':
      case 'memories_recalled':
      case 'model_fallback_used':
      case 'model_retry_scheduled':
        return;
      default: {
        // The journal is parsed by its schema before it is folded, so only a type left out above lands here.
        const unhandled: never = event;
        throw new BugError(`The audit has no case for ${JSON.stringify(unhandled)}.`);
      }
    }
  }

  /** The rows, with the revocations of the grants seen placed among them. */
  rows(): AuditRow[] {
    return withRevocations(this.out, this.grantsSeen, this.options.grant);
  }

  /** A gate that is listed once, however often it is opened again (after a restart it is the same gate). */
  private openOnce(gateId: string, row: () => AuditRow): void {
    if (this.gates.has(gateId)) return;
    const opened = row();
    this.gates.set(gateId, opened);
    this.out.push(opened);
  }

  /** A gate opened, at its turn's autonomy, else (older journals) the level its reason names. */
  private gateOpened(seq: number, at: number, event: EventOf<'approval_requested'>): void {
    this.gatedCalls.add(key(event.turnId, event.toolCallId));
    this.openOnce(event.approvalId, () => gateRow(seq, at, event, this.turnAutonomy.get(event.turnId) ?? autonomyIn(event.reason)));
  }

  /** The person's answer at a gate, and the grant it made. */
  private gateAnswered(at: number, event: EventOf<'approval_answered'>): void {
    const row = this.gates.get(event.approvalId);
    if (!row) return;
    Object.assign(row, {
      answer: event.decision,
      answerReason: event.reason ?? null,
      // A gate whose time ran out was answered by the setting, not by the person.
      decidedBy: event.timedOut ? timedOut : person,
      decidedAt: at,
      grantId: event.grantId ?? null,
    });
  }

  /** A plan shown, at its turn's autonomy. */
  private planProposed(seq: number, at: number, event: EventOf<'plan_proposed'>): void {
    const row = planRow(seq, at, event, this.turnAutonomy.get(event.turnId) ?? null);
    this.plans.set(event.planId, row);
    this.out.push(row);
  }

  /** The person's answer to a plan: an approved plan is what its steps run on. */
  private planAnswered(at: number, event: EventOf<'plan_answered'>): void {
    const row = this.plans.get(event.planId);
    if (event.answer === 'approve') this.approvedPlan.set(event.turnId, event.planId);
    else this.refusedPlanTurns.add(event.turnId);
    const decidedBy = event.timedOut ? timedOut : person;
    if (row) Object.assign(row, { answer: event.answer, answerReason: event.text ?? null, decidedBy, decidedAt: at });
  }

  /** A call that started: a row of its own unless its gate's row already says it was allowed. */
  private callStarted(seq: number, at: number, event: EventOf<'tool_call_started'>): void {
    const callKey = key(event.turnId, event.toolCallId);
    this.startedCalls.add(callKey);
    // A call allowed at its gate is that gate's row.
    if (event.rule === 'approval') return;
    const level = this.turnAutonomy.get(event.turnId) ?? null;
    const rule: RunRule =
      event.rule === 'grant' && event.grantId
        ? { level, grant: { id: event.grantId, stored: this.madeHere.get(event.grantId) ?? this.options.grant(event.grantId) } }
        : event.rule === 'plan'
          ? { level, plan: { id: this.approvedPlan.get(event.turnId) ?? null } }
          : { level };
    if (rule.grant) this.grantsSeen.add(rule.grant.id);
    this.out.push(automaticRow(seq, at, event, this.calls.get(callKey), rule));
  }

  /** Refused by a rule: denied without a gate, before it started, and not as a step of a plan the person turned down. */
  private callFinished(seq: number, at: number, event: EventOf<'tool_call_finished'>): void {
    const callKey = key(event.turnId, event.toolCallId);
    const decidedElsewhere = this.gatedCalls.has(callKey) || this.startedCalls.has(callKey) || this.refusedPlanTurns.has(event.turnId);
    if (event.status !== 'denied' || decidedElsewhere) return;
    this.out.push(ruleRow(seq, at, event, this.calls.get(callKey)));
  }

  /** What still waits when its turn ends was never answered. */
  private turnEnded(event: EventOf<'run_finished'>): void {
    for (const row of [...this.gates.values(), ...this.plans.values()]) {
      if (row.turnId !== event.turnId || row.answer !== 'pending') continue;
      Object.assign(row, {
        answer: 'unanswered',
        answerReason: `The turn ended (${event.status}) first.`,
        decidedBy: { kind: 'person', id: null, label: 'Nobody' },
      });
    }
  }
}

/**
 * Every decision of a session, in the order it was made: a pure fold over its journal (every branch), with the
 * trust store consulted only for what the journal does not hold (a grant made in another session, a revocation).
 * The autonomy of a decision is the one its turn started with (recorded on `run_started`); for journals from
 * before that was recorded, the last change of autonomy, else the level named in the gate's reason.
 */
export function auditOf(rows: Iterable<AuditedRow>, options: AuditOptions): AuditRow[] {
  const fold = new AuditFold(options);
  for (const { seq, at, event } of rows) fold.read(seq, at, event);
  return fold.rows();
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
