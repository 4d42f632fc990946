/*
 * The audit in the History tab: every decision of the session in order (gates, their answers, calls run without
 * asking, grants), exported as JSON or CSV.
 */

import { useEffect, useState } from 'react';
import { auditCsv, auditJson, type AuditRow, type SessionAudit } from '../../../shared/audit';
import { useLifetime } from '../disposables';
import { download } from '../download';
import { useAppState, type AppStore } from '../store';
import { RiskBadge } from '../tool-calls/ToolCard';

const kindLabels: Readonly<Record<AuditRow['kind'], string>> = {
  gate: 'Gate',
  automatic: 'Ran without asking',
  rule: 'Refused by a rule',
  plan: 'Plan',
  grant_created: 'Trust granted',
  grant_revoked: 'Trust revoked',
  autonomy_changed: 'Autonomy',
  result_review: 'Result held for review',
  budget: 'Budget reached',
};

const answerLabels: Readonly<Record<AuditRow['answer'], string>> = {
  deny: 'Denied',
  allow_once: 'Allowed once',
  allow_5m: 'Allowed for 5 min',
  allow_30m: 'Allowed for 30 min',
  allow_1h: 'Allowed for 1 h',
  allow_5h: 'Allowed for 5 h',
  allow_session: 'Allowed for the session',
  run: 'Ran',
  denied: 'Not run',
  approve: 'Approved',
  reject: 'Rejected',
  refine: 'Sent back to refine',
  not_asked: 'Not asked',
  pending: 'Waiting',
  unanswered: 'Never answered',
  created: 'Created',
  revoked: 'Revoked',
  changed: 'Changed',
  release: 'Let in',
  withhold: 'Withheld',
  continue: 'Continued',
  stop: 'Stopped',
};

const time = (at: number): string => new Date(at).toLocaleString();

/** A file name from the session's title, as the session export makes one. */
const fileStem = (title: string): string =>
  title
    .replace(/[^A-Za-z0-9 _-]+/g, '')
    .trim()
    .slice(0, 60) || 'session';

function AuditItem({ row }: { row: AuditRow }) {
  const subject = row.tool ?? kindLabels[row.kind];
  return (
    <li className="card audit-row" data-kind={row.kind} aria-label={`${kindLabels[row.kind]}: ${subject}`}>
      <div className="row">
        <strong>{kindLabels[row.kind]}</strong>
        {row.tool && <code className="small">{row.tool}</code>}
        {row.risk && <RiskBadge risk={row.risk} />}
        <span className="spacer" />
        <span className="muted small">{time(row.at)}</span>
      </div>
      {row.summary && <div className="small audit-summary">{row.summary}</div>}
      {row.reason && <div className="muted small">{row.reason}</div>}
      <div className="small" aria-label="Answer">
        {answerLabels[row.answer]}
        {row.answerReason ? `: “${row.answerReason}”` : ''} · by {row.decidedBy.label}
        {row.decidedAt !== null && row.decidedAt !== row.at ? ` at ${time(row.decidedAt)}` : ''}
      </div>
      <div className="muted small" aria-label="Policy">
        {row.policy}
      </div>
    </li>
  );
}

/** Every decision of the session, in order, with its export as JSON or CSV. */
export function AuditContent({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const status = useAppState(store, (state) => state.sessions.find((session) => session.id === sessionId)?.status);
  const gate = useAppState(store, (state) => state.views[sessionId]?.pendingApproval?.approvalId ?? null);
  const [audit, setAudit] = useState<SessionAudit | null>(null);
  const lifetime = useLifetime();
  const refresh = (): void =>
    void store.attempt(async () => {
      const found = await store.call('audit:list', { sessionId });
      setAudit(found);
    });
  // Looked at again when a gate opens or the session's state changes (a turn ends, a gate is answered), not at every streamed piece.
  useEffect(refresh, [store, sessionId, status, gate]);
  if (!audit) return <p className="muted small">Reading the session’s decisions…</p>;
  const stem = `${fileStem(audit.session.title)}.audit`;
  return (
    <div className="audit">
      <div className="row">
        <span className="muted small">
          {audit.rows.length} decision{audit.rows.length === 1 ? '' : 's'}
        </span>
        <span className="spacer" />
        <button type="button" onClick={refresh}>
          Refresh
        </button>
        <button type="button" onClick={() => download(lifetime.current, `${stem}.json`, auditJson(audit, Date.now()))}>
          Export JSON
        </button>
        <button type="button" onClick={() => download(lifetime.current, `${stem}.csv`, auditCsv(audit.rows), 'text/csv;charset=utf-8')}>
          Export CSV
        </button>
      </div>
      {audit.rows.length === 0 ? (
        <p className="muted small">No decisions yet: gates, their answers and every call the agent ran appear here.</p>
      ) : (
        <ol className="audit-list" aria-label="Decisions">
          {audit.rows.map((row, index) => (
            <AuditItem key={`${row.seq ?? 'r'}-${index}`} row={row} />
          ))}
        </ol>
      )}
    </div>
  );
}
