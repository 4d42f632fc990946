/*
 * The conversation of the selected session: its messages as virtualized rows, opening on the last turns and following
 * what streams in.
 */

import { useMemo } from 'react';
import type { BranchPoint } from '../../../shared/branches';
import { busyStatuses } from '../../../shared/domain';
import type { ViewMessage } from '../../../shared/session-view';
import { checkpointAfter } from '../panels/checkpoint-labels';
import { useAppState, type AppStore } from '../store';
import { useFollowScroll } from './follow-scroll';
import { MessageItem } from './MessageItem';

const noMessages: readonly ViewMessage[] = [];

/** Each place with versions, by the first message after its fork, where its switcher shows. */
function branchPointsByMessage(points: readonly BranchPoint[] | undefined, messages: readonly ViewMessage[]): Map<string, BranchPoint> {
  const byMessage = new Map<string, BranchPoint>();
  for (const point of points ?? []) {
    const first = messages.find((message) => message.seq > point.forkSeq);
    if (first && !byMessage.has(first.id)) byMessage.set(first.id, point);
  }
  return byMessage;
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
  const pointAt = useMemo(() => branchPointsByMessage(points, view?.messages ?? noMessages), [points, view?.messages]);
  const messages = view?.messages ?? noMessages;
  const { scroller, virtualizer, away, jumpToEnd, handlers } = useFollowScroll(sessionId, messages, view?.drafting);

  if (!view) return <div className="conversation muted">Loading…</div>;
  const items = virtualizer.getVirtualItems();
  return (
    <div className="conversation" ref={scroller} {...handlers} data-region="conversation" data-region-focus="" tabIndex={-1}>
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
            const endOfTurn = messages[item.index + 1]?.turnId !== message.turnId;
            return (
              <div key={item.key} data-index={item.index} ref={virtualizer.measureElement} className="conversation-row">
                <MessageItem
                  message={message}
                  actions={{
                    store,
                    sessionId,
                    point: pointAt.get(message.id),
                    busy,
                    lastOfTurn: message.role === 'assistant' && endOfTurn,
                    drafts: view.drafting?.messageId === message.id ? view.drafting.calls : undefined,
                    restorePoint: message.role === 'compaction' ? null : (checkpointAfter(view.checkpoints, messages, message)?.id ?? null),
                    turn: endOfTurn && message.role !== 'compaction' ? view.turns[message.turnId] : undefined,
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
          onClick={jumpToEnd}
        >
          ↓ Latest
        </button>
      )}
    </div>
  );
}
