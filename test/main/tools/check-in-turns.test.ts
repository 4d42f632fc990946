import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JournalEntry, RuntimeEvent } from '../../../src/shared/events';
import type { Session } from '../../../src/shared/domain';
import { textTurn } from '../../scripted-model-server';
import { toolCall } from '../agent/harness';
import { answer, useScriptedCore, type ScriptedCore } from '../scripted-core';
import { bash, needs } from '../../platform';

describe('the workspace check, by the agent and after a turn', () => {
  let scripted: ScriptedCore;
  useScriptedCore(
    { builtinTools: true, dataDir: (folder) => join(folder, 'data'), session: 'workspace' },
    (started) => (scripted = started),
  );

  const send = async (text: string): Promise<void> => {
    await answer(scripted.transport, 'run:send', { sessionId: scripted.sessionId, text });
    await scripted.core.runtime?.whenIdle(scripted.sessionId);
  };
  const checks = async () =>
    (await answer<{ entries: JournalEntry[] }>(scripted.transport, 'session:open', { sessionId: scripted.sessionId })).entries
      .map((entry) => entry.event)
      .filter((event): event is Extract<RuntimeEvent, { type: 'check_ran' }> => event.type === 'check_ran');
  const lastToolResult = (): string =>
    (scripted.server.requests.at(-1)?.body['messages'] as Array<{ role: string; content: string }>).findLast(
      (message) => message.role === 'tool',
    )?.content ?? '';

  it('says plainly when no check is chosen', async () => {
    await answer<Session>(scripted.transport, 'session:setAutonomy', { sessionId: scripted.sessionId, autonomy: 'L3' });
    scripted.server.reset();
    scripted.server.enqueue({ steps: [toolCall('run_check', {})] }, textTurn('No check.'));
    await send('Check the work');
    expect(lastToolResult()).toBe(
      'run_check failed: No check command is set for this folder: the person chooses one in the session header.',
    );
  });

  it('runs the chosen check after a turn that changed files, not after one that did not, and for the agent', needs(bash), async () => {
    await answer<Session>(scripted.transport, 'session:setAutonomy', { sessionId: scripted.sessionId, autonomy: 'L3' });
    await answer(scripted.transport, 'check:set', {
      sessionId: scripted.sessionId,
      command: 'test -f ready.txt && echo all good',
      afterTurn: true,
    });
    scripted.server.reset();
    scripted.server.enqueue({ steps: [toolCall('write_file', { path: 'notes.txt', content: 'one\n' })] }, textTurn('Wrote notes.'));
    await send('Write notes');
    expect((await checks()).map((event) => [event.result.command, event.result.status, event.result.exitCode])).toEqual([
      ['test -f ready.txt && echo all good', 'failed', 1],
    ]);

    scripted.server.reset();
    scripted.server.enqueue(textTurn('Nothing to change.'));
    await send('Just say hi');
    expect(await checks()).toHaveLength(1);

    scripted.server.reset();
    scripted.server.enqueue(
      { steps: [toolCall('write_file', { path: 'ready.txt', content: 'yes\n' })] },
      { steps: [toolCall('run_check', {})] },
      textTurn('Ready and checked.'),
    );
    await send('Make it ready and check');
    expect(lastToolResult()).toMatch(/^The check `test -f ready\.txt && echo all good` passed in \d+\.\d s\.\nall good\n\[exit code 0\]$/);
    const [, second] = await checks();
    expect(second?.result).toMatchObject({ status: 'passed', exitCode: 0, output: expect.stringContaining('all good') as unknown });

    // Taken back: no check after the next turn.
    await answer(scripted.transport, 'check:set', { sessionId: scripted.sessionId, command: null, afterTurn: false });
    scripted.server.reset();
    scripted.server.enqueue({ steps: [toolCall('write_file', { path: 'notes.txt', content: 'two\n' })] }, textTurn('Again.'));
    await send('Write notes again');
    expect(await checks()).toHaveLength(2);
  });

  it('does not run by itself after a turn that changed what it runs, and says why', needs(bash), async () => {
    await answer<Session>(scripted.transport, 'session:setAutonomy', { sessionId: scripted.sessionId, autonomy: 'L3' });
    await answer(scripted.transport, 'check:set', { sessionId: scripted.sessionId, command: './check.sh', afterTurn: true });
    const before = (await checks()).length;
    scripted.server.reset();
    scripted.server.enqueue(
      { steps: [toolCall('write_file', { path: 'check.sh', content: '#!/bin/sh\nexit 0\n' })] },
      textTurn('Made the check pass.'),
    );
    await send('Make the check pass');
    const [held] = (await checks()).slice(before);
    expect(held?.result).toMatchObject({
      command: './check.sh',
      status: 'stopped',
      output: 'Not run after this turn: this turn changed check.sh, which says what the check runs: run it yourself once you have looked.',
    });
    await answer(scripted.transport, 'check:set', { sessionId: scripted.sessionId, command: null, afterTurn: false });
  });
});
