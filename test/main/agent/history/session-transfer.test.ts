import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../../src/shared/domain';
import type { BranchPoint } from '../../../../src/shared/branches';
import type { JournalEntry } from '../../../../src/shared/events';
import { emptySessionView, reduceSessionView, type SessionView } from '../../../../src/shared/session-view';
import type { Core } from '../../../../src/main/core/create-core';
import type { WorkbenchCore } from '../../../../src/main/core/workbench-core';
import { headMismatches } from '../../../head-check';
import type { LoopbackTransport } from '../../../host/loopback-transport';
import { textTurn, type ScriptedModelServer } from '../../../scripted-model-server';
import { useScriptedCore } from '../../scripted-core';

const fixture = (name: string): string => readFileSync(new URL(`../../../fixtures/export/${name}`, import.meta.url), 'utf8');

describe('session export and import', () => {
  let server: ScriptedModelServer;
  let transport: LoopbackTransport;
  let core: WorkbenchCore;
  useScriptedCore({}, (started) => ({ server, transport, core } = started));

  async function call<T>(channel: string, input: unknown): Promise<T> {
    const result = await transport.invoke(channel, input);
    if (!result.ok) throw Object.assign(new Error(result.error.message), { code: result.error.code });
    return result.value as T;
  }
  async function open(sessionId: string): Promise<{ view: SessionView; points: BranchPoint[] }> {
    const opened = await call<{ entries: JournalEntry[]; branchPoints: BranchPoint[] }>('session:open', { sessionId });
    return { view: reduceSessionView(emptySessionView, opened.entries), points: opened.branchPoints };
  }
  const texts = (view: SessionView): string[] => view.messages.map((message) => `${message.role}: ${message.text}`);

  it('carries a session with its branches out and back in as a new session that goes on where it was', async () => {
    const session = await call<Session>('session:create', { title: 'Branchy' });
    server.enqueue(textTurn('A1'), textTurn('A2'), textTurn('A1 edited'));
    await call('run:send', { sessionId: session.id, text: 'Q1' });
    await core.runtime?.whenIdle(session.id);
    await call('run:send', { sessionId: session.id, text: 'Q2' });
    await core.runtime?.whenIdle(session.id);
    const firstId = (await open(session.id)).view.messages[0]?.id ?? '';
    await call('message:edit', { sessionId: session.id, messageId: firstId, text: 'Q1 edited' });
    await core.runtime?.whenIdle(session.id);

    const exported = await call<{ fileName: string; document: string }>('session:export', { sessionId: session.id });
    expect(exported.fileName).toBe('Branchy.workbench-session.json');
    const imported = await call<Session>('session:import', { document: exported.document });
    expect(imported.id).not.toBe(session.id);
    expect(imported.title).toBe('Branchy');
    // Its heads are folded from the rows as they are written: each says what its journal says.
    expect(headMismatches((core.core as Core).db, imported.id)).toEqual([]);

    const original = await open(session.id);
    const copy = await open(imported.id);
    expect(texts(copy.view)).toEqual(texts(original.view));
    expect(copy.points).toEqual(original.points);
    await call('branch:switch', { sessionId: imported.id, branchId: copy.points[0]?.versions[0]?.branchId });
    expect(texts((await open(imported.id)).view)).toEqual(['user: Q1', 'assistant: A1', 'user: Q2', 'assistant: A2']);

    // The copy's checkpoints are whole: the next turn goes on from them.
    server.enqueue(textTurn('A3'));
    await call('run:send', { sessionId: imported.id, text: 'Q3' });
    await core.runtime?.whenIdle(imported.id);
    const prompt = (server.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> }).messages.filter(
      (message) => message.role !== 'system',
    );
    expect(prompt.map((message) => message.content)).toEqual(['Q1', 'A1', 'Q2', 'A2', 'Q3']);
  });

  it('still imports the sample exported by format 1', async () => {
    const imported = await call<Session>('session:import', { document: fixture('session-v1.json') });
    const { view, points } = await open(imported.id);
    expect(texts(view)).toEqual(['user: Q1 edited', 'assistant: A1 edited']);
    expect(points[0]?.versions.map((version) => version.reason)).toEqual(['original', 'edit']);
    expect(view.checkpoints.length).toBeGreaterThan(0);
    expect(headMismatches((core.core as Core).db, imported.id)).toEqual([]);
  });

  it('refuses a damaged document whole, and imports nothing of it', async () => {
    const before = await call<Session[]>('session:list', {});
    const sample = JSON.parse(fixture('session-v1.json')) as {
      journal: Array<{ branchId: string; event: unknown }>;
      branches: Array<{ parentId: string | null }>;
      checkpoints: Array<{ parentId: string | null }>;
    };
    const broken = [
      { ...sample, journal: [...sample.journal, { ...sample.journal[0], seq: 9999, branchId: 'nowhere' }] },
      { ...sample, journal: [...sample.journal, { ...sample.journal[0], seq: 9998, event: { type: 'made_up' } }] },
      { ...sample, branches: sample.branches.map((branch) => ({ ...branch, parentId: null })) },
      { ...sample, checkpoints: [...sample.checkpoints].reverse() },
    ];
    for (const document of broken)
      await expect(call('session:import', { document: JSON.stringify(document) })).rejects.toMatchObject({ code: 'invalid_input' });
    expect(await call<Session[]>('session:list', {})).toEqual(before);
  });
});
