import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SessionArchive } from '../../../../src/main/agent/session/archive';
import { collectFileContents } from '../../../../src/main/workspace/file-contents-collection';
import { dayMs } from '../../../../src/shared/retention';
import { waitFor } from '../../../helpers';
import { ScriptedModelServer, textTurn } from '../../../scripted-model-server';
import { createHarness, toolCall, type Harness } from '../harness';

/** The archive over a harness's own stores, clock and settings, as the core builds it. */
function archiveOf(harness: Harness, changes: string[] = []): SessionArchive {
  return new SessionArchive({
    store: harness.store,
    checkpoints: harness.checkpoints,
    trust: harness.trust,
    runtime: harness.runtime,
    listener: {
      onEntries: () => undefined,
      onSessionChanged: (change) =>
        changes.push('deletedSessionId' in change ? `archived ${change.deletedSessionId}` : `listed ${change.session.id}`),
    },
    clock: harness.clock,
    retention: () => harness.settings.get().archiveRetentionDays,
    collectFileContents: () => collectFileContents(harness.db, () => false),
  });
}

const count = (harness: Harness, sql: string): number => (harness.db.prepare(sql).get() as { n: number }).n;

describe('the session archive', () => {
  let server: ScriptedModelServer;
  let harness: Harness | null = null;
  beforeAll(async () => {
    server = await ScriptedModelServer.start();
  });
  afterAll(async () => server.close());
  beforeEach(() => server.reset());
  afterEach(async () => {
    await harness?.close();
    harness = null;
  });

  /** A harness whose session has one finished turn. */
  const withConversation = async (): Promise<Harness> => {
    harness = await createHarness(server);
    server.enqueue(textTurn('Hello back.'));
    harness.runtime.send(harness.sessionId, 'Hello');
    await harness.runtime.whenIdle(harness.sessionId);
    return harness;
  };

  it('archives a session: it leaves the list and is not found, and nothing of it is removed', async () => {
    const current = await withConversation();
    const changes: string[] = [];
    const archive = archiveOf(current, changes);
    const journalRows = count(current, "SELECT COUNT(*) AS n FROM journal WHERE session_id = 's1'");
    const entry = archive.archive('s1');
    expect(entry).toMatchObject({ session: { id: 's1' }, archivedAt: current.clock.now(), purgeAt: current.clock.now() + 30 * dayMs });
    expect(current.store.list()).toEqual([]);
    expect(current.store.get('s1')).toBeNull();
    expect(() => current.runtime.send('s1', 'Still there?')).toThrow(/does not exist/);
    expect(count(current, "SELECT COUNT(*) AS n FROM journal WHERE session_id = 's1'")).toBe(journalRows);
    expect(current.checkpoints.records('s1').length).toBeGreaterThan(0);
    expect(archive.list().map((item) => item.session.id)).toEqual(['s1']);
    expect(changes).toEqual(['archived s1']);
  });

  it('restores an archived session with its conversation', async () => {
    const current = await withConversation();
    const archive = archiveOf(current);
    const before = current.view();
    archive.archive('s1');
    const restored = archive.restore('s1');
    expect(restored.id).toBe('s1');
    expect(current.store.list().map((session) => session.id)).toEqual(['s1']);
    expect(archive.list()).toEqual([]);
    expect(current.view().messages.map((message) => message.text)).toEqual(before.messages.map((message) => message.text));
    // It goes on as before: the next message is answered.
    server.enqueue(textTurn('Back again.'));
    current.runtime.send('s1', 'Are you back?');
    await current.runtime.whenIdle('s1');
    expect(current.view().messages.at(-1)?.text).toBe('Back again.');
  });

  it('purges an archived session once its retention period has passed on the clock, then its checkpoints are gone too', async () => {
    const current = await withConversation();
    const archive = archiveOf(current);
    archive.archive('s1');
    current.clock.advance(30 * dayMs - 60_000);
    expect(archive.purgeDue().purged).toEqual([]);
    expect(archive.list()).toHaveLength(1);
    current.clock.advance(120_000);
    expect(archive.purgeDue().purged).toEqual(['s1']);
    expect(archive.list()).toEqual([]);
    expect(count(current, "SELECT COUNT(*) AS n FROM sessions WHERE id = 's1'")).toBe(0);
    expect(count(current, "SELECT COUNT(*) AS n FROM journal WHERE session_id = 's1'")).toBe(0);
    expect(current.checkpoints.records('s1')).toEqual([]);
    expect(() => archive.restore('s1')).toThrow(/does not exist/);
  });

  it('deleting a session deletes its sub-agents with it, their checkpoints included', async () => {
    harness = await createHarness(server);
    const current = harness;
    server.enqueue({ steps: [toolCall('delegate', { goal: 'Look' }, 'd1')] }, textTurn('Looked.'), textTurn('Done.'));
    current.runtime.send('s1', 'Go');
    await current.runtime.whenIdle('s1');
    const child = current.runtime.subAgents.of('s1')[0]?.id ?? '';
    expect(current.checkpoints.records(child).length).toBeGreaterThan(0);
    const archive = archiveOf(current);
    archive.archive('s1');
    archive.deleteNow('s1');
    expect(count(current, 'SELECT COUNT(*) AS n FROM sessions')).toBe(0);
    expect(count(current, 'SELECT COUNT(*) AS n FROM journal')).toBe(0);
    expect(current.checkpoints.records(child)).toEqual([]);
  });

  it('never purges when the retention is "never", and deletes at once when asked', async () => {
    const current = await withConversation();
    current.settings.set({ ...current.settings.get(), archiveRetentionDays: null });
    const archive = archiveOf(current);
    expect(archive.archive('s1').purgeAt).toBeNull();
    current.clock.advance(3650 * dayMs);
    expect(archive.purgeDue().purged).toEqual([]);
    expect(archive.list()).toHaveLength(1);
    archive.deleteNow('s1');
    expect(archive.list()).toEqual([]);
    expect(count(current, "SELECT COUNT(*) AS n FROM journal WHERE session_id = 's1'")).toBe(0);
  });

  it('a shorter retention makes an older archive due at once', async () => {
    const current = await withConversation();
    const archive = archiveOf(current);
    archive.archive('s1');
    current.clock.advance(10 * dayMs);
    expect(archive.purgeDue().purged).toEqual([]);
    current.settings.set({ ...current.settings.get(), archiveRetentionDays: 7 });
    expect(archive.list()[0]?.purgeAt).toBeLessThan(current.clock.now());
    expect(archive.purgeDue().purged).toEqual(['s1']);
  });

  it('purges on its timer, reading the time from the injected clock', async () => {
    const current = await withConversation();
    const archive = archiveOf(current);
    archive.archive('s1');
    const timer = archive.start(5);
    try {
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(archive.list()).toHaveLength(1);
      current.clock.advance(31 * dayMs);
      await waitFor(() => archive.list().length === 0, 2_000, 'the timer to purge');
    } finally {
      await timer.dispose();
    }
  });

  it('refuses to archive a session while its turn waits at a gate, and changes nothing', async () => {
    const current = await createHarness(server);
    harness = current;
    const archive = archiveOf(current);
    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 't' })] }, textTurn('Written.'));
    current.runtime.send('s1', 'Write it');
    const view = await current.until((state) => state.pendingApproval !== null, 'the gate');
    expect(() => archive.archive('s1')).toThrow(expect.objectContaining({ code: 'session_busy' }));
    expect(current.store.list().map((session) => session.id)).toEqual(['s1']);
    expect(archive.list()).toEqual([]);
    current.runtime.answerApproval(view.pendingApproval?.approvalId ?? '', 'allow_once');
    await current.runtime.whenIdle('s1');
    expect(archive.archive('s1').session.id).toBe('s1');
  });

  it('revokes the session’s “this session” grants when it is archived; restoring does not bring them back', async () => {
    const current = await createHarness(server);
    harness = current;
    const archive = archiveOf(current);
    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 't' })] }, textTurn('Written.'));
    current.runtime.send('s1', 'Write it');
    const view = await current.until((state) => state.pendingApproval !== null, 'the gate');
    current.runtime.answerApproval(view.pendingApproval?.approvalId ?? '', 'allow_session');
    await current.runtime.whenIdle('s1');
    expect(current.trust.listActive(current.clock.now())).toHaveLength(1);
    archive.archive('s1');
    expect(current.trust.listActive(current.clock.now())).toEqual([]);
    archive.restore('s1');
    expect(current.trust.listActive(current.clock.now())).toEqual([]);
  });

  it('an interrupted session archived before a restart is neither recovered nor resumed; restored, it waits for the person', async () => {
    const first = await createHarness(server);
    // A session of its own: the harness makes its usual one again on every start when it is not listed.
    const { id: _id, ...usual } = first.store.get('s1') ?? { id: '' };
    if (!('model' in usual)) throw new Error('no usual session');
    first.store.create({ ...usual, id: 's2' });
    server.enqueue({ steps: [{ kind: 'text', text: 'Taking a while.' }, toolCall('slow', {}, 'c1')] });
    first.runtime.send('s2', 'Do the slow thing');
    await waitFor(
      () => first.view('s2').messages.some((message) => message.toolCalls.some((call) => call.state === 'running')),
      5_000,
      'the slow call',
    );
    first.crash();
    const second = await first.reopen();
    expect(second.store.get('s2')?.status).toBe('interrupted');
    archiveOf(second).archive('s2');
    await second.close();
    const third = await second.reopen();
    harness = third;
    const journalRows = count(third, "SELECT COUNT(*) AS n FROM journal WHERE session_id = 's2'");
    expect(third.store.list().map((session) => session.id)).toEqual(['s1']);
    const restored = archiveOf(third).restore('s2');
    expect(restored.status).toBe('interrupted');
    expect(third.runtime.isBusy('s2')).toBe(false);
    expect(count(third, "SELECT COUNT(*) AS n FROM journal WHERE session_id = 's2'")).toBe(journalRows);
    expect(third.log).toEqual([]);
  });
});
