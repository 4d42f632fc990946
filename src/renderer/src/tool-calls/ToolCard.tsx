/*
 * One tool call's card in the conversation: its risk and state, its arguments or diff, its output, and why it did not
 * run.
 */

import { useEffect, useState, type ReactNode } from 'react';
import type { ViewToolCall } from '../../../shared/session-view';
import { DiffView } from './DiffView';
import { InjectionSigns, injectionNote } from '../gates/ResultReview';
import { TerminalView } from './TerminalView';

const stateLabels: Record<ViewToolCall['state'], string> = {
  requested: 'proposed',
  waiting: 'waiting for you',
  running: 'running…',
  interrupted: 'cut off when the app stopped',
  succeeded: 'done',
  failed: 'failed',
  denied: 'denied',
  cancelled: 'stopped',
};

/** A tool call's state, in words. */
export const toolStateLabel = (state: ViewToolCall['state']): string => stateLabels[state];

/** A call's risk, as a badge coloured by it. */
export function RiskBadge({ risk }: { risk: ViewToolCall['risk'] }) {
  return <span className={`risk risk-${risk}`}>{risk.replace('_', ' ')}</span>;
}

/**
 * Who said no to a call, and why, from what the model was told ("Not run: …"): the person at the gate or in the plan,
 * a setting, or a rule of the app.
 */
export function denialText(output: string): string {
  const said = (output.split('\n')[0] ?? '').replace(/^Not run: /, '').slice(0, 400);
  const gate = /^the user denied this call(?:: ([\s\S]*)|\.)$/.exec(said);
  if (gate) return gate[1] ? `You denied it: “${gate[1]}”` : 'You denied it.';
  const plan = /^the user rejected the plan(?:: ([\s\S]*)|\.)$/.exec(said);
  if (plan) return plan[1] ? `You rejected the plan: “${plan[1]}”` : 'You rejected the plan.';
  if (said.startsWith('the user asked for a different plan')) return 'You asked for a different plan.';
  return `Not run: ${said}`;
}

/** A finished command's exit code, from the `[exit code N]` line its result ends with. */
export function exitCodeOf(output: string): number | null {
  const codes = [...output.matchAll(/\[exit code (-?\d+)\]/g)];
  const last = codes.at(-1)?.[1];
  return last === undefined ? null : Number(last);
}

/** One tool call inline in the conversation: what it is, its risk, its state, its output. */
export function ToolCard({ call, children }: { call: ViewToolCall; children?: ReactNode }) {
  const [open, setOpen] = useState(call.state === 'running' || call.state === 'failed');
  // A call opens when it starts running or fails, so its output is in view; a command that finished well folds to its
  // one line with the exit code. The person can open or close any of them.
  useEffect(() => {
    if (call.state === 'running' || call.state === 'failed') setOpen(true);
    else if (call.state === 'succeeded' && call.tool === 'run_command') setOpen(false);
  }, [call.state, call.tool]);
  const finished = call.state === 'succeeded' || call.state === 'failed';
  const exitCode = call.tool === 'run_command' && finished ? exitCodeOf(call.output) : null;
  const denial = call.state === 'denied' ? denialText(call.output) : null;
  return (
    <section className={`tool-card tool-${call.state}`} id={`tool-${call.id}`} aria-label={`Tool ${call.tool}`} data-state={call.state}>
      <button type="button" className="tool-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="tool-name">{call.tool}</span>
        <span className="tool-summary">{call.summary}</span>
        <RiskBadge risk={call.risk} />
        <span className="tool-state">{stateLabels[call.state]}</span>
        {exitCode !== null && <span className={exitCode === 0 ? 'exit-code' : 'exit-code exit-failed'}>exit {exitCode}</span>}
        {call.latencyMs !== null && call.state !== 'denied' && (
          <span className="muted small">
            {call.latencyMs < 1000 ? `${Math.round(call.latencyMs)} ms` : `${(call.latencyMs / 1000).toFixed(1)} s`}
          </span>
        )}
      </button>
      {call.changedByPerson !== undefined && (
        <details className="tool-changed small">
          <summary>You changed this before allowing it: your version ran</summary>
          <pre>{call.changedByPerson}</pre>
        </details>
      )}
      {children}
      {denial !== null && (
        <p className="tool-denial small" aria-label="Why it did not run">
          {denial}
        </p>
      )}
      {call.retry && (
        <p className="tool-retry small" aria-label="Retried" title={call.retry.detail}>
          Try {call.retry.attempt} of {call.retry.of} failed ({call.retry.reason}); tried again.
        </p>
      )}
      {call.injection && (
        <div
          className={`tool-injection small injection-${call.injection.review ?? 'marked'}`}
          role="note"
          aria-label="Possible prompt injection"
        >
          <p>{injectionNote(call.injection)}</p>
          {open && <InjectionSigns signs={call.injection.signs} />}
        </div>
      )}
      {open && (
        <div className="tool-body">
          {call.preview ? (
            <DiffView diff={call.preview} label="Changes" />
          ) : (
            <pre className="tool-input" aria-label="Arguments">
              {JSON.stringify(call.input, null, 2)}
            </pre>
          )}
          {call.output.length > 0 &&
            (call.tool === 'run_command' ? (
              <TerminalView output={call.output} total={call.outputTotal} epoch={call.outputEpoch} label="Terminal output" />
            ) : (
              <pre className="tool-output" aria-label="Output">
                {call.output}
              </pre>
            ))}
          {call.truncated && (
            <p className="muted small">
              Long output: the model was given the start and the end of the {call.outputBytes.toLocaleString()} bytes kept.
            </p>
          )}
        </div>
      )}
    </section>
  );
}
