import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RuntimeEvent } from '../../../../src/shared/events';
import { maxArgumentDepth, nestingDepth } from '../../../../src/main/agent/turn/tool-calls';
import { defineTool } from '../../../../src/main/agent/ports/tools';
import { textTurn, type ScriptedModelServer } from '../../../scripted-model-server';
import { createHarness, lastPrompt, useHarness, type Harness } from '../harness';

/** A stand-in whose risk cannot be judged: its assessment throws, as a parser running out of stack would. It runs nothing. */
const unjudgeable = (log: string[]) =>
  defineTool({
    name: 'unjudgeable',
    description: 'A tool whose risk assessment fails.',
    input: z.object({ text: z.string() }).strict(),
    risk: 'write_low',
    assess: () => {
      throw new RangeError('Maximum call stack size exceeded');
    },
    execute: async (input) => {
      log.push(`unjudgeable ${input.text}`);
      return { output: 'ran' };
    },
  });

describe('tool call arguments the runtime cannot handle as they are', () => {
  let server: ScriptedModelServer;
  let harness: Harness | null = null;
  useHarness({ server: (started) => (server = started) });
  afterEach(async () => {
    await harness?.close();
    harness = null;
  });

  const events = (target: Harness): RuntimeEvent[] => target.store.journal(target.sessionId).map((entry) => entry.event);

  it('counts nesting without recursion, however deep', () => {
    expect(nestingDepth('text', 64)).toBe(0);
    expect(nestingDepth({ a: [1, { b: [] }] }, 64)).toBe(4);
    expect(nestingDepth(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), 64)).toBe(65);
  });

  it('refuses arguments nested 20,000 deep as the call’s result, and the turn goes on and ends', async () => {
    const target = (harness = await createHarness(server, { autonomy: 'L1' }));
    const deep = `{"name":${'['.repeat(20_000)}${']'.repeat(20_000)},"text":"x"}`;
    server.enqueue(
      {
        steps: [
          { kind: 'text', text: 'Calling.' },
          { kind: 'tool_call', id: 'c1', name: 'write_note', arguments: deep },
        ],
      },
      textTurn('Sorry.'),
    );
    target.runtime.send(target.sessionId, 'Go');
    await target.runtime.whenIdle(target.sessionId);

    expect(target.log).toEqual([]);
    const journal = events(target);
    expect(journal.filter((event) => event.type === 'run_finished')).toEqual([
      expect.objectContaining({ status: 'completed_with_errors' }),
    ]);
    const requested = journal.find((event) => event.type === 'tool_call_requested');
    expect(requested?.type === 'tool_call_requested' && typeof requested.input === 'string' && requested.input.length).toBeLessThan(2_100);
    const call = target.view().messages[1]?.toolCalls[0];
    expect(call).toMatchObject({ state: 'failed' });
    expect(call?.output).toContain(`nest deeper than ${maxArgumentDepth} levels`);
    expect(target.view().messages[1]?.text).toBe('Calling.');
    expect(lastPrompt(server).join('\n')).toContain(`nest deeper than ${maxArgumentDepth} levels`);
    expect(target.view().status).toBe('completed_with_errors');
  });

  it('refuses arguments one level deeper than the limit, and takes them at the limit', async () => {
    const target = (harness = await createHarness(server, { autonomy: 'L3' }));
    const nested = (depth: number): string => `{"name":"a","text":"x","extra":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    server.enqueue(
      {
        steps: [
          { kind: 'tool_call', id: 'c1', name: 'write_note', arguments: nested(maxArgumentDepth + 1) },
          { kind: 'tool_call', id: 'c2', name: 'write_note', arguments: nested(maxArgumentDepth) },
        ],
      },
      textTurn('Done.'),
    );
    target.runtime.send(target.sessionId, 'Go');
    await target.runtime.whenIdle(target.sessionId);
    const [tooDeep, atLimit] = target.view().messages[1]?.toolCalls ?? [];
    expect(tooDeep?.output).toContain('nest deeper than');
    // At the limit the call reaches the tool's own schema, which refuses the unknown key.
    expect(atLimit?.output).toContain('Invalid input for write_note');
  });

  it('gives a call whose risk assessment throws a failed result instead of failing the turn', async () => {
    const target = (harness = await createHarness(server, { autonomy: 'L3', extraTools: (log) => [unjudgeable(log)] }));
    server.enqueue(
      { steps: [{ kind: 'tool_call', id: 'c1', name: 'unjudgeable', arguments: JSON.stringify({ text: 'hello' }) }] },
      textTurn('It could not be judged.'),
    );
    target.runtime.send(target.sessionId, 'Go');
    await target.runtime.whenIdle(target.sessionId);

    expect(target.log).toEqual([]);
    const call = target.view().messages[1]?.toolCalls[0];
    expect(call).toMatchObject({ state: 'failed' });
    expect(call?.output).toContain('could not be judged (Maximum call stack size exceeded)');
    expect(events(target).filter((event) => event.type === 'run_finished')).toEqual([
      expect.objectContaining({ status: 'completed_with_errors' }),
    ]);
  });
});
