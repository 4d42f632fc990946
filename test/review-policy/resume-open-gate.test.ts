import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModelServer, textTurn } from '../scripted-model-server';
import { createHarness, toolCall, useHarness, type Harness } from '../main/agent/harness';

// Scratch review test: write_note is the harness's recording stand-in; nothing runs.
describe('review: a gate open when the app stopped, after a restart', () => {
  let server: ScriptedModelServer;
  const opened: Harness[] = [];
  useHarness({ server: (started) => (server = started) });
  afterEach(async () => {
    for (const harness of opened.splice(0)) await harness.close();
  });

  it('is decided again: the call runs on the new autonomy without the gate ever being answered', async () => {
    const first = createHarness(server, { autonomy: 'L1' });
    opened.push(first);
    server.enqueue({ steps: [toolCall('write_note', { name: 'todo', text: 'milk' }, 'c1')] });
    first.runtime.send(first.sessionId, 'Write');
    await first.until((view) => view.pendingApproval !== null, 'the gate');
    // "A running turn keeps the autonomy it started with; the new level applies from the next turn."
    first.store.update(first.sessionId, { autonomy: 'L2' }, first.clock.now());
    first.crash();

    server.enqueue(textTurn('Written.'));
    const reopened = first.reopen();
    opened.push(reopened);
    // Recovery on start reopens the waiting turn by itself.
    const start = Date.now();
    while (Date.now() - start < 3000 && reopened.log.length === 0 && reopened.view().pendingApproval === null) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await reopened.runtime.whenIdle(reopened.sessionId);
    const events = reopened.store.journal(reopened.sessionId).map((entry) => entry.event);
    const answered = events.filter((event) => event.type === 'approval_answered').length;
    const started = events.filter((event) => event.type === 'tool_call_started');
    console.log('log', JSON.stringify(reopened.log), 'answers', answered, 'started', JSON.stringify(started));
    expect(answered).toBe(0);
    expect(reopened.log).toEqual(['write todo']);
  });
});
