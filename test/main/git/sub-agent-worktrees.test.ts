import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../src/shared/domain';
import type { JournalEntry } from '../../../src/shared/events';
import { ScriptByAsker, requestsOf } from '../../scripted-model-server/by-asker';
import { textTurn } from '../../scripted-model-server';
import { toolCall } from '../agent/harness';
import { answer, useScriptedCore, type ScriptedCore } from '../scripted-core';
import { git, initRepository } from './git-fixtures';

const byAsker = new ScriptByAsker();

function prepare(folder: string): void {
  initRepository(folder, { '.gitignore': 'data/\ndata-worktrees/\n', 'shared.txt': 'one\ntwo\nthree\n' });
}

const slow = (text: string) => textTurn(text, { chunkSize: 2, chunkDelayMs: 40 });

describe('writing sub-agents in worktrees of their own', () => {
  let scripted: ScriptedCore;
  useScriptedCore(
    {
      builtinTools: true,
      dataDir: (folder) => join(folder, 'data'),
      session: 'workspace',
      prepare,
      server: { fallback: byAsker.route, llamaSlots: { total: 4 } },
    },
    (started) => (scripted = started),
  );

  it('run at the same time, and each brings its work back; a conflict between them is left in a worktree and said', async () => {
    const { sessionId, transport } = scripted;
    await answer<Session>(transport, 'session:setAutonomy', { sessionId, autonomy: 'L3' });
    await answer(transport, 'settings:update', { subAgentDepth: 1, subAgentConcurrency: 2 });
    byAsker.scripts = new Map([
      [
        'parent',
        [
          {
            steps: [
              toolCall('delegate', { goal: 'Change one', tools: 'read_write', worktree: true }, 'd1'),
              toolCall('delegate', { goal: 'Change two', tools: 'read_write', worktree: true }, 'd2'),
            ],
          },
          textTurn('Both done.'),
        ],
      ],
      [
        'Change one',
        [
          { steps: [toolCall('write_file', { path: 'one.txt', content: 'by one\n' }, 'w1')] },
          { steps: [toolCall('write_file', { path: 'shared.txt', content: 'one\nTWO by one\nthree\n' }, 'w2')] },
          slow('Changed one, slowly and surely.'),
        ],
      ],
      [
        'Change two',
        [
          { steps: [toolCall('write_file', { path: 'two.txt', content: 'by two\n' }, 'w3')] },
          { steps: [toolCall('write_file', { path: 'shared.txt', content: 'one\ntwo by two\nthree\n' }, 'w4')] },
          slow('Changed two, slowly and surely.'),
        ],
      ],
    ]);
    await answer(transport, 'run:send', { sessionId, text: 'Make both changes' });
    await scripted.core.runtime?.whenIdle(sessionId);

    // In parallel: each began before the other had answered (its last answer streams for over 600 ms; one after the
    // other, the second would begin only once the first's had ended).
    const [one, two] = ['Change one', 'Change two'].map((who) => requestsOf(scripted.server.requests, who)[0]?.receivedAt ?? NaN);
    expect(Math.abs((one ?? NaN) - (two ?? NaN))).toBeLessThan(300);

    const main = scripted.folder.path;
    expect(readFileSync(join(main, 'one.txt'), 'utf8')).toBe('by one\n');
    expect(readFileSync(join(main, 'two.txt'), 'utf8')).toBe('by two\n');
    expect(['one\nTWO by one\nthree\n', 'one\ntwo by two\nthree\n']).toContain(readFileSync(join(main, 'shared.txt'), 'utf8'));

    const { entries } = await answer<{ entries: JournalEntry[] }>(transport, 'session:open', { sessionId });
    const delegated = new Set(
      entries.flatMap(({ event }) => (event.type === 'tool_call_requested' && event.tool === 'delegate' ? [event.toolCallId] : [])),
    );
    const outputs = entries.flatMap(({ event }) =>
      event.type === 'tool_call_finished' && delegated.has(event.toolCallId) ? [event.output] : [],
    );
    expect(outputs).toHaveLength(2);
    const conflicted = outputs.filter((output) => output.includes('Conflicts with this folder were left in its worktree'));
    expect(conflicted).toHaveLength(1);
    expect(conflicted[0]).toContain('shared.txt');
    const clean = outputs.find((output) => !output.includes('Conflicts'));
    expect(clean).toMatch(/Its changes came back to this folder: (shared\.txt, (one|two)\.txt|(one|two)\.txt, shared\.txt)\.$/);
    // The worktree with the conflict is kept (nothing lost); the other is gone.
    expect(git(main, 'worktree', 'list').trim().split('\n')).toHaveLength(2);
  });
});
