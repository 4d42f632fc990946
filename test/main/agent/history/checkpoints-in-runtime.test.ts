import { describe, expect, it } from 'vitest';
import type { ConversationEntry } from '../../../../src/main/agent/context/context-view';
import { conversationFromJournal } from '../../../../src/main/agent/history/conversation';
import { textTurn } from '../../../scripted-model-server';
import { toolCall, useHarness, type Harness } from '../harness';
import type { ScriptedModelServer } from '../../../scripted-model-server';

describe('checkpoints in a session', () => {
  let server: ScriptedModelServer;
  let harness: Harness;
  useHarness({ server: (started) => (server = started), harness: (created) => (harness = created) });

  it('saves one after every step, and the newest holds exactly the conversation the model sees', async () => {
    server.enqueue(
      {
        steps: [
          { kind: 'text', text: 'Reading.' },
          toolCall('read_note', { name: 'a' }, 'c1'),
          toolCall('write_note', { name: 'b', text: 't' }, 'c2'),
        ],
      },
      textTurn('Done.'),
    );
    harness.runtime.send(harness.sessionId, 'Read a, write b');
    const gate = await harness.until((view) => view.pendingApproval !== null);
    harness.runtime.answerApproval(gate.pendingApproval?.approvalId ?? '', 'allow_once');
    await harness.runtime.whenIdle(harness.sessionId);
    server.enqueue(textTurn('Second answer.'));
    harness.runtime.send(harness.sessionId, 'And again');
    await harness.runtime.whenIdle(harness.sessionId);

    const view = harness.view();
    expect(view.checkpoints.map((checkpoint) => checkpoint.source)).toEqual([
      'input',
      'model',
      'tool',
      'approval',
      'tool',
      'model',
      'input',
      'model',
    ]);
    expect(view.checkpoints.map((checkpoint) => checkpoint.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const newest = view.checkpoints.at(-1);
    const tuple = harness.checkpoints.getTuple({ threadId: harness.sessionId, checkpointId: newest?.id ?? '' });
    const conversation: ConversationEntry[] = conversationFromJournal(harness.store.journal(harness.sessionId));
    expect(tuple?.messages).toEqual(JSON.parse(JSON.stringify(conversation)));
    expect(tuple?.state).toMatchObject({ status: 'planning', turnId: newest?.turnId });
    // An earlier checkpoint holds the conversation as it was then.
    const afterFirstModel = harness.checkpoints.getTuple({ threadId: harness.sessionId, checkpointId: view.checkpoints[1]?.id ?? '' });
    expect(afterFirstModel?.messages).toHaveLength(2);
  });
});
