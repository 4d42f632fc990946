import { useEffect, useState } from 'react';
import type { ViewToolCall } from '../../../shared/session-view';
import { DiffView } from './DiffView';
import { TerminalView } from './TerminalView';

const stateLabels: Record<ViewToolCall['state'], string> = {
  requested: 'proposed',
  waiting: 'waiting for you',
  running: 'running…',
  interrupted: 'cut off when the app stopped',
  succeeded: 'done',
  failed: 'failed',
  denied: 'not run',
  cancelled: 'stopped',
};

export const toolStateLabel = (state: ViewToolCall['state']): string => stateLabels[state];

export function RiskBadge({ risk }: { risk: ViewToolCall['risk'] }) {
  return <span className={`risk risk-${risk}`}>{risk.replace('_', ' ')}</span>;
}

/** One tool call inline in the conversation: what it is, its risk, its state, its output. */
export function ToolCard({ call }: { call: ViewToolCall }) {
  const [open, setOpen] = useState(call.state === 'running' || call.state === 'failed');
  // A call opens when it starts running or fails, so its output is in view; the person can close it again.
  useEffect(() => {
    if (call.state === 'running' || call.state === 'failed') setOpen(true);
  }, [call.state]);
  return (
    <section className={`tool-card tool-${call.state}`} id={`tool-${call.id}`} aria-label={`Tool ${call.tool}`} data-state={call.state}>
      <button type="button" className="tool-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="tool-name">{call.tool}</span>
        <span className="tool-summary">{call.summary}</span>
        <RiskBadge risk={call.risk} />
        <span className="tool-state">{stateLabels[call.state]}</span>
        {call.latencyMs !== null && (
          <span className="muted small">
            {call.latencyMs < 1000 ? `${Math.round(call.latencyMs)} ms` : `${(call.latencyMs / 1000).toFixed(1)} s`}
          </span>
        )}
      </button>
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
