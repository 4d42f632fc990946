import { useScriptedCore } from '../scripted-core';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { McpServerStatus } from '../../../src/shared/domain';
import type { JournalEntry } from '../../../src/shared/events';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import type { LoopbackTransport } from '../../host/loopback-transport';
import { ScriptedModelServer, textTurn } from '../../scripted-model-server';
import { toolCall } from '../agent/harness';

const everything = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

describe('MCP servers in the app', () => {
  let folder: { path: string };
  let server: ScriptedModelServer;
  let transport: LoopbackTransport;
  let core: WorkbenchCore;
  useScriptedCore({}, (started) => ({ folder, server, transport, core } = started));

  it('configures a server, offers its tools to the model, runs a read-only one at L1 once its marks are trusted, and can disable it', async () => {
    const configured = await transport.invoke('mcp:configure', {
      mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'], trusted: true } },
    });
    expect(configured).toMatchObject({ ok: true, value: [{ name: 'everything', state: 'running' }] });
    expect(transport.sent.some((sent) => sent.event === 'mcp:changed')).toBe(true);
    const settings = await transport.invoke('settings:get', {});
    expect(settings.ok && (settings.value as { mcpServers: Record<string, unknown> }).mcpServers['everything']).toBeTruthy();

    const created = await transport.invoke('session:create', { workspacePath: folder.path });
    if (!created.ok) throw new Error(created.error.message);
    const sessionId = (created.value as { id: string }).id;
    server.enqueue({ steps: [toolCall('everything__echo', { message: 'through MCP' }, 'm1')] }, textTurn('It echoed.'));
    await transport.invoke('run:send', { sessionId, text: 'Echo something' });
    await core.runtime?.whenIdle(sessionId);
    const offered = (server.requests[0]?.body['tools'] as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(offered).toContain('everything__echo');
    const messages = server.requests[1]?.body['messages'] as Array<{ role: string; content: string }>;
    expect(messages.find((message) => message.role === 'tool')?.content).toBe('Echo: through MCP');

    const disabled = await transport.invoke('mcp:setEnabled', { name: 'everything', enabled: false });
    expect(disabled.ok && (disabled.value as McpServerStatus[])[0]?.state).toBe('disabled');
    server.reset();
    server.enqueue(textTurn('No server tools now.'));
    await transport.invoke('run:send', { sessionId, text: 'Anything?' });
    await core.runtime?.whenIdle(sessionId);
    // Only the app's own tools are left (memory, and handing work to sub-agents): none of the server's.
    const left = (server.requests[0]?.body['tools'] as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(left).toEqual(['remember', 'recall', 'delegate', 'run_plan']);
  });

  it("asks before a tool the server marks read-only when the server's marks are not trusted", async () => {
    const configured = await transport.invoke('mcp:configure', {
      mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
    });
    expect(configured).toMatchObject({ ok: true, value: [{ name: 'everything', state: 'running' }] });
    const created = await transport.invoke('session:create', { workspacePath: folder.path });
    if (!created.ok) throw new Error(created.error.message);
    const sessionId = (created.value as { id: string }).id;
    server.reset();
    server.enqueue({ steps: [toolCall('everything__echo', { message: 'unasked?' }, 'm2')] }, textTurn('Done.'));
    await transport.invoke('run:send', { sessionId, text: 'Echo something' });
    let approval: Extract<JournalEntry['event'], { type: 'approval_requested' }> | undefined;
    for (let tries = 0; !approval && tries < 2000; tries += 1) {
      const opened = await transport.invoke('session:open', { sessionId });
      approval = (opened.ok ? (opened.value as { entries: JournalEntry[] }).entries : [])
        .map((entry) => entry.event)
        .find((event): event is Extract<JournalEntry['event'], { type: 'approval_requested' }> => event.type === 'approval_requested');
      if (!approval) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(approval).toMatchObject({ tool: 'everything__echo', risk: 'write_low' });
    expect(approval?.reason).toContain('not trusted');
    await transport.invoke('approval:answer', { approvalId: approval?.approvalId, decision: 'deny' });
    await core.runtime?.whenIdle(sessionId);
  });
});
