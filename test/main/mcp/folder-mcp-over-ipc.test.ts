import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerStatus } from '../../../src/shared/domain';
import type { ToolInfo } from '../../../src/shared/ipc/contract';
import type { FolderTrustList } from '../../../src/shared/folder-trust';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import { alive, temporaryFolder, waitFor } from '../../helpers';
import type { LoopbackTransport } from '../../host/loopback-transport';
import { createCoreWithScriptedModel } from '../../host/node-core';
import { ScriptedModelServer, textTurn } from '../../scripted-model-server';
import { toolCall } from '../agent/harness';

const everything = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

async function call<T>(transport: LoopbackTransport, channel: string, input: unknown): Promise<T> {
  const result = await transport.invoke(channel, input);
  if (!result.ok) throw new Error(`${channel}: ${result.error.code}: ${result.error.message}`);
  return result.value as T;
}

describe("a folder's own MCP servers in the app", () => {
  let base: ReturnType<typeof temporaryFolder>;
  let server: ScriptedModelServer;
  let transport: LoopbackTransport;
  let core: WorkbenchCore;
  /** A project with a server of its own; one that would start a program; one with none. */
  let project: string;
  let cloned: string;
  let plain: string;

  beforeAll(async () => {
    base = temporaryFolder('workbench-folder-mcp-');
    project = join(base.path, 'code', 'project');
    cloned = join(base.path, 'code', 'cloned');
    plain = join(base.path, 'code', 'plain');
    for (const folder of [project, cloned, plain]) mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(project, '.mcp.json'),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }),
    );
    const starter = { command: process.execPath, args: ['-e', "require('fs').writeFileSync('started', '')"] };
    writeFileSync(join(cloned, '.mcp.json'), JSON.stringify({ mcpServers: { starter } }));
    mkdirSync(join(base.path, 'data'));
    server = await ScriptedModelServer.start();
    ({ core, transport } = await createCoreWithScriptedModel({
      dataDir: join(base.path, 'data'),
      openaiBaseUrl: server.openaiBaseUrl,
      folderTrust: 'ask',
    }));
    // Low-risk writes run without asking: the folder's tools (whose marks are not trusted) run at once.
    await call(transport, 'settings:update', { defaultAutonomy: 'L2' });
  });
  afterAll(async () => {
    await core?.close();
    await server?.close();
    base?.remove();
  });

  const session = async (workspacePath: string | null): Promise<string> =>
    (await call<{ id: string }>(transport, 'session:create', { workspacePath })).id;
  const offered = (index: number): string[] =>
    ((server.requests[index]?.body['tools'] as Array<{ function: { name: string } }> | undefined) ?? []).map((tool) => tool.function.name);
  const ask = async (sessionId: string, text: string): Promise<void> => {
    await call(transport, 'run:send', { sessionId, text });
    await core.runtime?.whenIdle(sessionId);
  };

  it("offers a trusted folder's server's tools in its sessions, and runs them, and nowhere else", async () => {
    const inProject = await session(project);
    await call(transport, 'folder-trust:decide', { sessionId: inProject, decision: 'trust' });
    server.reset();
    server.enqueue({ steps: [toolCall('everything__echo', { message: 'from the folder' }, 'f1')] }, textTurn('It echoed.'));
    await ask(inProject, 'Echo something');
    expect(offered(0)).toContain('everything__echo');
    const messages = server.requests[1]?.body['messages'] as Array<{ role: string; content: string }>;
    expect(messages.find((message) => message.role === 'tool')?.content).toBe('Echo: from the folder');
    const listed = await call<McpServerStatus[]>(transport, 'mcp:list', {});
    expect(listed).toEqual([
      expect.objectContaining({ name: 'everything', state: 'running', source: { folder: project, file: '.mcp.json' } }),
    ]);
    expect(transport.sent.some((sent) => sent.event === 'mcp:changed')).toBe(true);

    // Another trusted folder's session, and a session with no folder: not offered, and a call to one is no tool there.
    const inPlain = await session(plain);
    await call(transport, 'folder-trust:decide', { sessionId: inPlain, decision: 'trust' });
    const nowhere = await session(null);
    server.reset();
    server.enqueue({ steps: [toolCall('everything__echo', { message: 'elsewhere' }, 'f2')] }, textTurn('No.'), textTurn('Nothing here.'));
    await ask(inPlain, 'Echo something');
    await ask(nowhere, 'Anything?');
    expect(offered(0)).not.toContain('everything__echo');
    expect(offered(2)).not.toContain('everything__echo');
    const refused = (server.requests[1]?.body['messages'] as Array<{ role: string; content: string }>).find(
      (message) => message.role === 'tool',
    );
    expect(refused?.content).toMatch(/There is no tool named everything__echo/);
  });

  it("lists a trusted folder's tools in Settings → Tools, and one denied there is neither offered nor run", async () => {
    const listed = await call<ToolInfo[]>(transport, 'tool:list', {});
    expect(listed.filter((tool) => tool.name === 'everything__echo')).toEqual([
      expect.objectContaining({ name: 'everything__echo', server: 'everything', folder: project }),
    ]);
    await call(transport, 'settings:update', { deniedTools: ['everything__echo'] });
    try {
      const inProject = await session(project);
      server.reset();
      server.enqueue({ steps: [toolCall('everything__echo', { message: 'denied' }, 'd1')] }, textTurn('Not run.'));
      await ask(inProject, 'Echo something');
      expect(offered(0)).not.toContain('everything__echo');
      // The server's other tools are still offered.
      expect(offered(0).filter((name) => name.startsWith('everything__')).length).toBeGreaterThan(0);
      const messages = server.requests[1]?.body['messages'] as Array<{ role: string; content: string }>;
      expect(messages.find((message) => message.role === 'tool')?.content).toBe('Not run: You have denied everything__echo in Settings.');
    } finally {
      await call(transport, 'settings:update', { deniedTools: [] });
    }
  });

  it('starts nothing of a folder that is not trusted, even when a turn runs in it', async () => {
    const inCloned = await session(cloned);
    server.reset();
    server.enqueue(textTurn('Restricted.'));
    await ask(inCloned, 'Hello');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(join(cloned, 'started'))).toBe(false);
    const listed = await call<McpServerStatus[]>(transport, 'mcp:list', {});
    expect(listed.some((status) => status.source?.folder === cloned)).toBe(false);
  });

  it("follows the folder's file as it changes, with no turn needed", async () => {
    const names = (): string[] => (core.mcp?.statuses() ?? []).map((status) => `${status.name} ${status.state}`);
    const entry = { command: process.execPath, args: [everything, 'stdio'] };
    writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { renamed: entry } }));
    await waitFor(() => names().join() === 'renamed running', 15_000, 'the renamed server to run');
    writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { everything: entry } }));
    await waitFor(() => names().join() === 'everything running', 15_000, 'the first server to run again');
  });

  it('stops the servers of a folder whose trust is taken back in Settings, and offers their tools no more', async () => {
    const inProject = await session(project);
    const pid = core.mcp?.connection('everything', project)?.pid;
    expect(pid).toBeGreaterThan(0);
    await call<FolderTrustList>(transport, 'folder-trust:set', { path: project, scope: 'folder', trusted: false });
    await waitFor(() => core.mcp?.statuses().length === 0, 5_000, 'the server to stop');
    server.reset();
    server.enqueue(textTurn('Restricted now.'));
    await ask(inProject, 'Echo something');
    expect(offered(0)).not.toContain('everything__echo');
    expect(await call<McpServerStatus[]>(transport, 'mcp:list', {})).toEqual([]);
  });

  it("stops a folder's servers when its last session is deleted, and starts them again for a new session's turn", async () => {
    const lonely = join(base.path, 'code', 'lonely');
    mkdirSync(lonely);
    writeFileSync(
      join(lonely, '.mcp.json'),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }),
    );
    const first = await session(lonely);
    await call(transport, 'folder-trust:decide', { sessionId: first, decision: 'trust' });
    const second = await session(lonely);
    server.reset();
    server.enqueue(textTurn('Ready.'));
    await ask(first, 'Hello');
    const fromLonely = async (): Promise<McpServerStatus[]> =>
      (await call<McpServerStatus[]>(transport, 'mcp:list', {})).filter((status) => status.source?.folder === lonely);
    expect(await fromLonely()).toEqual([expect.objectContaining({ name: 'everything', state: 'running' })]);
    const pid = core.mcp?.connection('everything', lonely)?.pid as number;
    expect(pid).toBeGreaterThan(0);

    // Another session still works there: the server stays.
    await call(transport, 'session:delete', { sessionId: first });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(alive(pid)).toBe(true);
    expect(await fromLonely()).toHaveLength(1);

    await call(transport, 'session:delete', { sessionId: second });
    // Its process ends (gone, or a zombie its parent reaps next), and the server is no longer kept once it has.
    await waitFor(() => !alive(pid), 5_000, 'the server process to end');
    await waitFor(() => !core.mcp?.connection('everything', lonely), 5_000, 'the server to be let go');
    expect(await fromLonely()).toEqual([]);
    // And it stays stopped: the folder is looked at again every few seconds, and nothing asks for it.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await fromLonely()).toEqual([]);

    const third = await session(lonely);
    server.reset();
    server.enqueue({ steps: [toolCall('everything__echo', { message: 'back again' }, 'l1')] }, textTurn('It echoed.'));
    await ask(third, 'Echo something');
    const messages = server.requests[1]?.body['messages'] as Array<{ role: string; content: string }>;
    expect(messages.find((message) => message.role === 'tool')?.content).toBe('Echo: back again');
    expect(await fromLonely()).toEqual([expect.objectContaining({ name: 'everything', state: 'running' })]);
  });
});
