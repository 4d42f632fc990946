import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TransientToolError, transientReason } from '../../../../src/main/agent/turn/tool-retry';
import { defineTool, type Tool } from '../../../../src/main/agent/ports/tools';
import type { RiskLevel } from '../../../../src/shared/domain';
import { textTurn, type ScriptedModelServer } from '../../../scripted-model-server';
import { createHarness, lastPrompt, ManualClock, toolCall, useHarness, type Harness } from '../harness';

/** A system error as Node makes them. */
function systemError(code: string): Error {
  return Object.assign(new Error(`${code}: resource busy or locked, open 'notes.txt'`), { code });
}

/** Tools that fail `failures` times (by throwing `error`, or with a transient outcome) and then succeed. */
function flakyTools(plan: { failures: number; error: () => Error }, log: string[]): Tool[] {
  const make = (name: string, risk: RiskLevel, mode: 'throw' | 'outcome'): Tool =>
    defineTool({
      name,
      description: `Fails ${plan.failures} times, then works.`,
      input: z.object({}).strict(),
      risk,
      execute: async () => {
        log.push(name);
        if (log.filter((entry) => entry === name).length <= plan.failures) {
          if (mode === 'outcome') return { output: 'The server dropped the connection.', isError: true, transient: true };
          throw plan.error();
        }
        return { output: `${name} worked` };
      },
    });
  return [
    make('flaky_read', 'read_only', 'throw'),
    make('flaky_outcome', 'read_only', 'outcome'),
    make('flaky_write', 'write_low', 'throw'),
  ];
}

/** A clock whose sleeps wait until Stop, recording each. */
class WaitingClock extends ManualClock {
  readonly sleeps: number[] = [];
  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
  }
}

describe('retries of tool calls', () => {
  let server: ScriptedModelServer;
  useHarness({ server: (started) => (server = started) });
  const plan = { failures: 1, error: (): Error => systemError('EBUSY') };
  let harness: Harness | null = null;
  const run = async (tool: string, options: { clock?: ManualClock; autonomy?: 'L2' } = {}): Promise<Harness> => {
    await harness?.close();
    harness = await createHarness(server, { extraTools: (log) => flakyTools(plan, log), ...options });
    server.enqueue({ steps: [toolCall(tool, {})] }, textTurn('Done.'));
    harness.runtime.send(harness.sessionId, 'Go');
    return harness;
  };
  const retries = (current: Harness) =>
    current.store.journal(current.sessionId).flatMap((entry) => (entry.event.type === 'tool_retry_scheduled' ? [entry.event] : []));

  it('retries a read-only call that failed for a passing reason, and it succeeds on the second try', async () => {
    plan.failures = 1;
    const current = await run('flaky_read');
    await current.runtime.whenIdle(current.sessionId);
    expect(current.log).toEqual(['flaky_read', 'flaky_read']);
    expect(retries(current)).toMatchObject([{ attempt: 1, of: 3, reason: 'the file was busy', detail: expect.stringContaining('EBUSY') }]);
    const call = current.view().messages[1]?.toolCalls[0];
    expect(call).toMatchObject({ state: 'succeeded', output: 'flaky_read worked', retry: { attempt: 1, of: 3 } });
    expect(current.view().status).toBe('completed');
    await current.close();
  });

  it('succeeds on the third try, with a backoff that grows', async () => {
    plan.failures = 2;
    const current = await run('flaky_outcome');
    await current.runtime.whenIdle(current.sessionId);
    expect(current.log).toEqual(['flaky_outcome', 'flaky_outcome', 'flaky_outcome']);
    const [first, second] = retries(current);
    expect(first?.delayMs).toBeGreaterThanOrEqual(125);
    expect(first?.delayMs).toBeLessThanOrEqual(250);
    expect(second?.delayMs).toBeGreaterThanOrEqual(250);
    expect(second?.delayMs).toBeLessThanOrEqual(500);
    expect(lastPrompt(server)).toContain('tool: flaky_outcome worked');
    await current.close();
  });

  it('gives up after three tries and says so', async () => {
    plan.failures = 5;
    const current = await run('flaky_read');
    await current.runtime.whenIdle(current.sessionId);
    expect(current.log).toHaveLength(3);
    expect(retries(current)).toHaveLength(2);
    expect(current.view().messages[1]?.toolCalls[0]?.state).toBe('failed');
    expect(lastPrompt(server).find((line) => line.startsWith('tool:'))).toMatch(/EBUSY.*\(failed 3 times; not tried again\)/);
    await current.close();
  });

  it('does not retry a failure that will not pass', async () => {
    plan.failures = 1;
    plan.error = () => Object.assign(new Error('no such file'), { code: 'ENOENT' });
    const current = await run('flaky_read');
    await current.runtime.whenIdle(current.sessionId);
    expect(current.log).toEqual(['flaky_read']);
    expect(retries(current)).toEqual([]);
    plan.error = () => systemError('EBUSY');
    await current.close();
  });

  it('never retries a call that may write', async () => {
    plan.failures = 1;
    const current = await run('flaky_write', { autonomy: 'L2' });
    await current.runtime.whenIdle(current.sessionId);
    expect(current.log).toEqual(['flaky_write']);
    expect(retries(current)).toEqual([]);
    expect(current.view().messages[1]?.toolCalls[0]?.state).toBe('failed');
    await current.close();
  });

  it('stops at once when Stop comes during the wait', async () => {
    plan.failures = 1;
    const clock = new WaitingClock();
    const current = await run('flaky_read', { clock });
    await current.until((view) => view.messages[1]?.toolCalls[0]?.retry !== undefined, 'the retry');
    expect(clock.sleeps).toHaveLength(1);
    await current.runtime.cancel(current.sessionId);
    expect(current.log).toEqual(['flaky_read']);
    expect(current.view().status).toBe('cancelled');
    expect(current.view().messages[1]?.toolCalls[0]?.state).toBe('cancelled');
    await current.close();
  });

  it('knows a passing failure by its class or its system code, through causes', () => {
    expect(transientReason(new TransientToolError('the server restarted'))).toEqual({ reason: 'the server restarted' });
    // The code is said in words; the code itself is kept as the detail.
    expect(transientReason(new Error('fetch failed', { cause: systemError('ECONNRESET') }))).toEqual({
      reason: 'the connection was cut',
      detail: expect.stringMatching(/^ECONNRESET: /) as unknown,
    });
    for (const code of ['EAGAIN', 'EMFILE', 'ENFILE', 'ETIMEDOUT']) expect(transientReason(systemError(code))).not.toBeNull();
    expect(transientReason(systemError('EACCES'))).toBeNull();
    expect(transientReason('EBUSY')).toBeNull();
  });
});
