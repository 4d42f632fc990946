/*
 * The autonomy matrix and the fixed order of rules that decide whether a call runs, asks or is denied.
 */
import type { Autonomy, RiskLevel, TrustGrant } from '../../../shared/domain';
import { escalationCovers, riskRank } from '../../../shared/domain';
import { restrictedAutonomy } from '../../../shared/folder-trust';
import type { RiskAssessment, Tool } from '../ports/tools';

/** The autonomy matrix of the design: what runs at once, what asks. Destructive always asks. */
export const autonomyMatrix: Readonly<Record<Autonomy, Readonly<Record<RiskLevel, 'run' | 'ask'>>>> = {
  L0: { read_only: 'ask', write_low: 'ask', write_high: 'ask', destructive: 'ask' },
  L1: { read_only: 'run', write_low: 'ask', write_high: 'ask', destructive: 'ask' },
  L2: { read_only: 'run', write_low: 'run', write_high: 'ask', destructive: 'ask' },
  L3: { read_only: 'run', write_low: 'run', write_high: 'run', destructive: 'ask' },
};

export type Decision =
  | { readonly action: 'run'; readonly rule: 'matrix' | 'grant' | 'plan'; readonly reason: string; readonly grantId?: string }
  /** `escalation`: the call asks for more than the sandbox, which no autonomy level runs by itself. */
  | { readonly action: 'ask'; readonly rule: 'matrix' | 'escalation'; readonly reason: string }
  | { readonly action: 'deny'; readonly rule: 'builtin_denial' | 'user_denial'; readonly reason: string };

export interface PolicyContext {
  readonly autonomy: Autonomy;
  readonly sessionId: string;
  /** A sub-agent's: the session the person started at the top of its tree, whose "this session" grants cover it too. */
  readonly rootSessionId?: string;
  readonly workspacePath: string | null;
  readonly now: number;
  /** Tools the person has denied outright, in settings. */
  readonly deniedTools: readonly string[];
  /** Tools this session may not use whatever the person allows (a read-only sub-agent's writers): a built-in denial. */
  readonly outOfReach?: readonly string[];
  readonly grants: readonly TrustGrant[];
  /**
   * The session's folder is not trusted: it runs restricted, at autonomy L1 at most, and no grant counts, so every
   * change asks.
   */
  readonly restricted?: boolean;
}

/** The autonomy that decides: the session's, capped at L1 in a folder the person does not trust. */
export function effectiveAutonomy(autonomy: Autonomy, restricted: boolean | undefined): Autonomy {
  return restricted && riskOfAutonomy(autonomy) > riskOfAutonomy(restrictedAutonomy) ? restrictedAutonomy : autonomy;
}

const riskOfAutonomy = (autonomy: Autonomy): number => Number(autonomy.slice(1));

/** A grant counts only while it is neither revoked nor expired; a session grant only in its session. */
export function grantIsActive(grant: TrustGrant, now: number, sessionId: string | null): boolean {
  if (grant.revokedAt !== null) return false;
  if (grant.sessionId !== null) return grant.sessionId === sessionId;
  return grant.expiresAt !== null && grant.expiresAt > now;
}

/**
 * An ordinary grant covers no escalation. A grant for an escalation covers calls asking for that same one (the
 * same sandbox mode) with the exact arguments it was given for; one stored with a wider pattern (as made
 * before grants for an escalation were exact) covers nothing.
 */
function escalationMatches(grant: TrustGrant, assessment: RiskAssessment): boolean {
  if (grant.escalation === undefined) return escalationCovers(undefined, assessment.escalation?.kind);
  return grant.escalation === assessment.escalation?.kind && grant.pattern.kind === 'exact';
}

/** The active grant that covers a call, if any: same tool, workspace, pattern, at most its risk, and as far as its escalation. */
export function coveringGrant(tool: Tool, input: unknown, assessment: RiskAssessment, context: PolicyContext): TrustGrant | null {
  // A destructive call never runs on a grant.
  if (assessment.level === 'destructive') return null;
  for (const grant of context.grants) {
    if (
      grant.tool === tool.name &&
      (grantIsActive(grant, context.now, context.sessionId) ||
        (context.rootSessionId !== undefined && grantIsActive(grant, context.now, context.rootSessionId))) &&
      grant.workspacePath === context.workspacePath &&
      riskRank(assessment.level) <= riskRank(grant.maxRisk) &&
      escalationMatches(grant, assessment) &&
      tool.covers(grant.pattern, input, context)
    ) {
      return grant;
    }
  }
  return null;
}

/**
 * Decides one call, in the fixed order of the design: built-in denials, then the person's denials,
 * then trust grants, then escalation, then the autonomy matrix. A destructive call never runs on a
 * grant or the matrix, and a call that asks for more than the sandbox never runs on the matrix (nor
 * on a grant made without that escalation): only an answer at its own gate, or its own step of an
 * approved plan (see `approvedInPlan`), runs it.
 */
export function decide(tool: Tool, input: unknown, assessment: RiskAssessment, context: PolicyContext): Decision {
  if (assessment.refused) return { action: 'deny', rule: 'builtin_denial', reason: assessment.refused };
  if (context.outOfReach?.includes(tool.name))
    return {
      action: 'deny',
      rule: 'builtin_denial',
      reason: `${tool.name} is not available here: this sub-agent may only read, or handing work on would go deeper than Settings allow.`,
    };
  if (context.deniedTools.includes(tool.name))
    return { action: 'deny', rule: 'user_denial', reason: `You have denied ${tool.name} in Settings.` };
  const grant = context.restricted ? null : coveringGrant(tool, input, assessment, context);
  if (grant) return { action: 'run', rule: 'grant', reason: `Trusted: ${grant.description}`, grantId: grant.id };
  if (assessment.escalation)
    return { action: 'ask', rule: 'escalation', reason: `${assessment.reason}; ${assessment.escalation.reason}: always asked first` };
  const autonomy = effectiveAutonomy(context.autonomy, context.restricted);
  const cell = assessment.level === 'destructive' ? 'ask' : autonomyMatrix[autonomy][assessment.level];
  const capped = autonomy === context.autonomy ? '' : ' (this folder is not trusted: every change asks)';
  if (cell === 'run') return { action: 'run', rule: 'matrix', reason: `${assessment.reason}; autonomy ${autonomy}${capped} runs it.` };
  return { action: 'ask', rule: 'matrix', reason: `${assessment.reason}; autonomy ${autonomy}${capped} asks first.` };
}
