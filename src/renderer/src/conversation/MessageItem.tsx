/*
 * One row of the conversation: a message with its text, tool cards, versions and actions (Copy, Edit, Retry, Restore
 * to here) and, on a turn's last message, the turn's figures; or a summary's divider.
 */

import { CallProblems } from '../tool-calls/CallProblems';
import { useState } from 'react';
import type { BranchPoint } from '../../../shared/branches';
import type { ViewMessage, ViewTurn } from '../../../shared/session-view';
import type { ViewToolDraft } from '../../../shared/tool-call-drafts';
import { useAppState, type AppStore } from '../store';
import { AttachmentChips } from '../panels/FilePreview';
import { FoldedText } from './FoldedText';
import { CopyButton, MessageBody } from './MessageBody';
import { ToolCard } from '../tool-calls/ToolCard';
import { ToolDraftCard } from '../tool-calls/ToolDraftCard';
import { SubAgentLink } from '../sub-agents/SubAgentLink';
import { PlanSteps } from '../sub-agents/PlanSteps';
import { PromptView } from './PromptView';
import { TurnSummary } from './TurnSummary';
import { ErrorDetails } from '../chrome/ErrorDetails';

const stateLabels: Record<ViewMessage['state'], string | null> = {
  streaming: null,
  done: null,
  cancelled: 'Stopped',
  failed: 'Failed',
  interrupted: 'Interrupted: the app stopped while this was running',
};

const reasonLabels: Record<BranchPoint['versions'][number]['reason'], string> = {
  original: 'the original',
  start: 'the original',
  edit: 'an edited message',
  retry: 'a retried answer',
  restore: 'a restored checkpoint',
  import: 'an imported version',
};

/** "‹ 2 / 3 ›": the versions of this message; each opens as it was last seen. */
function BranchSwitcher({
  store,
  sessionId,
  point,
  disabled,
}: {
  store: AppStore;
  sessionId: string;
  point: BranchPoint;
  disabled: boolean;
}) {
  const shown = Math.max(
    0,
    point.versions.findIndex((version) => version.shown),
  );
  const go = (index: number): void => {
    const version = point.versions[index];
    if (!version) return;
    void store.changeLine(sessionId, () => store.call('branch:switch', { sessionId, branchId: version.branchId }));
  };
  return (
    <nav className="branch-switcher" aria-label="Versions of this message">
      <button type="button" className="icon" aria-label="Previous version" disabled={disabled || shown === 0} onClick={() => go(shown - 1)}>
        ‹
      </button>
      <span className="small" title={`This is ${reasonLabels[point.versions[shown]?.reason ?? 'original']}`}>
        {shown + 1} / {point.versions.length}
      </span>
      <button
        type="button"
        className="icon"
        aria-label="Next version"
        disabled={disabled || shown === point.versions.length - 1}
        onClick={() => go(shown + 1)}
      >
        ›
      </button>
    </nav>
  );
}

/** What a message can do and needs to know beyond itself: its session, its place in the turn and the versions. */
export interface MessageActions {
  readonly store: AppStore;
  readonly sessionId: string;
  readonly point: BranchPoint | undefined;
  readonly busy: boolean;
  /** The last answer of its turn: it can be retried. */
  readonly lastOfTurn: boolean;
  /** The tool calls it is writing, while it streams. */
  readonly drafts: readonly ViewToolDraft[] | undefined;
  /** The checkpoint right after it, which "Restore to here" opens. */
  readonly restorePoint: string | null;
  /** Its turn's figures when it is the turn's last message, shown under it once the turn has ended. */
  readonly turn: ViewTurn | undefined;
}

/** Opens the restore of the checkpoint right after a message, in the history. */
function RestoreHere({ actions }: { actions: MessageActions }) {
  const { store, sessionId, restorePoint, busy } = actions;
  if (restorePoint === null || busy) return null;
  return (
    <button type="button" className="link small" onClick={() => store.requestRestore({ sessionId, checkpointId: restorePoint })}>
      Restore to here
    </button>
  );
}

const triggerLabels = {
  threshold: "to fit the model's context window",
  overflow: 'after the server refused a request as too large',
  manual: 'as you asked',
} as const;

/** A compaction: where the model's view of the conversation was summarized. Everything above stays here. */
function CompactionDivider({ message }: { message: ViewMessage }) {
  const compaction = message.compaction;
  if (!compaction) return null;
  const what = compaction.turns > 1 ? `${compaction.turns} earlier turns` : `${compaction.messages} earlier messages`;
  const cut = `${compaction.shortened} older ${compaction.shortened === 1 ? 'result' : 'results'} shortened`;
  const done = compaction.method === 'shortened' ? cut : `${what} summarized${compaction.shortened > 0 ? `, ${cut}` : ''}`;
  return (
    <div
      className="compaction-divider"
      role="separator"
      aria-label={compaction.method === 'shortened' ? 'Older results shortened' : 'Conversation summarized'}
    >
      <details>
        <summary>
          {done} {triggerLabels[compaction.trigger]} · about {compaction.tokensBefore} → {compaction.tokensAfter} tokens
        </summary>
        <p className="muted small">
          {compaction.method === 'shortened'
            ? 'From here on the model sees those results with their middle left out, the same way at every request, so the server can reuse what it has read; they all stay whole in this session.'
            : 'The model now sees the summary below instead of those messages; they all stay in this session, and restoring a checkpoint from before this point brings the full view back.'}
          {compaction.continued ? ' The summary was written as a continuation of the conversation the server had already read.' : ''}
        </p>
        {compaction.note && <p className="notice small">{compaction.note}</p>}
        {compaction.method !== 'shortened' && <pre className="compaction-summary">{message.text}</pre>}
      </details>
    </div>
  );
}

/** One row of the conversation: a message, or the divider where older messages were summarized. */
export function MessageItem({ message, actions }: { message: ViewMessage; actions: MessageActions }) {
  if (message.role === 'compaction') return <CompactionDivider message={message} />;
  return <ChatMessageItem message={message} actions={actions} />;
}

/**
 * A message of the person's being edited: it runs again from there as a new version; when files changed from it on,
 * they can be put back as they were before it first.
 */
function EditMessage({ message, actions, onDone }: { message: ViewMessage; actions: MessageActions; onDone: () => void }) {
  const { store, sessionId } = actions;
  const [draft, setDraft] = useState(message.text);
  const [filesBack, setFilesBack] = useState(false);
  const { restorePoint } = actions;
  // Files changed from this message on: editing it can also put them back as they were before it.
  const filesSince = useAppState(store, (state) => {
    if (message.role !== 'user' || restorePoint === null) return false;
    const checkpoints = state.views[sessionId]?.checkpoints ?? [];
    const at = checkpoints.findIndex((checkpoint) => checkpoint.id === restorePoint);
    return at >= 0 && checkpoints.slice(at).some((checkpoint) => (checkpoint.filesChanged?.length ?? 0) > 0);
  });
  return (
    <form
      className="message message-user editing"
      aria-label="Edit your message"
      onSubmit={(event) => {
        event.preventDefault();
        const text = draft.trim();
        if (text === '') return;
        onDone();
        const back = filesSince && filesBack && restorePoint !== null;
        // With the files put back first, as one step: undoing that restore shows the version before the edit again.
        void store.changeLine(sessionId, () =>
          store.call('message:edit', { sessionId, messageId: message.id, text, ...(back ? { filesBack: true } : {}) }),
        );
      }}
    >
      <textarea aria-label="Edited message" value={draft} rows={3} autoFocus onChange={(event) => setDraft(event.target.value)} />
      {filesSince && (
        <label className="row small">
          <input type="checkbox" checked={filesBack} onChange={(event) => setFilesBack(event.target.checked)} />
          Also put the files back as they were before this message
        </label>
      )}
      <div className="row">
        <span className="muted small">Runs again from here as a new version; the current one is kept.</span>
        <button type="button" onClick={() => onDone()}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={draft.trim() === ''}>
          Save and run
        </button>
      </div>
    </form>
  );
}

function ChatMessageItem({ message, actions }: { message: ViewMessage; actions: MessageActions }) {
  const label = stateLabels[message.state];
  const { store, sessionId, point, busy } = actions;
  const summary =
    actions.turn && actions.turn.end !== null ? (
      <TurnSummary store={store} sessionId={sessionId} turnId={message.turnId} turn={actions.turn} />
    ) : null;
  const [editing, setEditing] = useState(false);
  const [showPrompt, setShowPrompt] = useState(false);
  if (editing) return <EditMessage message={message} actions={actions} onDone={() => setEditing(false)} />;
  return (
    <div className={`message-wrap message-wrap-${message.role}`}>
      {point && <BranchSwitcher store={store} sessionId={sessionId} point={point} disabled={busy} />}
      <article
        className={`message message-${message.role} state-${message.state}`}
        aria-label={message.role === 'user' ? 'Your message' : 'Answer'}
        data-state={message.state}
      >
        {message.reasoning.length > 0 && (
          <details className="reasoning">
            <summary>Reasoning</summary>
            <pre>{message.reasoning}</pre>
          </details>
        )}
        {message.text.length > 0 &&
          (message.role === 'user' ? (
            <FoldedText className="user-text" text={message.text} />
          ) : (
            <MessageBody text={message.text} streaming={message.state === 'streaming'} />
          ))}
        {message.attachments && <AttachmentChips attachments={message.attachments} />}
        {message.memories && message.memories.length > 0 && (
          <details className="recalled-memories small muted">
            <summary>
              {message.memories.length} {message.memories.length === 1 ? 'memory' : 'memories'} given to the model with this message
            </summary>
            <ul>
              {message.memories.map((memory, index) => (
                <li key={index}>{memory}</li>
              ))}
            </ul>
          </details>
        )}
        {message.codeMap && (
          <details className="recalled-memories code-map small muted">
            <summary>
              Code map given to the model with this message: {message.codeMap.definitions}{' '}
              {message.codeMap.definitions === 1 ? 'definition' : 'definitions'} from {message.codeMap.files}{' '}
              {message.codeMap.files === 1 ? 'file' : 'files'} of {message.codeMap.indexed} indexed, about {message.codeMap.tokens} tokens
            </summary>
            <pre>{message.codeMap.text}</pre>
          </details>
        )}
        {message.toolCalls.map((call) => (
          <ToolCard key={call.id} call={call}>
            {call.problems && <CallProblems store={store} sessionId={sessionId} report={call.problems} />}
            {call.tool === 'delegate' && call.state !== 'denied' && call.state !== 'requested' && (
              <SubAgentLink store={store} sessionId={sessionId} toolCallId={call.id} running={call.state === 'running'} />
            )}
            {call.tool === 'run_plan' && (
              <PlanSteps
                input={call.input}
                {...(call.state === 'denied' || call.state === 'requested'
                  ? {}
                  : { run: { store, sessionId, toolCallId: call.id, running: call.state === 'running', output: call.output } })}
              />
            )}
          </ToolCard>
        ))}
        {actions.drafts?.map((draft) => (
          <ToolDraftCard key={`${draft.index}:${draft.callId}`} draft={draft} />
        ))}
        {message.state === 'streaming' && message.text.length === 0 && message.toolCalls.length === 0 && !actions.drafts && (
          <span className="muted">…</span>
        )}
        {message.error && (
          <div className="message-error" role="alert">
            {message.error.message}
            <ErrorDetails detail={message.error.detail} />
          </div>
        )}
        {label && !message.error && <div className="message-flag muted small">{label}</div>}
      </article>
      {message.role === 'user' && summary && <div className="turn-summary-row">{summary}</div>}
      {message.role === 'user' && (
        // Kept in place while a turn runs, only hidden, so nothing above the stream moves when it ends.
        <div className={busy ? 'message-actions held' : 'message-actions'} aria-hidden={busy || undefined}>
          <CopyButton label="Copy message" text={() => message.text} />
          <button
            type="button"
            className="link small"
            // The box opens on the message as sent.
            onClick={() => setEditing(true)}
          >
            Edit
          </button>
          <RestoreHere actions={actions} />
        </div>
      )}
      {message.role === 'assistant' &&
        message.state !== 'streaming' &&
        (message.text.length > 0 || actions.lastOfTurn || message.promptId || summary) && (
          <div className="message-actions">
            {summary}
            {message.text.length > 0 && <CopyButton label="Copy answer" text={() => message.text} />}
            {message.promptId && (
              <button type="button" className="link small" onClick={() => setShowPrompt(true)}>
                What the model saw
              </button>
            )}
            {showPrompt && message.promptId && (
              <PromptView store={store} promptId={message.promptId} onClose={() => setShowPrompt(false)} />
            )}
            {!busy && actions.lastOfTurn && (
              <button
                type="button"
                className="link small"
                onClick={() => void store.changeLine(sessionId, () => store.call('turn:retry', { sessionId, turnId: message.turnId }))}
              >
                Retry
              </button>
            )}
            <RestoreHere actions={actions} />
          </div>
        )}
    </div>
  );
}
