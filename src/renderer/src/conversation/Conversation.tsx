import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { checkpointAfter } from '../panels/checkpoint-labels';
import type { BranchPoint } from '../../../shared/branches';
import { busyStatuses } from '../../../shared/domain';
import type { ViewMessage } from '../../../shared/session-view';
import { toDisposable, type Disposable } from '../../../shared/lifecycle';
import { animationFrame, scheduleIn, useDisposables } from '../disposables';
import { changedPathsByTurn } from '../panels/ChangesPanel';
import { MessageItem } from './MessageItem';
import { useAppState, type AppStore } from '../store';

const noMessages: readonly ViewMessage[] = [];
/** Keys that scroll the conversation when it has focus. */
const scrollKeys = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);
const upKeys = new Set(['ArrowUp', 'PageUp', 'Home']);

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
