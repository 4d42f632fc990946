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
import { toolCall } from '../harness';

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

  it('carries a session’s sub-agents with it, each linked to the call that started it, and refuses a tree that is not whole', async () => {
    const session = await call<Session>('session:create', { title: 'Handing on' });
    server.enqueue(
      { steps: [toolCall('delegate', { goal: 'Look around', returns: 'what is there' }, 'd1')] },
      textTurn('Nothing much is there.'),
      textTurn('The sub-agent says nothing much is there.'),
    );
    await call('run:send', { sessionId: session.id, text: 'Have a look, through a sub-agent' });
    await core.runtime?.whenIdle(session.id);
    const [child] = await call<Session[]>('session:subAgents', { sessionId: session.id });
    const exported = await call<{ document: string }>('session:export', { sessionId: session.id });
    const document = JSON.parse(exported.document) as { subAgents?: Array<{ session: Session }> };
    expect(document.subAgents?.map((part) => part.session.id)).toEqual([child?.id]);

    const imported = await call<Session>('session:import', { document: exported.document });
    const [copy] = await call<Session[]>('session:subAgents', { sessionId: imported.id });
    expect(copy?.id).not.toBe(child?.id);
    expect(copy?.subAgent).toEqual({ ...child?.subAgent, parentSessionId: imported.id });
    expect(texts((await open(copy?.id ?? '')).view)).toEqual(texts((await open(child?.id ?? '')).view));
    expect(texts((await open(copy?.id ?? '')).view)).toContain('assistant: Nothing much is there.');
    expect(headMismatches((core.core as Core).db, copy?.id ?? '')).toEqual([]);
    // Listed with the person's sessions: the copy, not its sub-agent.
    const listed = (await call<Session[]>('session:list', {})).map((listedSession) => listedSession.id);
    expect(listed).toContain(imported.id);
    expect(listed).not.toContain(copy?.id);

    // A sub-agent starts no higher than its own autonomy in the file, nor than the session it works for here.
    const autonomies = structuredClone(JSON.parse(exported.document) as { session: Session; subAgents: Array<{ session: Session }> });
    autonomies.session.autonomy = 'L3';
    const low = autonomies.subAgents[0]?.session;
    if (low) low.autonomy = 'L0';
    const lowered = await call<Session>('session:import', { document: JSON.stringify(autonomies) });
    const [lowChild] = await call<Session[]>('session:subAgents', { sessionId: lowered.id });
    expect([lowered.autonomy, lowChild?.autonomy]).toEqual(['L1', 'L0']);
    if (low) low.autonomy = 'L3';
    const capped = await call<Session>('session:import', { document: JSON.stringify(autonomies) });
    expect((await call<Session[]>('session:subAgents', { sessionId: capped.id }))[0]?.autonomy).toBe('L1');

    // A sub-agent whose session is not in the file, or that comes before it, is refused, and nothing is written.
    const count = (): unknown => (core.core as Core).db.prepare('SELECT count(*) AS n FROM sessions').get();
    const before = count();
    const parsed = JSON.parse(exported.document) as { subAgents: Array<{ session: Session }> };
    const orphan = structuredClone(parsed);
    const link = orphan.subAgents[0]?.session.subAgent;
    if (link) link.parentSessionId = 'someone-else';
    const unlinked = structuredClone(parsed);
    delete unlinked.subAgents[0]?.session.subAgent;
    for (const broken of [orphan, unlinked])
      await expect(call('session:import', { document: JSON.stringify(broken) })).rejects.toMatchObject({ code: 'invalid_input' });
    expect(count()).toEqual(before);
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
