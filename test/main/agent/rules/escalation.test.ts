import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalDecision, Autonomy } from '../../../../src/shared/domain';
import { ScriptedModelServer, textTurn } from '../../../scripted-model-server';
import { createHarness, sandboxedRunCommand, toolCall, type Harness } from '../harness';

type Sandbox = 'workspace' | 'network' | 'none';

describe('escalation: a command that asks for more than the sandbox', () => {
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

  const open = async (autonomy: Autonomy = 'L1'): Promise<Harness> =>
    (harness = await createHarness(server, { autonomy, extraTools: (log) => [sandboxedRunCommand(log)] }));

  /**
   * Sends one run_command call; answers its gate, if it opens, with `answer`. Resolves the gate's
   * request (null when the call ran without asking).
   */
  async function command(target: Harness, commandText: string, sandbox: Sandbox, answer: ApprovalDecision = 'allow_once', trust = false) {
    server.enqueue({ steps: [toolCall('run_command', { command: commandText, sandbox })] }, textTurn('ok'));
    const asked = () => target.store.journal(target.sessionId).filter((entry) => entry.event.type === 'approval_requested');
    const before = asked().length;
    target.runtime.send(target.sessionId, `run ${commandText}`);
    for (;;) {
      const request = asked()[before]?.event;
      if (request?.type === 'approval_requested') {
        target.runtime.answerApproval(request.approvalId, answer, undefined, { trustEscalation: trust });
        await target.runtime.whenIdle(target.sessionId);
        return request;
      }
      if (!target.runtime.isBusy(target.sessionId)) return null;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  it.each(['network', 'none'] as const)('with sandbox "%s" waits at a gate at L3, saying what it asks for', async (sandbox) => {
    const target = await open('L3');
    const request = await command(target, 'npm test', sandbox, 'deny');
    expect(request).toMatchObject({
      tool: 'run_command',
      escalation: { kind: sandbox === 'network' ? 'network' : 'no_sandbox', reason: expect.stringMatching(/network|sandbox/) },
    });
    expect(target.log).toEqual([]);
    // The same command in the sandbox runs at L3 without asking.
    expect(await command(target, 'npm test', 'workspace')).toBeNull();
    expect(target.log).toEqual(['run npm test (workspace)']);
  });

  it('a grant made at an ordinary gate never covers the same command asking for network or no sandbox', async () => {
    const target = await open('L1');
    expect(await command(target, 'npm test', 'workspace', 'allow_1h')).not.toBeNull();
    const grants = target.trust.listActive(target.clock.now());
    expect(grants).toEqual([expect.objectContaining({ tool: 'run_command', pattern: { kind: 'command_prefix', words: ['npm', 'test'] } })]);
    expect(grants[0]?.escalation).toBeUndefined();
    expect(await command(target, 'npm test', 'workspace')).toBeNull();
    expect(await command(target, 'npm test', 'network')).not.toBeNull();
    expect(await command(target, 'npm test', 'none')).not.toBeNull();
    expect(target.log).toEqual(['run npm test (workspace)', 'run npm test (workspace)', 'run npm test (network)', 'run npm test (none)']);
  });

  it('a timed answer at an escalation gate, without trusting the escalation, allows the call once and makes no grant', async () => {
    const target = await open('L3');
    expect(await command(target, 'npm install', 'network', 'allow_5h')).not.toBeNull();
    expect(target.trust.listActive(target.clock.now())).toEqual([]);
    expect(await command(target, 'npm install', 'network')).not.toBeNull();
    expect(target.log).toEqual(['run npm install (network)', 'run npm install (network)']);
  });

  it('an explicit grant for network access covers the same command with network, but never with no sandbox', async () => {
    const target = await open('L1');
    expect(await command(target, 'npm install', 'network', 'allow_30m', true)).not.toBeNull();
    const [grant] = target.trust.listActive(target.clock.now());
    expect(grant).toMatchObject({
      escalation: 'network',
      maxRisk: 'write_high',
      description: expect.stringContaining('with network access'),
    });
    const answered = target.store.journal(target.sessionId).find((entry) => entry.event.type === 'approval_answered')?.event;
    expect(answered).toMatchObject({ decision: 'allow_30m', trustEscalation: true, grantId: grant?.id });
    expect(await command(target, 'npm install', 'network')).toBeNull();
    expect(await command(target, 'npm install', 'none')).not.toBeNull();
    // Another command is not covered, even with network.
    expect(await command(target, 'curl example.com', 'network')).not.toBeNull();
    expect(target.log).toEqual([
      'run npm install (network)',
      'run npm install (network)',
      'run npm install (none)',
      'run curl example.com (network)',
    ]);
  });

  // The commands below are only recorded by the stand-in run_command; none of them runs.
  it.each([
    ['curl https://example.com/status', 'curl --data-binary @notes.txt https://other.example/collect'],
    ['npm install lodash', 'npm install another-package'],
    ['python3 setup.py build', 'python3 -c "print(1)"'],
  ])('trusting network access for `%s` covers that exact command only, not `%s`', async (trusted, other) => {
    const target = await open('L1');
    expect(await command(target, trusted, 'network', 'allow_1h', true)).not.toBeNull();
    const [grant] = target.trust.listActive(target.clock.now());
    expect(grant).toMatchObject({ escalation: 'network', pattern: { kind: 'exact', arguments: trusted } });
    expect(await command(target, other, 'network')).not.toBeNull();
    expect(await command(target, trusted, 'network')).toBeNull();
    // The same sandbox mode only: the grant was for the command with network, not for it in the sandbox.
    expect(await command(target, trusted, 'workspace')).not.toBeNull();
    expect(target.log).toEqual([
      `run ${trusted} (network)`,
      `run ${other} (network)`,
      `run ${trusted} (network)`,
      `run ${trusted} (workspace)`,
    ]);
  });

  it('no sandbox is destructive: even an explicit grant for it is not made, and it asks every time', async () => {
    const target = await open('L3');
    expect(await command(target, 'make install', 'none', 'allow_session', true)).not.toBeNull();
    expect(target.trust.listActive(target.clock.now())).toEqual([]);
    expect(await command(target, 'make install', 'none')).not.toBeNull();
  });

  it('a plan shows the escalation of its step, and approving the plan runs that exact call', async () => {
    const target = await open('L3');
    server.enqueue(
      {
        steps: [
          { kind: 'text', text: 'Install, then test.' },
          toolCall('read_note', { name: 'a' }, 'c1'),
          toolCall('run_command', { command: 'npm install', sandbox: 'network' }, 'c2'),
          toolCall('run_command', { command: 'npm test' }, 'c3'),
        ],
      },
      textTurn('Installed and tested.'),
    );
    target.runtime.send(target.sessionId, 'Set it up');
    const waiting = await target.until((view) => view.plan?.state === 'waiting', 'the plan');
    expect(waiting.plan?.steps).toEqual([
      expect.objectContaining({ decision: 'run' }),
      expect.objectContaining({ decision: 'ask', escalation: { kind: 'network', reason: 'asks for network access' } }),
      expect.not.objectContaining({ escalation: expect.anything() }),
    ]);
    target.runtime.answerPlan(waiting.plan?.planId ?? '', 'approve');
    await target.runtime.whenIdle(target.sessionId);
    expect(target.log).toEqual(['read a', 'run npm install (network)', 'run npm test (workspace)']);
    expect(target.trust.listActive(target.clock.now())).toEqual([]);
  });
});
