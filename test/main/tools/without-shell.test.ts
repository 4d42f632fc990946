import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AppInfo } from '../../../src/shared/ipc/contract';
import { textTurn } from '../../scripted-model-server';
import { answer, useScriptedCore, type ScriptedCore } from '../scripted-core';

describe('the app on Windows without Git for Windows', () => {
  let scripted: ScriptedCore;
  useScriptedCore(
    {
      builtinTools: true,
      dataDir: (folder) => join(folder, 'data'),
      session: 'workspace',
      commandShell: {
        available: false,
        reason:
          "Git for Windows' bash was not found, so the agent cannot run commands. Install Git for Windows from https://git-scm.com/download/win, or set WORKBENCH_GIT_BASH_PATH.",
      },
    },
    (started) => (scripted = started),
  );

  it('offers no run_command, says how to get a shell, and turns still run with the file tools', async () => {
    const { sessionId, transport, server } = scripted;
    const info = await answer<AppInfo>(transport, 'app:info', {});
    expect(info.commandShell).toEqual({ available: false, description: expect.stringContaining('https://git-scm.com/download/win') });
    server.enqueue(textTurn('Hello.'));
    await answer(transport, 'run:send', { sessionId, text: 'Hi' });
    await scripted.core.runtime?.whenIdle(sessionId);
    const request = server.requests.at(-1)?.body;
    const tools = (request?.['tools'] as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(tools).toContain('read_file');
    expect(tools).not.toContain('run_command');
    expect(tools).not.toContain('run_check');
    expect(JSON.stringify(request?.['messages'])).toContain('run_command is not offered on this computer');
  });
});
