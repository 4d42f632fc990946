import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModelServer, textTurn } from '../../../scripted-model-server';
import { createHarness, toolCall, useHarness, type Harness } from '../harness';

/** The names of the tools a recorded request offered the model. */
const offered = (request: ScriptedModelServer['requests'][number] | undefined): string[] =>
  ((request?.body['tools'] ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);

describe('tools the person denied in settings', () => {
  let server: ScriptedModelServer;
  let harness: Harness | null = null;
  useHarness({ server: (started) => (server = started) });
  afterEach(async () => {
    await harness?.close();
    harness = null;
  });

  it('are not offered to the model, and a call to one anyway is still denied', async () => {
    harness = await createHarness(server, { autonomy: 'L3', settings: { deniedTools: ['publish', 'wipe'] } });
    server.enqueue({ steps: [toolCall('publish', { target: 'site' })] }, textTurn('It is denied.'));
    harness.runtime.send(harness.sessionId, 'Publish');
    await harness.runtime.whenIdle(harness.sessionId);
    const names = offered(server.requests[0]);
    expect(names).toContain('write_note');
    expect(names).not.toContain('publish');
    expect(names).not.toContain('wipe');
    expect(harness.log).toEqual([]);
    expect(harness.view().messages[1]?.toolCalls[0]).toMatchObject({
      state: 'denied',
      output: 'Not run: You have denied publish in Settings.',
    });
    expect(offered(server.requests[1])).toEqual(names);
  });

  it('are offered again once allowed, from the next turn on', async () => {
    harness = await createHarness(server, { settings: { deniedTools: ['publish'] } });
    server.enqueue(textTurn('Hello.'), textTurn('Hello again.'));
    harness.runtime.send(harness.sessionId, 'Hi');
    await harness.runtime.whenIdle(harness.sessionId);
    harness.settings.set({ ...harness.settings.get(), deniedTools: [] });
    harness.runtime.send(harness.sessionId, 'Hi again');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(offered(server.requests[0])).not.toContain('publish');
    expect(offered(server.requests[1])).toContain('publish');
  });

  it('from the moment they are denied while a turn runs: not offered in its next request, and a call to one is denied', async () => {
    harness = await createHarness(server, { autonomy: 'L3' });
    server.enqueue({ steps: [toolCall('wipe', {}, 'c1')] }, { steps: [toolCall('publish', { target: 'site' }, 'c2')] }, textTurn('Done.'));
    harness.runtime.send(harness.sessionId, 'Go');
    const waiting = await harness.until((view) => view.pendingApproval !== null, 'the wipe gate');
    // Denied in Settings while the turn waits at a gate.
    harness.settings.set({ ...harness.settings.get(), deniedTools: ['publish'] });
    harness.runtime.answerApproval(waiting.pendingApproval?.approvalId ?? '', 'deny');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(offered(server.requests[0])).toContain('publish');
    expect(offered(server.requests[1])).not.toContain('publish');
    expect(harness.log).toEqual([]);
    expect(harness.view().messages[2]?.toolCalls[0]).toMatchObject({
      tool: 'publish',
      state: 'denied',
      output: 'Not run: You have denied publish in Settings.',
    });
  });

  it('from the moment they are denied, even for a call of the same response that was already decided to run', async () => {
    harness = await createHarness(server, { autonomy: 'L3' });
    server.enqueue({ steps: [toolCall('wipe', {}, 'c1'), toolCall('publish', { target: 'site' }, 'c2')] }, textTurn('Done.'));
    harness.runtime.send(harness.sessionId, 'Go');
    const waiting = await harness.until((view) => view.pendingApproval !== null, 'the wipe gate');
    harness.settings.set({ ...harness.settings.get(), deniedTools: ['publish'] });
    harness.runtime.answerApproval(waiting.pendingApproval?.approvalId ?? '', 'allow_once');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual(['wipe']);
    expect(harness.view().messages[1]?.toolCalls[1]).toMatchObject({
      state: 'denied',
      output: 'Not run: You have denied publish in Settings.',
    });
  });

  it('are neither described by describe_tools nor named among the tools there are', async () => {
    harness = await createHarness(server, { settings: { deniedTools: ['publish'] } });
    server.enqueue(
      { steps: [toolCall('describe_tools', { names: ['publish', 'write_note'] }, 'd1'), toolCall('no_such_tool', {}, 'd2')] },
      textTurn('Done.'),
    );
    harness.runtime.send(harness.sessionId, 'What can you do?');
    await harness.runtime.whenIdle(harness.sessionId);
    const [described, unknown] = harness.view().messages[1]?.toolCalls ?? [];
    expect(described?.output).toContain('## publish\nNo tool has this name.');
    expect(described?.output).toContain('## write_note\nWrites a note.');
    expect(unknown?.output).toMatch(/^There is no tool named no_such_tool\. Available tools: read_note, write_note, wipe,/);
  });
});
