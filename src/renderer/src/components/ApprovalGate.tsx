import { useState } from 'react';
import type { ApprovalDecision } from '../../../shared/domain';
import type { ViewApproval } from '../../../shared/session-view';
import type { AppStore } from '../store';
import { DiffView } from './DiffView';
import { RiskBadge } from './ToolCard';

const timed: Array<{ decision: ApprovalDecision; label: string }> = [
  { decision: 'allow_5m', label: '5 min' },
  { decision: 'allow_30m', label: '30 min' },
  { decision: 'allow_1h', label: '1 h' },
  { decision: 'allow_5h', label: '5 h' },
  { decision: 'allow_session', label: 'This session' },
];

/** The gate a call waits at: the tool, its arguments, its risk and why, and every answer. */
export function ApprovalGate({ store, approval }: { store: AppStore; approval: ViewApproval }) {
  const [reason, setReason] = useState('');
  const answer = (decision: ApprovalDecision): void => {
    void store.attempt(() => store.call('approval:answer', { approvalId: approval.approvalId, decision, ...(decision === 'deny' && reason.trim() ? { reason: reason.trim() } : {}) }));
  };
  const destructive = approval.risk === 'destructive';
  return (
    <section className="gate" role="region" aria-label="Approval needed">
      <header className="row">
        <strong>Approve {approval.tool}?</strong>
        <RiskBadge risk={approval.risk} />
        <span className="muted small">{approval.reason}</span>
      </header>
      <p className="gate-summary">{approval.summary}</p>
      {approval.preview ? <DiffView diff={approval.preview} label="Changes" /> : <pre className="tool-input">{JSON.stringify(approval.input, null, 2)}</pre>}
      <div className="row">
        <input aria-label="Reason for denying" placeholder="Reason (optional, told to the model)" value={reason} maxLength={4000} onChange={(event) => setReason(event.target.value)} />
        <button type="button" className="danger" onClick={() => answer('deny')}>
          Deny
        </button>
        <button type="button" className="primary" onClick={() => answer('allow_once')}>
          Allow once
        </button>
        {!destructive && (
          <span className="row" role="group" aria-label="Allow for">
            <span className="muted small">Allow for</span>
            {timed.map((option) => (
              <button key={option.decision} type="button" onClick={() => answer(option.decision)}>
                {option.label}
              </button>
            ))}
          </span>
        )}
        {destructive && <span className="muted small">Destructive actions are approved one at a time.</span>}
      </div>
    </section>
  );
}
