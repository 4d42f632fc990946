/*
 * The details panel on the right, in tabs: the plan and its progress, every tool call, the file changes, the history
 * and audit, and memories.
 */

import { useState } from 'react';
import type { RightTab } from '../layout';
import type { ViewToolCall } from '../../../shared/session-view';
import { useAppState, type AppStore } from '../store';
import { revealToolCall } from '../conversation/follow-scroll';
import { AuditContent } from './AuditPanel';
import { ChangesContent } from './ChangesPanel';
import { HistoryContent } from './HistoryPanel';
import { MemoryContent } from './MemoryPanel';
import { PlanCard } from '../gates/PlanCard';
import { PlanGraph } from '../sub-agents/PlanSteps';
import { PersonTerminal } from './PersonTerminal';
import { RiskBadge, toolStateLabel } from '../tool-calls/ToolCard';

function ToolList({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const messages = useAppState(store, (state) => state.views[sessionId]?.messages);
  const calls: ViewToolCall[] = (messages ?? []).flatMap((message) => message.toolCalls);
  if (calls.length === 0) return <p className="muted small">The agent’s tool calls appear here.</p>;
  return (
    <ol className="tool-list" aria-label="Tool executions">
      {calls.map((call) => (
        <li key={call.id} data-state={call.state}>
          <button type="button" className="tool-row" onClick={() => revealToolCall(call.id)}>
            <span className={`state-dot dot-${call.state}`} aria-hidden="true" />
            <span className="tool-name">{call.tool}</span>
            <span className="tool-summary">{call.summary}</span>
            <RiskBadge risk={call.risk} />
            <span className="small">{toolStateLabel(call.state)}</span>
            {call.latencyMs !== null && (
              <span className="muted small">
                {call.latencyMs < 1000 ? `${Math.round(call.latencyMs)} ms` : `${(call.latencyMs / 1000).toFixed(1)} s`}
              </span>
            )}
          </button>
        </li>
      ))}
    </ol>
  );
}

function PlanTab({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const plan = useAppState(store, (state) => state.views[sessionId]?.plan ?? null);
  // The latest plan run as a graph, drawn stage by stage: the message it is in is the same while it runs.
  const graph = useAppState(store, (state) => {
    const messages = state.views[sessionId]?.messages ?? [];
    for (let index = messages.length - 1; index >= 0; index -= 1) {
      const call = messages[index]?.toolCalls.findLast((candidate) => candidate.tool === 'run_plan');
      if (call) return call;
    }
    return null;
  });
  if (!plan && !graph)
    return (
      <p className="muted small">
        When a response has several tool calls, or runs a plan as a graph, its plan shows here with each step’s progress.
      </p>
    );
  return (
    <>
      {graph && (
        <PlanGraph
          input={graph.input}
          run={{ store, sessionId, toolCallId: graph.id, running: graph.state === 'running', output: graph.output }}
        />
      )}
      {plan && <PlanCard store={store} sessionId={sessionId} plan={plan} />}
    </>
  );
}

/** The session's history: its checkpoints to go back to, or every decision made in it (the audit). */
function HistoryTab({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const [view, setView] = useState<'checkpoints' | 'decisions'>('checkpoints');
  return (
    <>
      <div className="segmented small" role="group" aria-label="History view">
        <button type="button" aria-pressed={view === 'checkpoints'} onClick={() => setView('checkpoints')}>
          Checkpoints
        </button>
        <button type="button" aria-pressed={view === 'decisions'} onClick={() => setView('decisions')}>
          Decisions (audit)
        </button>
      </div>
      {view === 'checkpoints' ? (
        <HistoryContent store={store} sessionId={sessionId} />
      ) : (
        <AuditContent store={store} sessionId={sessionId} />
      )}
    </>
  );
}

const tabs: ReadonlyArray<{ id: RightTab; label: string }> = [
  { id: 'plan', label: 'Plan' },
  { id: 'tools', label: 'Tools' },
  { id: 'changes', label: 'Changes' },
  { id: 'history', label: 'History' },
  { id: 'memory', label: 'Memory' },
  { id: 'terminal', label: 'Terminal' },
];

/** The right side: the plan with its progress, every tool execution, the changes to the files, the checkpoint timeline, and memories. */
export function RightPanel({
  store,
  sessionId,
  tab,
  onTab,
  onClose,
}: {
  store: AppStore;
  sessionId: string;
  tab: RightTab;
  onTab: (tab: RightTab) => void;
  onClose: () => void;
}) {
  return (
    <aside className="right-panel" aria-label="Details" data-region="details">
      <div className="tabs row">
        <div className="tab-list row" role="tablist" aria-label="Details">
          {tabs.map((item) => (
            <button
              key={item.id}
              type="button"
              role="tab"
              id={`tab-${item.id}`}
              aria-selected={tab === item.id}
              aria-controls={`panel-${item.id}`}
              className={tab === item.id ? 'tab active' : 'tab'}
              onClick={() => onTab(item.id)}
            >
              {item.label}
            </button>
          ))}
        </div>
        <span className="spacer" />
        <button type="button" className="icon" aria-label="Hide details" title="Hide (Ctrl+J)" onClick={onClose}>
          ⇥
        </button>
      </div>
      <div className="tab-panel" role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === 'plan' && <PlanTab store={store} sessionId={sessionId} />}
        {tab === 'tools' && <ToolList store={store} sessionId={sessionId} />}
        {tab === 'changes' && <ChangesContent store={store} sessionId={sessionId} />}
        {tab === 'history' && <HistoryTab store={store} sessionId={sessionId} />}
        {tab === 'memory' && <MemoryContent store={store} sessionId={sessionId} />}
        {tab === 'terminal' && <PersonTerminal store={store} sessionId={sessionId} />}
      </div>
    </aside>
  );
}
