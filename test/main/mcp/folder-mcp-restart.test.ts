import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import { temporaryFolder, waitFor } from '../../helpers';
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

interface Opened {
  readonly session: { status: string };
  readonly entries: Array<{ event: { type: string; approvalId?: string; tool?: string; status?: string } }>;
}

describe("a folder's own MCP servers after a restart", () => {
  let base: ReturnType<typeof temporaryFolder>;
  let server: ScriptedModelServer;
  let project: string;
  let dataDir: string;
  const cores: WorkbenchCore[] = [];

  beforeEach(async () => {
    base = temporaryFolder('workbench-folder-mcp-restart-');
    project = join(base.path, 'project');
    dataDir = join(base.path, 'data');
    mkdirSync(project);
    mkdirSync(dataDir);
    writeFileSync(
      join(project, '.mcp.json'),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }),
    );
    server = await ScriptedModelServer.start();
  });
  afterEach(async () => {
    for (const core of cores.splice(0)) await core.close();
    await server.close();
    base.remove();
  });

  const open = async (): Promise<{ core: WorkbenchCore; transport: LoopbackTransport }> => {
    const opened = await createCoreWithScriptedModel({ dataDir, openaiBaseUrl: server.openaiBaseUrl, folderTrust: 'ask' });
    cores.push(opened.core);
    return opened;
  };

  /** A turn in the trusted project waiting at the gate of a call to the folder's tool, and the app stopped as a crash stops it. */
  const stoppedAtTheGate = async (): Promise<{ id: string; approvalId: string }> => {
    const first = await open();
    // At L1 a tool of a folder's server (whose marks are not trusted) is asked for.
    await call(first.transport, 'settings:update', { defaultAutonomy: 'L1' });
    const { id } = await call<{ id: string }>(first.transport, 'session:create', { workspacePath: project });
    await call(first.transport, 'folder-trust:decide', { sessionId: id, decision: 'trust' });
    server.enqueue({ steps: [toolCall('everything__echo', { message: 'after the restart' }, 'e1')] });
    await call(first.transport, 'run:send', { sessionId: id, text: 'Echo something' });
    await waitFor(() => first.core.core?.store.get(id)?.status === 'waiting_approval', 20_000, 'the gate');
    const opened = await call<Opened>(first.transport, 'session:open', { sessionId: id });
    const gate = opened.entries.find((entry) => entry.event.type === 'approval_requested');
    expect(gate?.event.tool).toBe('everything__echo');
    // Nothing more is written, and the turn is left at its gate; what the core held is let go.
    first.core.core?.db.close();
    cores.splice(cores.indexOf(first.core), 1);
    await first.core.close().catch(() => undefined);
    return { id, approvalId: gate?.event.approvalId ?? '' };
  };

  /** The model got the tool's own answer, and the turn ended well. */
  const echoed = async (transport: LoopbackTransport, id: string): Promise<void> => {
    const messages = server.requests.at(-1)?.body['messages'] as Array<{ role: string; content: string }>;
    expect(messages.find((message) => message.role === 'tool')?.content).toBe('Echo: after the restart');
    const opened = await call<Opened>(transport, 'session:open', { sessionId: id });
    const finished = opened.entries.filter((entry) => entry.event.type === 'tool_call_finished');
    expect(finished.map((entry) => entry.event.status)).toEqual(['succeeded']);
    expect(opened.session.status).toBe('completed');
  };

  it("runs a call to the folder's tool that waited at its gate when the app stopped, once it is approved", async () => {
    const { id, approvalId } = await stoppedAtTheGate();
    const second = await open();
    // The resumed turn is back at its gate once the folder's server has started.
    await waitFor(() => second.core.core?.store.get(id)?.status === 'waiting_approval', 20_000, 'the gate again');
    server.reset();
    server.enqueue(textTurn('It echoed.'));
    await call(second.transport, 'approval:answer', { approvalId, decision: 'allow_once' });
    await second.core.runtime?.whenIdle(id);
    await echoed(second.transport, id);
  });

  it("keeps an answer given straight after the restart, while the folder's server is starting", async () => {
    const { id, approvalId } = await stoppedAtTheGate();
    const second = await open();
    server.reset();
    server.enqueue(textTurn('It echoed.'));
    await call(second.transport, 'approval:answer', { approvalId, decision: 'allow_once' });
    await second.core.runtime?.whenIdle(id);
    await echoed(second.transport, id);
  });

  it("ends the resumed turn as cancelled when it is stopped while the folder's server is starting", async () => {
    const { id } = await stoppedAtTheGate();
    // The server now says nothing for seconds, then ends: the resumed turn would wait for it all that time.
    const silent = { command: process.execPath, args: ['-e', 'setTimeout(() => process.exit(1), 5000)'] };
    writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { silent } }));
    const second = await open();
    const stoppedAt = Date.now();
    expect(await call(second.transport, 'run:cancel', { sessionId: id })).toEqual({ cancelled: true });
    await second.core.runtime?.whenIdle(id);
    expect(Date.now() - stoppedAt).toBeLessThan(2_500);
    const opened = await call<Opened>(second.transport, 'session:open', { sessionId: id });
    expect(opened.session.status).toBe('cancelled');
    expect(opened.entries.some((entry) => entry.event.type === 'tool_call_finished')).toBe(false);
  });
});
