import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModelServer, textTurn } from '../scripted-model-server';
import { createHarness, toolCall, useHarness, type Harness } from '../main/agent/harness';

// Scratch review test: the tools are the harness's recording stand-ins; nothing runs.
const offered = (request: ScriptedModelServer['requests'][number] | undefined): string[] =>
  ((request?.body['tools'] ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);

describe('review: a tool denied in Settings while a turn runs', () => {
  let server: ScriptedModelServer;
  let harness: Harness | null = null;
  useHarness({ server: (started) => (server = started) });
  afterEach(async () => {
    await harness?.close();
    harness = null;
  });

  it('is still offered and still runs without asking for the rest of the turn', async () => {
    harness = createHarness(server, { autonomy: 'L3' });
    server.enqueue(
      { steps: [toolCall('wipe', {}, 'c1')] },
      { steps: [toolCall('publish', { target: 'site' }, 'c2')] },
      textTurn('Done.'),
    );
    harness.runtime.send(harness.sessionId, 'Go');
    const waiting = await harness.until((view) => view.pendingApproval !== null, 'the wipe gate');
    // The person notices and denies publish in Settings while the turn waits at a gate.
    harness.settings.set({ ...harness.settings.get(), deniedTools: ['publish'] });
    harness.runtime.answerApproval(waiting.pendingApproval?.approvalId ?? '', 'deny');
    await harness.runtime.whenIdle(harness.sessionId);
    console.log('log', JSON.stringify(harness.log), 'offered in 2nd request has publish?', offered(server.requests[1]).includes('publish'));
    expect(offered(server.requests[1])).toContain('publish');
    expect(harness.log).toEqual(['publish site']);
  });
});
