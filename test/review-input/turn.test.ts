import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedModelServer, textTurn } from '../scripted-model-server';
import { createHarness, sandboxedRunCommand, toolCall, type Harness } from '../main/agent/harness';

// Review scratch test. sandboxedRunCommand records commands and runs nothing; commands are only analysed.
describe('review: bad tool input through a whole turn', () => {
  let server: ScriptedModelServer;
  let harness: Harness | null = null;
  beforeAll(async () => {
    server = await ScriptedModelServer.start();
  });
  afterAll(async () => server.close());
  beforeEach(() => server.reset());
  afterEach(async () => {
    await harness?.close();
    harness = null;
  });

  const report = (target: Harness, label: string) => {
    const entries = target.store.journal(target.sessionId).map((entry) => entry.event);
    const finished = entries.filter((event) => event.type === 'run_finished');
    const view = target.view();
    console.log(
      JSON.stringify({
        label,
        types: entries.map((event) => event.type),
        finished,
        status: view.status,
        messages: view.messages.map((message) => ({ role: message.role, text: message.text?.slice(0, 60), calls: message.toolCalls.length })),
        log: target.log,
      }),
    );
    return { entries, finished, view };
  };

  it('a run_command whose command nests 2000 substitutions', async () => {
    const target = (harness = createHarness(server, { autonomy: 'L1', extraTools: (log) => [sandboxedRunCommand(log)] }));
    const command = `echo ${'$('.repeat(2000)}ls${')'.repeat(2000)}`;
    server.enqueue({ steps: [{ kind: 'text', text: 'Running it now.' }, toolCall('run_command', { command })] }, textTurn('done'));
    target.runtime.send(target.sessionId, 'go');
    await target.runtime.whenIdle(target.sessionId);
    const { finished } = report(target, 'deep $(');
    // What the rule asks for: a typed refusal given to the model as the call's result, the turn going on.
    expect(finished[0]).toMatchObject({ status: 'completed' });
  });

  it('a call whose arguments nest 20000 arrays deep', async () => {
    const target = (harness = createHarness(server, { autonomy: 'L1', extraTools: (log) => [sandboxedRunCommand(log)] }));
    const deep = `{"command":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    server.enqueue(
      { steps: [{ kind: 'text', text: 'Calling.' }, { kind: 'tool_call', id: 'c1', name: 'run_command', arguments: deep }] },
      textTurn('done'),
    );
    target.runtime.send(target.sessionId, 'go');
    await target.runtime.whenIdle(target.sessionId);
    report(target, 'deep JSON arguments');
    // The next message, in the same run of the app.
    server.enqueue(textTurn('second answer'));
    let sent: unknown;
    try {
      sent = target.runtime.send(target.sessionId, 'again');
      await target.runtime.whenIdle(target.sessionId);
    } catch (error) {
      sent = `THREW ${String(error)}`;
    }
    console.log(JSON.stringify({ sent }));
    report(target, 'deep JSON arguments, then another message');
    // After a restart of the app.
    await target.close();
    const again = (harness = target.reopen());
    report(again, 'deep JSON arguments, after reopening');
    expect(again.store.journal(again.sessionId).some((entry) => entry.event.type === 'run_finished')).toBe(true);
  });
});
