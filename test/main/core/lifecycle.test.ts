import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/main/agent/ports/ids';
import { builtinTools } from '../../../src/main/tools/builtin-tools';
import { temporaryFolder } from '../../helpers';
import { bash, needs, procFs } from '../../platform';
import { createCoreWithScriptedModel } from '../../host/node-core';
import { startTestHost } from '../../host/host';
import { ScriptedModelServer, textTurn } from '../../scripted-model-server';
import { toolCall } from '../agent/harness';
import { BashParser } from '../../../src/main/shell/bash-parser';

const shell = await BashParser.load();

const everything = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

/** What this process holds now: its handles and requests by kind, its listeners, and its child processes. */
function holdings(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  counts['process listeners'] = process.eventNames().reduce((sum, name) => sum + process.listenerCount(name), 0);
  counts['child processes'] = readdirSync('/proc').filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      // Field 4 of /proc/<pid>/stat is the parent's pid (after the command name in parentheses).
      const stat = readFileSync(join('/proc', entry, 'stat'), 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
    } catch {
      return false;
    }
  }).length;
  return counts;
}

/** Waits until the holdings settle (a closed socket or an exited process is let go a moment later). */
async function settled(expected?: Record<string, number>): Promise<Record<string, number>> {
  let last = holdings();
  for (let attempt = 0; attempt < 100; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = holdings();
    if (expected ? JSON.stringify(now) === JSON.stringify(expected) : JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  return last;
}

describe('the core lets go of everything it held', needs(procFs, bash), () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await ScriptedModelServer.start();
  });
  afterAll(async () => server.close());

  /**
   * One life of the core: an MCP server started, sessions opened and closed, a turn that runs a
   * command in a pty and another that calls the MCP tool, then the core closed.
   */
  async function life(withHost: boolean): Promise<void> {
    const folder = temporaryFolder();
    try {
      const tools = builtinTools({ shell, dataDir: folder.path, newId: () => newId(), now: () => Date.now() });
      const { core, transport } = withHost
        ? await (async () => {
            // The page itself is not loaded here: a stand-in renderer keeps this test independent of the build.
            const page = join(folder.path, 'page');
            mkdirSync(page);
            writeFileSync(join(page, 'index.html'), '<!doctype html><title>stand-in</title>');
            writeFileSync(join(page, 'bridge.js'), '');
            const host = await startTestHost({ dataDir: folder.path, tools, rendererDir: page, bridgeFile: join(page, 'bridge.js') });
            const saved = await host.invoke('provider:save', { kind: 'openai-compatible', name: 'S', baseUrl: server.openaiBaseUrl });
            if (!saved.ok) throw new Error(saved.error.message);
            await host.invoke('settings:update', {
              defaultModel: { providerId: (saved.value as { id: string }).id, model: 'scripted-model' },
            });
            return { core: { close: () => host.close(), runtime: host.core.runtime }, transport: host };
          })()
        : await createCoreWithScriptedModel({ dataDir: folder.path, openaiBaseUrl: server.openaiBaseUrl, tools });
      const invoke = async <T>(channel: string, input: unknown): Promise<T> => {
        const result = await transport.invoke(channel, input);
        if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
        return result.value as T;
      };
      const servers = await invoke<Array<{ state: string }>>('mcp:configure', {
        mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
      });
      expect(servers.map((server) => server.state)).toEqual(['running']);
      await invoke('settings:update', { defaultAutonomy: 'L3' });
      for (let round = 0; round < 3; round += 1) {
        const { id } = await invoke<{ id: string }>('session:create', { workspacePath: folder.path });
        server.enqueue(
          { steps: [toolCall('run_command', { command: 'echo hello' }, 'c1')] },
          { steps: [toolCall('everything__echo', { message: 'hi' }, 'm1')] },
          textTurn('Done.'),
        );
        await invoke('run:send', { sessionId: id, text: 'Run it' });
        await core.runtime?.whenIdle(id);
        const opened = await invoke<{ entries: Array<{ event: { type: string; status?: string } }> }>('session:open', {
          sessionId: id,
          recentTurns: 30,
        });
        // The command ran in its pty and the MCP server answered: the lives below used them for real.
        const results = opened.entries.filter((entry) => entry.event.type === 'tool_call_finished').map((entry) => entry.event.status);
        expect(results).toEqual(['succeeded', 'succeeded']);
        await invoke('session:tree', { sessionId: id });
        await invoke('session:delete', { sessionId: id });
      }
      await core.close();
    } finally {
      folder.remove();
    }
  }

  it('after many lives of the core, on a loopback transport and behind the test host, holds what it held after the first', async () => {
    await life(false);
    await life(true);
    const before = await settled();
    for (let index = 0; index < 4; index += 1) {
      await life(false);
      await life(true);
    }
    const after = await settled(before);
    expect(after).toEqual(before);
    expect(after['child processes']).toBe(0);
  }, 120_000);
});
