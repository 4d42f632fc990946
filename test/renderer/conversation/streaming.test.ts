import { describe, expect, it } from 'vitest';
import { emptySessionView, liveOutputLimit, reduceSessionView } from '../../../src/shared/session-view';
import type { JournalEntry, RuntimeEvent } from '../../../src/shared/events';
import { splitBlocks, splitLongParagraph } from '../../../src/renderer/src/conversation/markdown-blocks';

const entries = (events: RuntimeEvent[]): JournalEntry[] => events.map((event, seq) => ({ sessionId: 's', seq, at: 1, event }));

describe('streaming in the view', () => {
  it('keeps the newest live output of a call within its limit and counts all of it', () => {
    const chunk = 'x'.repeat(300 * 1024);
    const view = reduceSessionView(
      emptySessionView,
      entries([
        { type: 'assistant_message_started', turnId: 't', messageId: 'm' },
        {
          type: 'tool_call_requested',
          turnId: 't',
          toolCallId: 'c',
          messageId: 'm',
          tool: 'run_command',
          input: {},
          summary: 'x',
          risk: 'read_only',
          riskReason: '',
        },
        ...Array.from({ length: 5 }, (_, index): RuntimeEvent => ({
          type: 'tool_output',
          turnId: 't',
          toolCallId: 'c',
          text: `${index}${chunk}`,
        })),
      ]),
    );
    const call = view.messages[0]?.toolCalls[0];
    expect(call?.output.length).toBe(liveOutputLimit);
    expect(call?.output.endsWith(`4${chunk}`)).toBe(true);
    expect(call?.outputTotal).toBe(5 * (chunk.length + 1));
    const finished = reduceSessionView(view, [
      {
        sessionId: 's',
        seq: 10,
        at: 1,
        event: {
          type: 'tool_call_finished',
          turnId: 't',
          toolCallId: 'c',
          status: 'succeeded',
          output: 'cut',
          outputBytes: 9,
          truncated: true,
          latencyMs: 1,
        },
      },
    ]);
    expect(finished.messages[0]?.toolCalls[0]).toMatchObject({ output: 'cut', outputEpoch: 1, outputTotal: 3 });
  });

  it('splits a streamed answer into finished blocks and the one still arriving, never inside a code fence', () => {
    expect(splitBlocks('one\n\ntwo\n\nthr')).toEqual({ done: ['one', 'two'], tail: 'thr' });
    expect(splitBlocks('intro\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nafter')).toEqual({
      done: ['intro', '```ts\nconst a = 1;\n\nconst b = 2;\n```'],
      tail: 'after',
    });
    expect(splitBlocks('```\nopen fence\n\nstill code')).toEqual({ done: [], tail: '```\nopen fence\n\nstill code' });
    expect(splitBlocks('')).toEqual({ done: [], tail: '' });
  });

  it('cuts a long paragraph at spaces where no code span, emphasis or link is open, and leaves other blocks whole', () => {
    const prose = 'word '.repeat(5_000);
    const pieces = splitLongParagraph(prose, 1_000);
    expect(pieces.join('')).toBe(prose);
    expect(pieces.length).toBeGreaterThan(20);
    expect(pieces.every((piece) => piece.length <= 1_001)).toBe(true);
    const withCode = `${'a '.repeat(480)}\`x y z\` ${'b '.repeat(600)}`;
    for (const piece of splitLongParagraph(withCode, 1_000)) expect((piece.match(/`/g) ?? []).length % 2).toBe(0);
    expect(splitLongParagraph(`- item ${'x '.repeat(2_000)}`, 1_000)).toHaveLength(1);
    expect(splitLongParagraph('short')).toEqual(['short']);
  });
});
