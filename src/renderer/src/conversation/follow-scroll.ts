/*
 * The conversation's scrolling over virtualized rows: it opens at the end, follows the stream while pinned there, and
 * only the person's own scrolling unpins it.
 *
 * Also the request that brings a tool call into view, from the Tools tab.
 */

import { useVirtualizer, type ReactVirtualizer } from '@tanstack/react-virtual';
import {
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type PointerEvent,
  type RefObject,
  type TouchEvent,
  type UIEvent,
  type WheelEvent,
} from 'react';
import { toDisposable, type Disposable } from '../../../shared/lifecycle';
import type { ViewMessage } from '../../../shared/session-view';
import { animationFrame, scheduleIn, useDisposables } from '../disposables';

/** Keys that scroll the conversation when it has focus. */
const scrollKeys = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);
const upKeys = new Set(['ArrowUp', 'PageUp', 'Home']);
const revealEvent = 'workbench:reveal-tool';

/** Asks the conversation to bring a tool call into view, wherever it is in a long session. */
export function revealToolCall(toolCallId: string): void {
  window.dispatchEvent(new CustomEvent(revealEvent, { detail: toolCallId }));
}

/** When the person last scrolled (wheel, touch, keys, a click), and whether they hold the scroll bar. */
interface ScrollIntent {
  at: number;
  holding: boolean;
  up: boolean;
}

/** The person's own scrolling, told apart from the view's: when they last scrolled, and whether they still do. */
interface PersonScrolling {
  readonly intent: RefObject<ScrollIntent>;
  readonly noteIntent: (up?: boolean) => void;
  readonly scrolling: () => boolean;
}

/**
 * Notes each time the person scrolls: the scroll keys wherever the focus is (except where they edit text), and letting
 * go of the scroll bar. Only the person unpins the view; its own adjustments (measuring rows, earlier messages
 * arriving) never do.
 */
function usePersonScrolling(): PersonScrolling {
  const intent = useRef<ScrollIntent>({ at: Number.NEGATIVE_INFINITY, holding: false, up: false });
  const noteIntent = (up = false): void => {
    intent.current.at = performance.now();
    intent.current.up = up;
  };
  const scrolling = (): boolean => intent.current.holding || performance.now() - intent.current.at < 400;
  useDisposables((disposables) => {
    const release = (): void => {
      intent.current.holding = false;
    };
    disposables.listen(window, 'pointerup', release);
    disposables.listen(window, 'pointercancel', release);
    disposables.listen(
      window,
      'keydown',
      (event: KeyboardEvent) => {
        const target = event.target instanceof HTMLElement ? event.target : null;
        if (!scrollKeys.has(event.key) || target?.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target?.tagName ?? '')) return;
        // Keys in a dialog scroll the dialog, over the conversation.
        if (target?.closest('dialog')) return;
        noteIntent(upKeys.has(event.key));
      },
      { capture: true },
    );
  }, []);
  return { intent, noteIntent, scrolling };
}

/**
 * Following the stream: stay at the bottom as the last message grows, with at most one plain scroll per frame, done
 * when the frame lays out anyway. The frame and the timer belong to the mounted view; once it is gone, following does
 * nothing. Returns the function that follows once.
 */
function useFollowEnd(
  scroller: RefObject<HTMLDivElement | null>,
  pinned: RefObject<boolean>,
  scrolling: () => boolean,
): RefObject<() => void> {
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
  }, []);
  return follow;
}

/** Pixels within which the view counts as at the end: a little for rounding, as browsers scroll by fractions. */
const atEndWithin = 1;

/** Whether the conversation shows its end. */
function atEnd(element: HTMLElement): boolean {
  return element.scrollHeight - element.scrollTop - element.clientHeight <= atEndWithin;
}

/**
 * Whether a wheel turned over the conversation scrolls the conversation itself: not over a dialog opened from a
 * message (its own content scrolls, and it is not the conversation), nor over something inside that still scrolls
 * that way (a long command's output, a wide table).
 */
function wheelScrollsConversation(event: WheelEvent<HTMLDivElement>): boolean {
  const scroller = event.currentTarget;
  const up = event.deltaY < 0;
  for (let node = event.target instanceof Element ? event.target : null; node && node !== scroller; node = node.parentElement) {
    if (node instanceof HTMLDialogElement) return false;
    const overflow = getComputedStyle(node).overflowY;
    const scrollable = (overflow === 'auto' || overflow === 'scroll') && node.scrollHeight > node.clientHeight;
    if (scrollable && (up ? node.scrollTop > 0 : node.scrollTop + node.clientHeight < node.scrollHeight - atEndWithin)) return false;
  }
  // The scroller's own position is not looked at: the compositor may have scrolled it already when the event arrives.
  return scroller.scrollHeight > scroller.clientHeight;
}

/** Whether a pointer or touch event came from a dialog opened from a message rather than from the conversation. */
const fromDialog = (event: { target: EventTarget }): boolean => event.target instanceof Element && event.target.closest('dialog') !== null;

/** What the conversation's scrolling gives its view: the rows to draw, whether it is away from the end, and its handlers. */
export interface ConversationScroll {
  readonly scroller: RefObject<HTMLDivElement | null>;
  readonly virtualizer: ReactVirtualizer<HTMLDivElement, Element>;
  /** Scrolled away from the end by the person: a button brings them back. */
  readonly away: boolean;
  readonly jumpToEnd: () => void;
  readonly handlers: {
    readonly onWheel: (event: WheelEvent<HTMLDivElement>) => void;
    readonly onTouchMove: (event: TouchEvent<HTMLDivElement>) => void;
    readonly onPointerDown: (event: PointerEvent<HTMLDivElement>) => void;
    readonly onScroll: (event: UIEvent<HTMLDivElement>) => void;
  };
}

/**
 * The conversation's scrolling, over virtualized rows: it opens at the end, keeps the messages in view where they are
 * when earlier ones arrive above, and while it is pinned to the end follows what streams in. The person unpins it by
 * scrolling away; sending a message pins it again. `drafting` is the tool calls being written, followed as they grow.
 */
export function useFollowScroll(sessionId: string, messages: readonly ViewMessage[], drafting: unknown): ConversationScroll {
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const [away, setAway] = useState(false);
  const pin = (value: boolean): void => {
    pinned.current = value;
    // The way back down is offered only where there is a way down.
    const element = scroller.current;
    setAway(!value && element !== null && !atEnd(element));
  };
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

  const { intent, noteIntent, scrolling } = usePersonScrolling();

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

  // Read by the listener below, which lives as long as the view instead of being added again on every delta.
  const latest = useRef({ messages, virtualizer });
  latest.current = { messages, virtualizer };
  const follow = useFollowEnd(scroller, pinned, scrolling);
  useDisposables((disposables) => {
    disposables.listen(window, revealEvent, (event: Event) => {
      const id = (event as CustomEvent<string>).detail;
      const { messages: shown, virtualizer: rows } = latest.current;
      const index = shown.findIndex((message) => message.toolCalls.some((call) => call.id === id));
      if (index < 0) return;
      pin(false);
      rows.scrollToIndex(index, { align: 'center' });
      scheduleIn(disposables, animationFrame, () => document.getElementById(`tool-${id}`)?.scrollIntoView({ block: 'center' }));
    });
  }, []);
  // Not following, the view offers the way down once there is one (something arrived below it).
  const showWayDown = (): void => {
    const element = scroller.current;
    if (!pinned.current && element) setAway(!atEnd(element));
  };
  useEffect(() => {
    follow.current();
    showWayDown();
  }, [messages.length, last?.text.length, last?.reasoning.length, last?.toolCalls, drafting]);
  // Rows measured anew are followed too, unless the person has just opened or closed something
  // (a tool card, the reasoning), which then stays where it is.
  const totalSize = virtualizer.getTotalSize();
  useEffect(() => {
    if (performance.now() - intent.current.at > 1_000) follow.current();
    showWayDown();
  }, [totalSize]);
  const lastTop = useRef(0);

  return {
    scroller,
    virtualizer,
    away,
    jumpToEnd: () => {
      pin(true);
      const element = scroller.current;
      if (element) element.scrollTop = element.scrollHeight;
    },
    handlers: {
      onWheel: (event) => {
        // A wheel turned over a dialog or over something that scrolls of its own leaves the conversation where it is.
        if (!wheelScrollsConversation(event)) return;
        noteIntent(event.deltaY < 0);
        // Up is away from the end at once, before the scroll it makes (which the view's own
        // adjustments in the same frame could cut short).
        if (event.deltaY < 0) {
          pinned.current = false;
          setAway(true);
        }
      },
      onTouchMove: (event) => {
        if (!fromDialog(event)) noteIntent();
      },
      onPointerDown: (event) => {
        if (fromDialog(event)) return;
        // On the scroll bar itself: a drag.
        if (event.target === event.currentTarget) intent.current.holding = true;
        noteIntent();
      },
      onScroll: (event) => {
        const element = event.currentTarget;
        const top = element.scrollTop;
        const wentUp = top < lastTop.current;
        lastTop.current = top;
        const byPerson = scrolling();
        // At the very end, the view follows again, however it got there.
        if (atEnd(element)) pin(true);
        // Up by the person, however little (a touchpad's small steps), leaves the end, whatever the
        // view's own adjustments do to the position meanwhile.
        else if (byPerson && (wentUp || intent.current.up)) pin(false);
        else if (element.scrollHeight - top - element.clientHeight < 40) pin(true);
        else if (byPerson) pin(false);
        else showWayDown();
      },
    },
  };
}
