import { describe, expect, it } from 'vitest';
import { journalEntrySchema, type JournalEntry } from '../../../src/shared/events';
import { emptySessionView, reduceSessionView } from '../../../src/shared/session-view';
import { checkpointLabels } from '../../../src/renderer/src/panels/checkpoint-labels';

/** A journal line of session s1, turn t1, numbered in order. */
function journal(events: ReadonlyArray<Record<string, unknown>>): JournalEntry[] {
  return events.map((event, index) => journalEntrySchema.parse({ sessionId: 's1', seq: index + 1, at: 1000 + index, event }));
}

const ref = { sessionId: 's1', turnId: 't1' };
const requested = (toolCallId: string, path: string) => ({
  type: 'tool_call_requested',
  ...ref,
  toolCallId,
  messageId: 'a1',
  tool: 'read_file',
  input: { path },
  summary: path,
  risk: 'read_only',
  riskReason: 'reads',
});
const finished = (toolCallId: string) => ({
  type: 'tool_call_finished',
  ...ref,
  toolCallId,
  status: 'succeeded',
  output: 'text',
  outputBytes: 4,
  truncated: false,
  latencyMs: 1,
});
const checkpoint = (checkpointId: string, seq: number, source: string) => ({
  type: 'checkpoint_saved',
  ...ref,
  checkpointId,
  parentId: null,
  seq,
  source,
});

describe('what each checkpoint of the history says', () => {
  it('names the call whose result a checkpoint follows, when calls run side by side finish out of order', () => {
    const view = reduceSessionView(
      emptySessionView,
      journal([
        { type: 'user_message', ...ref, messageId: 'u1', text: 'Read both files' },
        checkpoint('k1', 1, 'input'),
        { type: 'assistant_message_started', ...ref, messageId: 'a1' },
        requested('c1', 'slow.txt'),
        requested('c2', 'fast.txt'),
        checkpoint('k2', 2, 'model'),
        // The second call finishes first.
        finished('c2'),
        checkpoint('k3', 3, 'tool'),
        finished('c1'),
        checkpoint('k4', 4, 'tool'),
      ]),
    );
    expect(checkpointLabels(view.checkpoints, view.messages)).toEqual([
      'You: “Read both files”',
      'Answer: asked for 2 tool calls',
      'read_file fast.txt',
      'read_file slow.txt',
    ]);
  });

  it('names work handed on by the sub-agents that did it', () => {
    const handed = (toolCallId: string, tool: string, input: Record<string, unknown>) => ({
      ...requested(toolCallId, ''),
      tool,
      input,
      summary: `(may write) ${String(input['goal'])}`,
    });
    const view = reduceSessionView(
      emptySessionView,
      journal([
        { type: 'user_message', ...ref, messageId: 'u1', text: 'Hand it on' },
        { type: 'assistant_message_started', ...ref, messageId: 'a1' },
        handed('c1', 'delegate', { goal: 'Write the summary', tools: 'read_write' }),
        handed('c2', 'run_plan', { goal: 'Survey and summarize', steps: [] }),
        finished('c1'),
        checkpoint('k1', 1, 'tool'),
        finished('c2'),
        checkpoint('k2', 2, 'tool'),
      ]),
    );
    expect(checkpointLabels(view.checkpoints, view.messages)).toEqual([
      'Sub-agent “Write the summary”',
      'Plan “Survey and summarize”, by its sub-agents',
    ]);
  });

  it('says what the person answered at each gate: allowed, denied, approved, withheld', () => {
    const gate = (toolCallId: string, approvalId: string) => ({
      type: 'approval_requested',
      ...ref,
      toolCallId,
      approvalId,
      tool: 'write_file',
      summary: 'a.txt',
      input: { path: 'a.txt' },
      risk: 'write_low',
      reason: 'autonomy L1 asks first',
    });
    const answered = (toolCallId: string, approvalId: string, decision: string) => ({
      type: 'approval_answered',
      ...ref,
      toolCallId,
      approvalId,
      decision,
    });
    const write = (toolCallId: string) => ({ ...requested(toolCallId, 'a.txt'), tool: 'write_file', risk: 'write_low' });
    const view = reduceSessionView(
      emptySessionView,
      journal([
        { type: 'user_message', ...ref, messageId: 'u1', text: 'Write twice' },
        { type: 'assistant_message_started', ...ref, messageId: 'a1' },
        write('c1'),
        write('c2'),
        write('c3'),
        gate('c1', 'g1'),
        answered('c1', 'g1', 'allow_once'),
        checkpoint('k1', 1, 'approval'),
        gate('c2', 'g2'),
        answered('c2', 'g2', 'deny'),
        checkpoint('k2', 2, 'approval'),
        gate('c3', 'g3'),
        answered('c3', 'g3', 'allow_30m'),
        checkpoint('k3', 3, 'approval'),
        { type: 'plan_answered', ...ref, planId: 'p1', answer: 'approve' },
        checkpoint('k4', 4, 'approval'),
        { type: 'tool_result_held', ...ref, toolCallId: 'c1', reviewId: 'r1', tool: 'write_file' },
        { type: 'tool_result_reviewed', ...ref, toolCallId: 'c1', reviewId: 'r1', decision: 'withhold' },
        checkpoint('k5', 5, 'approval'),
      ]),
    );
    expect(checkpointLabels(view.checkpoints, view.messages)).toEqual([
      'You allowed write_file once',
      'You denied write_file',
      'You allowed write_file for 30 min',
      'You approved the plan',
      'You withheld the result of write_file',
    ]);
  });
});
