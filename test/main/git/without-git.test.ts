import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GitView } from '../../../src/shared/git';
import { textTurn } from '../../scripted-model-server';
import { answer, useScriptedCore, type ScriptedCore } from '../scripted-core';
import { git, write } from './git-fixtures';

describe('the app on a computer without git', () => {
  let scripted: ScriptedCore;
  useScriptedCore(
    {
      builtinTools: true,
      dataDir: (folder) => join(folder, 'data'),
      session: 'workspace',
      gitEnvironment: { ...process.env, PATH: '/nonexistent' },
      prepare: (folder) => {
        git(folder, 'init', '--quiet', '--initial-branch=main');
        write(folder, { 'a.txt': 'a\n' });
      },
    },
    (started) => (scripted = started),
  );

  it('offers no git tools, says once why in the header, refuses worktrees plainly, and turns still run', async () => {
    const { sessionId, transport, server } = scripted;
    const view = await answer<GitView>(transport, 'git:view', { sessionId });
    expect(view).toEqual({ kind: 'unavailable', reason: expect.stringContaining('Git was not found on this computer') });
    await expect(answer(transport, 'git:worktreeSession', { workspacePath: scripted.folder.path })).rejects.toThrow(/Worktrees need git/);
    server.enqueue(textTurn('Hello.'));
    await answer(transport, 'run:send', { sessionId, text: 'Hi' });
    await scripted.core.runtime?.whenIdle(sessionId);
    const tools = (server.requests.at(-1)?.body['tools'] as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(tools).toContain('read_file');
    expect(tools.filter((name) => name.startsWith('git_'))).toEqual([]);
  });
});
