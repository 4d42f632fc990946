/*
 * Trust grants in SQLite, kept across restarts and read from memory at every decision.
 */

import type { Database, Statement } from 'better-sqlite3';
import { escalationKindSchema, grantPatternSchema, riskLevelSchema, type TrustGrant } from '../../shared/domain';
import { NotFoundError } from '../../shared/errors';
import type { SteadyClock } from '../agent/ports/clock';
import type { TrustStore } from '../agent/ports/trust';

interface GrantRow {
  id: string;
  tool: string;
  pattern: string;
  workspace_path: string | null;
  max_risk: string;
  session_id: string | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  description: string;
  escalation: string | null;
  /** Where the grant ends on steady time: null for one without an end (a session's). */
  deadline: number | null;
}

function toGrant(row: GrantRow): TrustGrant {
  return {
    id: row.id,
    tool: row.tool,
    pattern: grantPatternSchema.parse(JSON.parse(row.pattern)),
    workspacePath: row.workspace_path,
    maxRisk: riskLevelSchema.parse(row.max_risk),
    sessionId: row.session_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    description: row.description,
    ...(row.escalation === null ? {} : { escalation: escalationKindSchema.parse(row.escalation) }),
  };
}

/**
 * Trust grants in SQLite, so they survive a restart and still fail closed at their expiry. The
 * grants not revoked are read once and kept (every call's decision asks for them); a change here
 * reads them again, and expiry is checked on every ask: by the wall clock, and on steady time, so that
 * setting the clock back revives no grant (within a run or across a restart).
 */
export class SqliteTrustStore implements TrustStore {
  private unrevoked: { grant: TrustGrant; deadline: number | null }[] | null = null;

  private readonly statements: {
    insert: Statement<[GrantRow]>;
    get: Statement<[string], GrantRow>;
    unrevoked: Statement<[], GrantRow>;
    revoke: Statement<[number, string]>;
  };

  constructor(
    db: Database,
    private readonly steady: SteadyClock,
  ) {
    this.statements = {
      insert: db.prepare(
        'INSERT INTO trust_grants (id, tool, pattern, workspace_path, max_risk, session_id, created_at, expires_at, revoked_at, description, escalation, deadline) VALUES (@id, @tool, @pattern, @workspace_path, @max_risk, @session_id, @created_at, @expires_at, @revoked_at, @description, @escalation, @deadline)',
      ),
      get: db.prepare('SELECT * FROM trust_grants WHERE id = ?'),
      unrevoked: db.prepare('SELECT * FROM trust_grants WHERE revoked_at IS NULL ORDER BY created_at, id'),
      revoke: db.prepare('UPDATE trust_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    };
  }

  create(grant: TrustGrant): TrustGrant {
    // Read again next time: the insert may yet be rolled back with the step it belongs to.
    this.unrevoked = null;
    this.statements.insert.run({
      id: grant.id,
      tool: grant.tool,
      pattern: JSON.stringify(grant.pattern),
      workspace_path: grant.workspacePath,
      max_risk: grant.maxRisk,
      session_id: grant.sessionId,
      created_at: grant.createdAt,
      expires_at: grant.expiresAt,
      revoked_at: grant.revokedAt,
      description: grant.description,
      escalation: grant.escalation ?? null,
      // As long on steady time as it is on the wall clock from its making.
      deadline: grant.expiresAt === null ? null : Math.ceil(this.steady.now() + Math.max(0, grant.expiresAt - grant.createdAt)),
    });
    return grant;
  }

  listActive(now: number): TrustGrant[] {
    this.unrevoked ??= this.statements.unrevoked.all().map((row) => ({ grant: toGrant(row), deadline: row.deadline }));
    const steadyNow = this.unrevoked.some((kept) => kept.deadline !== null) ? this.steady.now() : 0;
    return this.unrevoked
      .filter(({ grant, deadline }) => grant.expiresAt === null || (grant.expiresAt > now && (deadline === null || deadline > steadyNow)))
      .map((kept) => kept.grant);
  }

  forgetSession(sessionId: string): void {
    if (this.unrevoked?.some(({ grant }) => grant.sessionId === sessionId)) this.unrevoked = null;
  }

  find(grantId: string): TrustGrant | null {
    const row = this.statements.get.get(grantId);
    return row ? toGrant(row) : null;
  }

  revoke(grantId: string, at: number): TrustGrant {
    const row = this.statements.get.get(grantId);
    if (!row) throw new NotFoundError('Trust grant', grantId);
    this.statements.revoke.run(at, grantId);
    this.unrevoked = null;
    return toGrant(this.statements.get.get(grantId) as GrantRow);
  }
}
