/*
 * The rows of the sessions and branches tables, and what they mean.
 */

import {
  autonomySchema,
  branchReasonSchema,
  sessionStatusSchema,
  subAgentLinkSchema,
  type Branch,
  type Session,
} from '../../shared/domain';
import type { NewSession } from '../agent/ports/stores';

export interface SessionRow {
  id: string;
  title: string;
  workspace_path: string | null;
  model_provider_id: string | null;
  model_name: string | null;
  autonomy: string;
  status: string;
  created_at: number;
  updated_at: number;
  /** A sub-agent's parent session, and its link as JSON (see `SubAgentLink`); null for a session the person started. */
  parent_session_id: string | null;
  sub_agent: string | null;
}

export interface BranchRow {
  session_id: string;
  id: string;
  parent_id: string | null;
  fork_seq: number;
  checkpoint_id: string | null;
  reason: string;
  created_at: number;
  active_at: number;
}

export function toBranch(row: BranchRow): Branch {
  return {
    id: row.id,
    parentId: row.parent_id,
    forkSeq: row.fork_seq,
    checkpointId: row.checkpoint_id,
    reason: branchReasonSchema.parse(row.reason),
    createdAt: row.created_at,
    activeAt: row.active_at,
  };
}

export function toSession(row: SessionRow): Session {
  return {
    id: row.id,
    title: row.title,
    workspacePath: row.workspace_path,
    model: row.model_provider_id !== null && row.model_name !== null ? { providerId: row.model_provider_id, model: row.model_name } : null,
    autonomy: autonomySchema.parse(row.autonomy),
    status: sessionStatusSchema.parse(row.status),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.sub_agent === null ? {} : { subAgent: subAgentLinkSchema.parse(JSON.parse(row.sub_agent)) }),
  };
}

/** A new session's row. */
export function sessionRow(session: NewSession & { readonly status?: Session['status']; readonly updatedAt?: number }): SessionRow {
  return {
    id: session.id,
    title: session.title,
    workspace_path: session.workspacePath,
    model_provider_id: session.model?.providerId ?? null,
    model_name: session.model?.model ?? null,
    autonomy: session.autonomy,
    status: session.status ?? 'idle',
    created_at: session.createdAt,
    updated_at: session.updatedAt ?? session.createdAt,
    parent_session_id: session.subAgent?.parentSessionId ?? null,
    sub_agent: session.subAgent ? JSON.stringify(session.subAgent) : null,
  };
}
