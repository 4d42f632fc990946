import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModelServer, textTurn } from '../scripted-model-server';
import { createHarness, toolCall, useHarness, type Harness } from '../main/agent/harness';

// Scratch review test: the tools are the harness's recording stand-ins; nothing runs.
describe('review: a plan step whose grant was revoked waits at its own gate; after a restart', () => {
  let server: ScriptedModelServer;
  const opened: Harness[] = [];
  useHarness({ server: (started) => (server = started) });
  afterEach(async () => {
    for (const harness of opened.splice(0)) await harness.close();
  });

  it('runs without that gate being answered (approvedInPlan is applied to it)', async () => {
    const first = createHarness(server, { autonomy: 'L1' });
    opened.push(first);
    const note = { name: 'b', text: 'x' };
    // A grant for write_note b, made at an ordinary gate.
    server.enqueue({ steps: [toolCall('write_note', note, 'g1')] }, textTurn('ok'));
    first.runtime.send(first.sessionId, 'grant');
    const gate = await first.until((view) => view.pendingApproval !== null, 'the grant gate');
    first.runtime.answerApproval(gate.pendingApproval?.approvalId ?? '', 'allow_1h');
    await first.runtime.whenIdle(first.sessionId);
    const [grant] = first.trust.listActive(first.clock.now());
    expect(grant).toBeDefined();

    server.enqueue({
      steps: [
        { kind: 'text', text: 'Publish, read, write.' },
        toolCall('publish', { target: 'site' }, 'c1'),
        toolCall('slow', {}, 'c2'),
        toolCall('write_note', note, 'c3'),
      ],
    });
    first.runtime.send(first.sessionId, 'Do it');
    const plan = await first.until((view) => view.plan?.state === 'waiting', 'the plan');
    first.runtime.answerPlan(plan.plan?.planId ?? '', 'approve');
    await first.until(() => first.log.includes('slow started'), 'the slow step');
    // The person revokes the grant the third step rests on; the live loop then asks at a gate.
    first.trust.revoke(grant?.id ?? '', first.clock.now());
    first.releaseSlow();
    await first.until((view) => view.pendingApproval?.summary !== undefined, 'the gate of the third step');
    console.log('live log before crash', JSON.stringify(first.log));
    first.crash();

    server.enqueue(textTurn('Done.'));
    const reopened = first.reopen();
    opened.push(reopened);
    const start = Date.now();
    while (Date.now() - start < 3000 && reopened.log.length === 0 && reopened.view().pendingApproval === null) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await reopened.runtime.whenIdle(reopened.sessionId);
    const events = reopened.store.journal(reopened.sessionId).map((entry) => entry.event);
    const started = events.filter((event) => event.type === 'tool_call_started').at(-1);
    const answers = events.filter((event) => event.type === 'approval_answered').length;
    console.log('after restart log', JSON.stringify(reopened.log), 'last start', JSON.stringify(started), 'answers', answers);
    expect(reopened.log).toEqual(['write b']);
  });
});
