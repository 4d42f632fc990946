import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/shared/events';
import { EventBatcher } from '../../src/main/ipc/event-batcher';
import { EventSender } from '../../src/main/ipc/router';
import { LoopbackTransport } from '../host/loopback-transport';

const delta = (seq: number, sessionId = 's'): JournalEntry => ({
  sessionId,
  seq,
  at: 0,
  event: { type: 'text_delta', turnId: 't', messageId: 'm', text: 'x' },
});

describe('EventBatcher', () => {
  it('sends at most one message per session per frame, in order, with nothing lost', async () => {
    const transport = new LoopbackTransport();
    const batcher = new EventBatcher(new EventSender(transport), 16);
    for (let seq = 0; seq < 500; seq += 1) batcher.push('s', [delta(seq)]);
    batcher.push('other', [delta(0, 'other')]);
    await new Promise((resolve) => setTimeout(resolve, 40));
    const messages = transport.sent
      .filter((sent) => sent.event === 'session:events')
      .map((sent) => sent.payload as { sessionId: string; entries: JournalEntry[] });
    expect(messages.map((message) => message.sessionId).sort()).toEqual(['other', 's']);
    expect(messages.find((message) => message.sessionId === 's')?.entries.map((entry) => entry.seq)).toEqual([...Array(500).keys()]);
  });

  it('sends the drafts of tool calls in the same message as the entries of their frame', async () => {
    const transport = new LoopbackTransport();
    const batcher = new EventBatcher(new EventSender(transport), 16);
    const draft = { type: 'tool_call_draft_delta', turnId: 't', messageId: 'm', index: 0, callId: 'c', text: '{"a"' } as const;
    batcher.pushDrafts('s', [draft]);
    batcher.push('s', [delta(0)]);
    batcher.pushDrafts('only-drafts', [draft]);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(transport.sent.map((sent) => sent.payload)).toEqual([
      { sessionId: 's', entries: [delta(0)], drafts: [draft] },
      { sessionId: 'only-drafts', entries: [], drafts: [draft] },
    ]);
  });

  it('flushes what is pending when disposed', () => {
    const transport = new LoopbackTransport();
    const batcher = new EventBatcher(new EventSender(transport), 1000);
    batcher.push('s', [delta(0)]);
    batcher.dispose();
    expect(transport.sent).toHaveLength(1);
  });
});
