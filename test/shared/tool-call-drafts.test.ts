import { describe, expect, it } from 'vitest';
import type { JournalEntry, RuntimeEvent, ToolCallDraftEvent } from '../../src/shared/events';
import { emptySessionView, reduceSessionView, type SessionView } from '../../src/shared/session-view';
import { applyToolCallDrafts } from '../../src/shared/tool-call-drafts';

let seq = 0;
const fold = (view: SessionView, events: RuntimeEvent[]): SessionView =>
  reduceSessionView(
    view,
    events.map((event): JournalEntry => ({ sessionId: 's', seq: seq++, at: 1, event })),
  );
const started = (messageId: string, index: number, callId: string, tool: string): ToolCallDraftEvent => ({
  type: 'tool_call_draft_started',
  turnId: 't',
  messageId,
  index,
  callId,
  tool,
});
const delta = (messageId: string, index: number, callId: string, text: string): ToolCallDraftEvent => ({
  type: 'tool_call_draft_delta',
  turnId: 't',
  messageId,
  index,
  callId,
  text,
});
const requested = (messageId: string, toolCallId: string): RuntimeEvent => ({
  type: 'tool_call_requested',
  turnId: 't',
  toolCallId,
  messageId,
  tool: 'write_file',
  input: { path: 'a.txt', content: 'hello' },
  summary: 'a.txt',
  risk: 'write_low',
  riskReason: 'writes a file',
});
const streaming = (messageId: string): SessionView => {
  seq = 0;
  return fold(emptySessionView, [
    { type: 'user_message', turnId: 't', messageId: 'u', text: 'Write it' },
    { type: 'run_started', turnId: 't', model: { providerId: 'p', model: 'm' }, providerKind: 'openai-compatible' },
    { type: 'assistant_message_started', turnId: 't', messageId },
  ]);
};

describe('tool calls in the view while the model writes them', () => {
  it('fills in each call of the streaming response, by index, as its arguments arrive', () => {
    const view = applyToolCallDrafts(streaming('m1'), [
      started('m1', 0, 'call_0', 'write_file'),
      delta('m1', 0, 'call_0', '{"path": "a.txt", '),
      started('m1', 1, 'call_1', 'run_command'),
      delta('m1', 1, 'call_1', '{"command": "ls'),
      delta('m1', 0, 'call_0', '"content": "hel'),
    ]);
    expect(view.drafting).toEqual({
      messageId: 'm1',
      calls: [
        { index: 0, callId: 'call_0', tool: 'write_file', arguments: '{"path": "a.txt", "content": "hel' },
        { index: 1, callId: 'call_1', tool: 'run_command', arguments: '{"command": "ls' },
      ],
    });
  });

  it('gives the drafts up when the calls are requested, and ignores a frame of them that comes later', () => {
    const drafted = applyToolCallDrafts(streaming('m1'), [started('m1', 0, 'call_0', 'write_file'), delta('m1', 0, 'call_0', '{"pa')]);
    const requestedView = fold(drafted, [requested('m1', 'call_x')]);
    expect(requestedView.drafting).toBeNull();
    expect(requestedView.messages.at(-1)?.toolCalls.map((call) => call.id)).toEqual(['call_x']);
    expect(applyToolCallDrafts(requestedView, [delta('m1', 0, 'call_0', 'th"')]).drafting).toBeNull();
    expect(applyToolCallDrafts(requestedView, [started('m1', 1, 'call_1', 'write_file')]).drafting).toBeNull();
  });

  it('drops the draft of a response that was stopped or failed: it was never sent', () => {
    for (const status of ['cancelled', 'failed'] as const) {
      const drafted = applyToolCallDrafts(streaming('m1'), [started('m1', 0, 'call_0', 'write_file'), delta('m1', 0, 'call_0', '{"pa')]);
      const ended = fold(drafted, [{ type: 'run_finished', turnId: 't', status }]);
      expect(ended.drafting).toBeNull();
      expect(ended.messages.at(-1)?.toolCalls).toEqual([]);
    }
  });

  it('keeps the calls of one response apart from the next one, which reuses their ids', () => {
    const first = applyToolCallDrafts(streaming('m1'), [started('m1', 0, 'call_0', 'write_file'), delta('m1', 0, 'call_0', '{"a"')]);
    const second = fold(fold(first, [requested('m1', 'c1')]), [{ type: 'assistant_message_started', turnId: 't', messageId: 'm2' }]);
    const drafted = applyToolCallDrafts(second, [
      delta('m1', 0, 'call_0', ': 1}'),
      started('m2', 0, 'call_0', 'run_command'),
      delta('m2', 0, 'call_0', '{"command"'),
    ]);
    expect(drafted.drafting).toEqual({
      messageId: 'm2',
      calls: [{ index: 0, callId: 'call_0', tool: 'run_command', arguments: '{"command"' }],
    });
  });

  it('ignores arguments whose start was not seen, and starts a call again when its index is started anew', () => {
    const view = streaming('m1');
    expect(applyToolCallDrafts(view, [delta('m1', 0, 'call_0', '{"a"')]).drafting).toBeNull();
    const restarted = applyToolCallDrafts(view, [
      started('m1', 0, 'call_0', 'write_file'),
      delta('m1', 0, 'call_0', '{"old"'),
      started('m1', 0, 'call_9', 'run_command'),
      delta('m1', 0, 'call_0', 'stale'),
      delta('m1', 0, 'call_9', '{"command"'),
    ]);
    expect(restarted.drafting?.calls).toEqual([{ index: 0, callId: 'call_9', tool: 'run_command', arguments: '{"command"' }]);
  });

  it('keeps the drafts that did not change as they were, so their cards are not drawn again', () => {
    const view = applyToolCallDrafts(streaming('m1'), [started('m1', 0, 'a', 'write_file'), started('m1', 1, 'b', 'write_file')]);
    const next = applyToolCallDrafts(view, [delta('m1', 1, 'b', '{')]);
    expect(next.drafting?.calls[0]).toBe(view.drafting?.calls[0]);
    expect(next.drafting?.calls[1]).not.toBe(view.drafting?.calls[1]);
  });
});
