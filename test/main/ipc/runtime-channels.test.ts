import { answer, useScriptedCore } from '../scripted-core';
import { describe, expect, it } from 'vitest';
import type { TrustGrant } from '../../../src/shared/domain';
import type { SessionTotalsView } from '../../../src/shared/ipc/contract';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import type { LoopbackTransport } from '../../host/loopback-transport';
import { ScriptedModelServer, textTurn } from '../../scripted-model-server';
import { testTools, toolCall } from '../agent/harness';
import { temporaryFolder } from '../../helpers';

describe('runtime channels over IPC', () => {
  let folder: { path: string };
  let server: ScriptedModelServer;
  let transport: LoopbackTransport;
  let core: WorkbenchCore;
  let sessionId: string;
  const log: string[] = [];

  const value = <T>(channel: string, payload: unknown): Promise<T> => answer<T>(transport, channel, payload);

  useScriptedCore(
    { tools: () => testTools(log).tools, session: 'workspace' },
    (started) => ({ folder, server, transport, core, sessionId } = started),
  );

  it('answers a gate, lists the grant it created, announces it, and revokes it', async () => {
    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 't' })] }, textTurn('ok'));
    await value('run:send', { sessionId, text: 'Write' });
    let approvalId = '';
    while (approvalId === '') {
      const opened = await value<{ entries: Array<{ event: { type: string; approvalId?: string } }> }>('session:open', { sessionId });
      approvalId = opened.entries.find((entry) => entry.event.type === 'approval_requested')?.event.approvalId ?? '';
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    transport.sent.length = 0;
    expect(await value('approval:answer', { approvalId, decision: 'allow_1h' })).toEqual({ accepted: true });
    expect(await transport.invoke('approval:answer', { approvalId, decision: 'deny' })).toMatchObject({
      ok: false,
      error: { code: 'already_answered' },
    });
    await core.runtime?.whenIdle(sessionId);
    const grants = await value<TrustGrant[]>('trust:list', {});
    expect(grants).toEqual([expect.objectContaining({ tool: 'write_note', workspacePath: folder.path, maxRisk: 'write_low' })]);
    expect(
      transport.sent.some((sent) => sent.event === 'trust:changed' && (sent.payload as { grants: unknown[] }).grants.length === 1),
    ).toBe(true);

    const revoked = await value<TrustGrant>('trust:revoke', { grantId: grants[0]?.id });
    expect(revoked.revokedAt).not.toBeNull();
    expect(await value('trust:list', {})).toEqual([]);
    expect(
      transport.sent.some((sent) => sent.event === 'trust:changed' && (sent.payload as { grants: unknown[] }).grants.length === 0),
    ).toBe(true);
  });

  it('lists a “this session” grant until its session is deleted', async () => {
    const other = await value<{ id: string }>('session:create', { workspacePath: folder.path });
    server.enqueue({ steps: [toolCall('write_note', { name: 'x', text: 't' })] }, textTurn('ok'));
    await value('run:send', { sessionId: other.id, text: 'Write x' });
    let approvalId = '';
    while (approvalId === '') {
      const opened = await value<{ entries: Array<{ event: { type: string; approvalId?: string } }> }>('session:open', {
        sessionId: other.id,
      });
      approvalId = opened.entries.find((entry) => entry.event.type === 'approval_requested')?.event.approvalId ?? '';
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await value('approval:answer', { approvalId, decision: 'allow_session' });
    await core.runtime?.whenIdle(other.id);
    expect(await value<TrustGrant[]>('trust:list', {})).toEqual([expect.objectContaining({ sessionId: other.id })]);
    await value('session:delete', { sessionId: other.id });
    expect(await value('trust:list', {})).toEqual([]);
  });

  it('reports session totals and the full output of a tool call', async () => {
    const totals = await value<SessionTotalsView>('session:stats', { sessionId });
    expect(totals).toMatchObject({ modelCalls: 2, toolCalls: 1, toolFailures: 0, costUsd: 0 });
    const opened = await value<{ entries: Array<{ event: { type: string; toolCallId?: string } }> }>('session:open', { sessionId });
    const toolCallId = opened.entries.find((entry) => entry.event.type === 'tool_call_finished')?.event.toolCallId;
    expect(await value('tool:output', { toolCallId })).toEqual({ output: 'wrote 1 characters to n', outputBytes: 23, truncated: false });
  });

  it('queues a message sent while busy and clears it on request', async () => {
    server.enqueue(textTurn('slow answer', { chunkDelayMs: 30 }));
    expect(await value('run:send', { sessionId, text: 'first' })).toMatchObject({ queued: false });
    expect(await value('run:send', { sessionId, text: 'second' })).toEqual({ turnId: null, queued: true });
    expect(await value('run:clearQueue', { sessionId })).toEqual({ cleared: true });
    await core.runtime?.whenIdle(sessionId);
    const opened = await value<{ entries: Array<{ event: { type: string; text?: string } }> }>('session:open', { sessionId });
    expect(opened.entries.filter((entry) => entry.event.type === 'user_message').map((entry) => entry.event.text)).toEqual([
      'Write',
      'first',
    ]);
  });

  it('sets the autonomy of a session', async () => {
    expect(await value('session:setAutonomy', { sessionId, autonomy: 'L2' })).toMatchObject({ autonomy: 'L2' });
  });

  it('starts a new session in the last folder used, unless asked for none or the folder is gone', async () => {
    expect(await value('session:create', {})).toMatchObject({ workspacePath: folder.path });
    expect(await value('session:create', { workspacePath: null })).toMatchObject({ workspacePath: null });
    const gone = temporaryFolder('workbench-gone-');
    await value('session:create', { workspacePath: gone.path });
    gone.remove();
    expect(await value('session:create', {})).toMatchObject({ workspacePath: null });
  });

  it('lists the folders used last, once each, and says which of them are gone', async () => {
    const gone = temporaryFolder('workbench-gone-');
    await value('session:create', { workspacePath: folder.path });
    await value('session:create', { workspacePath: gone.path });
    gone.remove();
    const recent = await value<Array<{ path: string; exists: boolean }>>('workspace:recent', {});
    expect(recent.slice(0, 2)).toEqual([
      { path: gone.path, exists: false },
      { path: folder.path, exists: true },
    ]);
    expect(new Set(recent.map((item) => item.path)).size).toBe(recent.length);
  });

  it('keeps an endpoint picked without a model, and refuses to send on any other model meanwhile', async () => {
    const other = await value<{ id: string; model: { providerId: string; model: string } }>('session:create', {});
    const providerId = other.model.providerId;
    const before = await value<{ entries: unknown[] }>('session:open', { sessionId: other.id });
    expect(await value('session:setModel', { sessionId: other.id, model: { providerId, model: '' } })).toMatchObject({
      model: { providerId, model: '' },
    });
    expect(await transport.invoke('run:send', { sessionId: other.id, text: 'Hello?' })).toMatchObject({
      ok: false,
      error: { code: 'no_model', message: expect.stringContaining('only its endpoint is picked') },
    });
    const after = await value<{ entries: unknown[]; session: { model: unknown } }>('session:open', { sessionId: other.id });
    expect(after.entries).toEqual(before.entries);
    // Saved as picked, as the list of sessions shows it after a restart.
    const listed = await value<Array<{ id: string; model: unknown }>>('session:list', {});
    expect(listed.find((session) => session.id === other.id)?.model).toEqual({ providerId, model: '' });
  });
});
