import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { checkpointAfter } from '../checkpoint-labels';
import { AttachmentChips } from './FilePreview';
import { FoldedText } from './FoldedText';
import { CopyButton, MessageBody } from './MessageBody';
import type { BranchPoint } from '../../../shared/branches';
import { busyStatuses } from '../../../shared/domain';
import type { ViewMessage } from '../../../shared/session-view';
import type { ViewToolDraft } from '../../../shared/tool-call-drafts';
import { toDisposable, type Disposable } from '../../../shared/lifecycle';
import { animationFrame, scheduleIn, useDisposables } from '../disposables';
import { ReviewChanges, changedPathsByTurn } from './ChangesPanel';
import { useAppState, type AppStore } from '../store';
import { ToolCard } from './ToolCard';
import { ToolDraftCard } from './ToolDraftCard';

const noMessages: readonly ViewMessage[] = [];
/** Keys that scroll the conversation when it has focus. */
const scrollKeys = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);
const upKeys = new Set(['ArrowUp', 'PageUp', 'Home']);

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

interface MessageActions {
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
  /** How many paths its turn changed (shown on the turn's last answer, which opens them). */
  readonly turnChanged: number;
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
  return (
    <div className="compaction-divider" role="separator" aria-label="Conversation summarized">
      <details>
        <summary>
          {what} summarized {triggerLabels[compaction.trigger]} · about {compaction.tokensBefore} → {compaction.tokensAfter} tokens
        </summary>
        <p className="muted small">
          The model now sees the summary below instead of those messages; they all stay in this session, and restoring a checkpoint from
          before this point brings the full view back.
        </p>
        {compaction.note && <p className="notice small">{compaction.note}</p>}
        <pre className="compaction-summary">{message.text}</pre>
      </details>
    </div>
  );
}

function MessageItem({ message, actions }: { message: ViewMessage; actions: MessageActions }) {
  if (message.role === 'compaction') return <CompactionDivider message={message} />;
  return <ChatMessageItem message={message} actions={actions} />;
}

function ChatMessageItem({ message, actions }: { message: ViewMessage; actions: MessageActions }) {
  const label = stateLabels[message.state];
  const { store, sessionId, point, busy } = actions;
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(message.text);
  if (editing) {
    return (
      <form
        className="message message-user editing"
        aria-label="Edit your message"
        onSubmit={(event) => {
          event.preventDefault();
          const text = draft.trim();
          if (text === '') return;
          setEditing(false);
          void store.changeLine(sessionId, () => store.call('message:edit', { sessionId, messageId: message.id, text }));
        }}
      >
        <textarea aria-label="Edited message" value={draft} rows={3} autoFocus onChange={(event) => setDraft(event.target.value)} />
        <div className="row">
          <span className="muted small">Runs again from here as a new version; the current one is kept.</span>
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={draft.trim() === ''}>
            Save and run
          </button>
        </div>
      </form>
    );
  }
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
        {message.toolCalls.map((call) => (
          <ToolCard key={call.id} call={call} />
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
          </div>
        )}
        {label && !message.error && <div className="message-flag muted small">{label}</div>}
      </article>
      {message.role === 'user' && (
        // Kept in place while a turn runs, only hidden, so nothing above the stream moves when it ends.
        <div className={busy ? 'message-actions held' : 'message-actions'} aria-hidden={busy || undefined}>
          <CopyButton label="Copy message" text={() => message.text} />
          <button
            type="button"
            className="link small"
            onClick={() => {
              setDraft(message.text);
              setEditing(true);
            }}
          >
            Edit
          </button>
          <RestoreHere actions={actions} />
        </div>
      )}
      {message.role === 'assistant' && message.state !== 'streaming' && (message.text.length > 0 || actions.lastOfTurn) && (
        <div className="message-actions">
          {message.text.length > 0 && <CopyButton label="Copy answer" text={() => message.text} />}
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
          {actions.lastOfTurn && <ReviewChanges store={store} sessionId={sessionId} turnId={message.turnId} count={actions.turnChanged} />}
        </div>
      )}
    </div>
  );
}

/** Asks the conversation to bring a tool call into view, wherever it is in a long session. */
export function revealToolCall(toolCallId: string): void {
  window.dispatchEvent(new CustomEvent('workbench:reveal-tool', { detail: toolCallId }));
}

/**
 * The conversation, virtualized: only the messages in view (and a few around them) are in the
 * page, so a session of thousands of events opens at once, on its last turns. While the view is
 * at the bottom it follows what streams in.
 */
export function Conversation({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const view = useAppState(store, (state) => state.views[sessionId]);
  const points = useAppState(store, (state) => state.branchPoints[sessionId]);
  const partial = useAppState(store, (state) => state.partial[sessionId] === true);
  const busy = view ? busyStatuses.has(view.status) || view.activeTurnId !== null : true;
  // Each place with versions shows its switcher on the first message after the fork.
  const pointAt = useMemo(() => {
    const byMessage = new Map<string, BranchPoint>();
    for (const point of points ?? []) {
      const first = view?.messages.find((message) => message.seq > point.forkSeq);
      if (first && !byMessage.has(first.id)) byMessage.set(first.id, point);
    }
    return byMessage;
  }, [points, view?.messages]);
  const changedByTurn = useMemo(() => changedPathsByTurn(view?.checkpoints ?? []), [view?.checkpoints]);
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  // Scrolled away from the end by the person: a button brings them back.
  const [away, setAway] = useState(false);
  const pin = (value: boolean): void => {
    pinned.current = value;
    setAway(!value);
  };
  const messages = view?.messages ?? noMessages;
  const last = messages.at(-1);
  const virtualizer = useVirtualizer({
    count: messages.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 96,
    overscan: 6,
    getItemKey: (index) => messages[index]?.id ?? index,
    initialOffset: () => Number.MAX_SAFE_INTEGER,
  });

  // Opened: start at the end.
  useLayoutEffect(() => {
    pinned.current = true;
    if (messages.length > 0) virtualizer.scrollToIndex(messages.length - 1, { align: 'end' });
    // Only when another session is shown: `messages` and `virtualizer` change on every delta.
  }, [sessionId]);

  // Earlier messages arrived above (a long session's whole line after its last turns): the
  // messages in view stay where they are, unless the view follows the end.
  const firstId = messages[0]?.id;
  // (The view is keyed by session: another session is another view, so the session never changes here.)
  const shownFirst = useRef(firstId);
  useLayoutEffect(() => {
    const before = shownFirst.current;
    shownFirst.current = firstId;
    const element = scroller.current;
    if (before === undefined || before === firstId || !element || pinned.current) return;
    const index = messages.findIndex((message) => message.id === before);
    const above = index > 0 ? virtualizer.getOffsetForIndex(index, 'start')?.[0] : undefined;
    const top = virtualizer.getOffsetForIndex(0, 'start')?.[0];
    if (above !== undefined && top !== undefined) element.scrollTop += above - top;
  }, [firstId]);

  // When the person last scrolled (wheel, touch, keys, a click), and whether they hold the scroll bar.
  const intent = useRef<{ at: number; holding: boolean; up: boolean }>({ at: Number.NEGATIVE_INFINITY, holding: false, up: false });

  // Sending a message brings the end back into view (its answer may have arrived with it). A line
  // read again (another version shown, a checkpoint restored) leaves the view where it is.
  const lastUserId = messages.findLast((message) => message.role === 'user')?.id;
  const seenUserId = useRef(lastUserId);
  if (seenUserId.current !== lastUserId) {
    const previous = seenUserId.current;
    seenUserId.current = lastUserId;
    if (previous === undefined || messages.some((message) => message.id === previous)) {
      pinned.current = true;
      // Sending supersedes any scrolling just before it.
      intent.current.at = Number.NEGATIVE_INFINITY;
      if (away) setAway(false);
    }
  }

  // Only the person unpins the view, by scrolling away from the end; the view's own adjustments
  // (measuring rows, earlier messages arriving) never do.
  const noteIntent = (up = false): void => {
    intent.current.at = performance.now();
    intent.current.up = up;
  };
  const scrolling = (): boolean => intent.current.holding || performance.now() - intent.current.at < 400;

  // Read by the listeners below, which live as long as the view instead of being added again on every delta.
  const latest = useRef({ messages, virtualizer });
  latest.current = { messages, virtualizer };
  // Following the stream: stay at the bottom as the last message grows, with at most one plain
  // scroll per frame, done when the frame lays out anyway. The frame and the timer belong to the
  // mounted view; once it is gone, following does nothing.
  const follow = useRef<() => void>(() => undefined);
  useDisposables((disposables) => {
    let frame: Disposable | null = null;
    // While the person is scrolling, the view leaves their scroll alone (setting the position would
    // cut it short); the next change after that is followed if they stayed at the end.
    let later: Disposable | null = null;
    const followEnd = (): void => {
      if (!pinned.current || frame !== null || later !== null) return;
      frame = scheduleIn(disposables, animationFrame, () => {
        frame = null;
        const element = scroller.current;
        if (!element || !pinned.current) return;
        if (scrolling()) {
          later = disposables.timeout(() => {
            later = null;
            followEnd();
          }, 100);
        } else element.scrollTop = element.scrollHeight;
      });
    };
    follow.current = followEnd;
    disposables.add(
      toDisposable(() => {
        follow.current = () => undefined;
      }),
    );

    const release = (): void => {
      intent.current.holding = false;
    };
    disposables.listen(window, 'pointerup', release);
    disposables.listen(window, 'pointercancel', release);
    // Scroll keys count wherever the focus is, except where they edit text.
    disposables.listen(
      window,
      'keydown',
      (event: KeyboardEvent) => {
        const target = event.target instanceof HTMLElement ? event.target : null;
        if (!scrollKeys.has(event.key) || target?.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target?.tagName ?? '')) return;
        noteIntent(upKeys.has(event.key));
      },
      { capture: true },
    );
    disposables.listen(window, 'workbench:reveal-tool', (event: Event) => {
      const id = (event as CustomEvent<string>).detail;
      const { messages: shown, virtualizer: rows } = latest.current;
      const index = shown.findIndex((message) => message.toolCalls.some((call) => call.id === id));
      if (index < 0) return;
      pin(false);
      rows.scrollToIndex(index, { align: 'center' });
      scheduleIn(disposables, animationFrame, () => document.getElementById(`tool-${id}`)?.scrollIntoView({ block: 'center' }));
    });
  }, []);
  useEffect(() => follow.current(), [messages.length, last?.text.length, last?.reasoning.length, last?.toolCalls, view?.drafting]);
  // Rows measured anew are followed too, unless the person has just opened or closed something
  // (a tool card, the reasoning), which then stays where it is.
  const totalSize = virtualizer.getTotalSize();
  useEffect(() => {
    if (performance.now() - intent.current.at > 1_000) follow.current();
  }, [totalSize]);
  const lastTop = useRef(0);

  if (!view) return <div className="conversation muted">Loading…</div>;
  const items = virtualizer.getVirtualItems();
  return (
    <div
      className="conversation"
      ref={scroller}
      onWheel={(event) => {
        noteIntent(event.deltaY < 0);
        // Up is away from the end at once, before the scroll it makes (which the view's own
        // adjustments in the same frame could cut short).
        const element = event.currentTarget;
        if (event.deltaY < 0 && element.scrollHeight > element.clientHeight) pin(false);
      }}
      onTouchMove={() => noteIntent()}
      onPointerDown={(event) => {
        // On the scroll bar itself: a drag.
        if (event.target === event.currentTarget) intent.current.holding = true;
        noteIntent();
      }}
      onScroll={(event) => {
        const element = event.currentTarget;
        const top = element.scrollTop;
        const wentUp = top < lastTop.current;
        lastTop.current = top;
        const byPerson = scrolling();
        // Up by the person, however little (a touchpad's small steps), leaves the end, whatever the
        // view's own adjustments do to the position meanwhile.
        if (byPerson && (wentUp || intent.current.up)) pin(false);
        else if (element.scrollHeight - top - element.clientHeight < 40) pin(true);
        else if (byPerson) pin(false);
      }}
    >
      {partial && (
        // Over the rows, not among them: its going away moves nothing.
        <div className="conversation-loading">
          <span className="muted small">Loading earlier messages…</span>
        </div>
      )}
      {view.messages.length === 0 && !partial && <p className="muted center">Ask for something to begin.</p>}
      {view.warnings.map((warning) => (
        <div key={warning} className="notice notice-error" role="alert">
          {warning}
        </div>
      ))}
      <div className="conversation-rows" style={{ height: virtualizer.getTotalSize() }}>
        <div className="conversation-window" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
          {items.map((item) => {
            const message = messages[item.index];
            if (!message) return null;
            return (
              <div key={item.key} data-index={item.index} ref={virtualizer.measureElement} className="conversation-row">
                <MessageItem
                  message={message}
                  actions={{
                    store,
                    sessionId,
                    point: pointAt.get(message.id),
                    busy,
                    lastOfTurn: message.role === 'assistant' && messages[item.index + 1]?.turnId !== message.turnId,
                    drafts: view.drafting?.messageId === message.id ? view.drafting.calls : undefined,
                    restorePoint: message.role === 'compaction' ? null : (checkpointAfter(view.checkpoints, messages, message)?.id ?? null),
                    turnChanged: changedByTurn.get(message.turnId) ?? 0,
                  }}
                />
              </div>
            );
          })}
        </div>
      </div>
      {away && (
        <button
          type="button"
          className="jump-to-end"
          aria-label="Jump to the latest message"
          title="Jump to the latest message"
          onClick={() => {
            pin(true);
            const element = scroller.current;
            if (element) element.scrollTop = element.scrollHeight;
          }}
        >
          ↓ Latest
        </button>
      )}
    </div>
  );
}
