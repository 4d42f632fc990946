/*
 * The approval gate: a tool call waiting for the person, with its arguments or diff, its risk and why, and every
 * answer with its shortcut.
 *
 * A call that asks for more than the sandbox is allowed once at a time; trusting it for a while is a separate, plainly
 * worded choice.
 */

import { useRef, useState } from 'react';
import type { ApprovalDecision, EscalationKind } from '../../../shared/domain';
import type { ViewApproval } from '../../../shared/session-view';
import { modalOpen } from '../chrome/top-layer';
import { useDisposables } from '../disposables';
import type { AppStore } from '../store';
import { DiffView } from '../tool-calls/DiffView';
import { GateCountdown } from './GateCountdown';
import { PlanSteps } from '../sub-agents/PlanSteps';
import { RiskBadge } from '../tool-calls/ToolCard';

const timed: Array<{ decision: ApprovalDecision; label: string; key: string }> = [
  { decision: 'allow_5m', label: '5 min', key: '1' },
  { decision: 'allow_30m', label: '30 min', key: '2' },
  { decision: 'allow_1h', label: '1 h', key: '3' },
  { decision: 'allow_5h', label: '5 h', key: '4' },
  { decision: 'allow_session', label: 'This session', key: 's' },
];

/** The text of the call's input the person may change at the gate, or null when there is none. */
function editableText(approval: ViewApproval): string | null {
  const field = approval.editableField;
  const input = approval.input;
  if (field === null || typeof input !== 'object' || input === null) return null;
  const value = (input as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : null;
}

/** What an escalation asks for, as the gate names it. */
export const escalationTitles: Record<EscalationKind, string> = { network: 'Network access', no_sandbox: 'No sandbox' };

/**
 * The gate a call waits at: the tool, its arguments, its risk and why, and every answer. A call that asks for more
 * than the sandbox (an escalation) is answered with Deny or Allow once; trusting the escalation for a while is a
 * separate, plainly worded choice, never one of the usual durations, and none is offered for a destructive call.
 */
export function ApprovalGate({ store, approval }: { store: AppStore; approval: ViewApproval }) {
  const [reason, setReason] = useState('');
  // What a timed or session grant covers: this call (its usual pattern), or the tool in a folder the gate offers.
  const [scope, setScope] = useState<string | null>(null);
  const scopeValue = scope === null ? 'call' : `in:${scope}`;
  // The content the model proposed, when the person may change it here (a write's content, an edit's new text).
  const proposed = editableText(approval);
  const [draft, setDraft] = useState<string | null>(null);
  const changed = draft !== null && proposed !== null && draft !== proposed;
  const answer = (decision: ApprovalDecision, trustEscalation = false): void => {
    const grant = decision !== 'deny' && decision !== 'allow_once' && !trustEscalation;
    void store.attempt(() =>
      store.call('approval:answer', {
        approvalId: approval.approvalId,
        decision,
        ...(decision === 'deny' && reason.trim() ? { reason: reason.trim() } : {}),
        ...(trustEscalation ? { trustEscalation: true as const } : {}),
        ...(grant && scope !== null ? { folder: scope } : {}),
        ...(decision !== 'deny' && changed ? { content: draft } : {}),
      }),
    );
  };
  const destructive = approval.risk === 'destructive';
  const { escalation } = approval;
  const reasonBox = useRef<HTMLInputElement>(null);
  // Alt+A allows once, Alt+D denies (with the reason typed so far), Alt+1..4 and Alt+S allow for a while; at an
  // escalation gate the durations have no shortcut, so a grant for it is never one keypress away.
  const once = destructive || escalation !== null;
  const keys = useRef({ answer, once });
  keys.current = { answer, once };
  useDisposables(
    (disposables) => {
      disposables.listen(window, 'keydown', (event: KeyboardEvent) => {
        if (!event.altKey || event.ctrlKey || event.metaKey || modalOpen()) return;
        const key = event.key.toLowerCase();
        const { answer: act, once } = keys.current;
        if (key === 'a') act('allow_once');
        else if (key === 'd') act('deny');
        else if (key === 'r') reasonBox.current?.focus();
        else {
          const option = once ? undefined : timed.find((candidate) => candidate.key === key);
          if (!option) return;
          act(option.decision);
        }
        event.preventDefault();
      });
    },
    [approval.approvalId],
  );
  return (
    <section className="gate" role="region" aria-label="Approval needed" data-region="gate">
      <header className="row">
        <strong>Approve {approval.tool}?</strong>
        <RiskBadge risk={approval.risk} />
        <span className="muted small">{approval.reason}</span>
        <GateCountdown deadline={approval.deadline} />
      </header>
      {escalation && (
        <p className="gate-escalation" role="note" aria-label="Escalation">
          <strong>{escalationTitles[escalation.kind]}:</strong> this call {escalation.reason}. Allowing it allows this call only.
        </p>
      )}
      <p className="gate-summary">{approval.summary}</p>
      {approval.tool === 'run_plan' ? (
        <PlanSteps input={approval.input} />
      ) : approval.preview ? (
        <DiffView diff={approval.preview} label="Changes" />
      ) : (
        <pre className="tool-input">{JSON.stringify(approval.input, null, 2)}</pre>
      )}
      {proposed !== null && (
        <GateEdit approvalId={approval.approvalId} field={approval.editableField} proposed={proposed} draft={draft} onDraft={setDraft} />
      )}
      <div className="row">
        <input
          ref={reasonBox}
          aria-label="Reason for denying"
          aria-keyshortcuts="Alt+R"
          placeholder="Reason (optional, told to the model)"
          value={reason}
          maxLength={4000}
          onChange={(event) => setReason(event.target.value)}
        />
        <button type="button" className="danger" aria-keyshortcuts="Alt+D" title="Deny (Alt+D)" onClick={() => answer('deny')}>
          Deny
        </button>
        <button type="button" className="primary" aria-keyshortcuts="Alt+A" title="Allow once (Alt+A)" onClick={() => answer('allow_once')}>
          Allow once
        </button>
        {!once && (
          <span className="row" role="group" aria-label="Allow for">
            {approval.folders.length > 0 && (
              <select
                className="grant-scope"
                aria-label="What the grant covers"
                title="A grant for a while can cover this call alone, or this tool on any path in a folder"
                value={scopeValue}
                onChange={(event) => setScope(event.target.value.startsWith('in:') ? event.target.value.slice(3) : null)}
              >
                <option value="call">{`This call (${approval.summary.slice(0, 40)})`}</option>
                {approval.folders.map((folder) => (
                  <option key={folder} value={`in:${folder}`}>
                    {folder === '' ? `${approval.tool} anywhere in the workspace` : `${approval.tool} in ${folder}`}
                  </option>
                ))}
              </select>
            )}
            <span className="muted small">Allow for</span>
            {timed.map((option) => (
              <button
                key={option.decision}
                type="button"
                aria-keyshortcuts={`Alt+${option.key.toUpperCase()}`}
                title={`${option.label} (Alt+${option.key.toUpperCase()})`}
                onClick={() => answer(option.decision)}
              >
                {option.label}
              </button>
            ))}
          </span>
        )}
        {destructive && <span className="muted small">Destructive actions are approved one at a time.</span>}
      </div>
      {escalation?.kind === 'network' && !destructive && (
        <div className="row gate-trust-escalation" role="group" aria-label="Trust network access for this command">
          <span className="small">Trust network access for this command for</span>
          {timed.map((option) => (
            <button key={option.decision} type="button" onClick={() => answer(option.decision, true)}>
              {option.label}
            </button>
          ))}
        </div>
      )}
    </section>
  );
}

/** The content the model proposed, for the person to change before allowing the call: closed, or open in a text box. */
function GateEdit({
  approvalId,
  field,
  proposed,
  draft,
  onDraft,
}: {
  approvalId: string;
  field: string | null;
  proposed: string;
  draft: string | null;
  onDraft: (draft: string | null) => void;
}) {
  const changed = draft !== null && draft !== proposed;
  return draft === null ? (
    <div className="row">
      <button type="button" onClick={() => onDraft(proposed)}>
        Edit before approving…
      </button>
    </div>
  ) : (
    <div className="gate-edit">
      <label className="small" htmlFor={`edit-${approvalId}`}>
        {field === 'content' ? 'The file’s content' : 'The new text'}, as it will be written if you allow it. The model is told you changed
        it and sees your version.
      </label>
      <textarea
        id={`edit-${approvalId}`}
        aria-label="Your version"
        value={draft}
        spellCheck={false}
        rows={Math.min(20, Math.max(4, draft.split('\n').length + 1))}
        onChange={(event) => onDraft(event.target.value)}
      />
      <div className="row">
        <span className="muted small">{changed ? 'Your version runs when you allow the call.' : 'Unchanged so far.'}</span>
        <button type="button" onClick={() => onDraft(null)}>
          Discard my changes
        </button>
      </div>
    </div>
  );
}
