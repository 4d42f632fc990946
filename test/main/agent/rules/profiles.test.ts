import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry, RuntimeEvent } from '../../../../src/shared/events';
import type { SessionProfileView } from '../../../../src/shared/ipc/profile-channels';
import type { AssembledPrompt } from '../../../../src/shared/prompt';
import type { Profile } from '../../../../src/shared/profiles';
import type { Session } from '../../../../src/shared/domain';
import type { WorkbenchCore } from '../../../../src/main/core/workbench-core';
import { temporaryFolder } from '../../../helpers';
import { LoopbackTransport } from '../../../host/loopback-transport';
import { createNodeCore } from '../../../host/node-core';
import { ScriptedModelServer, textTurn } from '../../../scripted-model-server';
import { answer } from '../../scripted-core';
import { testTools, toolCall } from '../harness';

describe('agent profiles', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let server: ScriptedModelServer;
  let core: WorkbenchCore;
  let transport: LoopbackTransport;
  let providerId: string;
  const log: string[] = [];
  const call = <T>(channel: string, payload: unknown): Promise<T> => answer<T>(transport, channel, payload);

  beforeAll(async () => {
    folder = temporaryFolder();
    server = await ScriptedModelServer.start();
    transport = new LoopbackTransport();
    core = (
      await createNodeCore({
        dataDir: folder.path,
        transport,
        tools: testTools(log).tools,
        retryPolicy: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
      })
    ).core;
    providerId = (
      await call<{ id: string }>('provider:save', { kind: 'openai-compatible', name: 'Scripted', baseUrl: server.openaiBaseUrl })
    ).id;
    await call('settings:update', { defaultModel: { providerId, model: 'scripted-model' } });
  });
  afterAll(async () => {
    await core.close();
    await server.close();
    folder.remove();
  });

  const newSession = async (): Promise<string> => (await call<Session>('session:create', { workspacePath: folder.path })).id;
  const send = async (sessionId: string, text: string): Promise<void> => {
    await call('run:send', { sessionId, text });
    await core.runtime?.whenIdle(sessionId);
  };
  const events = async (sessionId: string): Promise<RuntimeEvent[]> =>
    (await call<{ entries: JournalEntry[] }>('session:open', { sessionId })).entries.map((entry) => entry.event);
  const offered = (index: number): string[] =>
    ((server.requests[index]?.body['tools'] ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
  const save = (settings: Record<string, unknown>, profileId?: string): Promise<Profile> =>
    call<Profile>('profile:save', { ...(profileId ? { profileId } : {}), scope: 'global', workspacePath: null, settings });

  it('starts from the built-in profiles, and keeps every version of a profile it saves', async () => {
    const listed = await call<Profile[]>('profile:list', { workspacePath: null });
    expect(listed.map((profile) => profile.name)).toEqual(['Code', 'Ask', 'Review']);
    const first = await save({ name: 'Terse', instructions: 'Answer in one line.' });
    const second = await save({ name: 'Terse', instructions: 'Answer in one line, no Markdown.' }, first.id);
    expect([first.version, second.version, second.id]).toEqual([1, 2, first.id]);
    const versions = await call<Profile[]>('profile:versions', { profileId: first.id });
    expect(versions.map((profile) => [profile.version, profile.instructions])).toEqual([
      [2, 'Answer in one line, no Markdown.'],
      [1, 'Answer in one line.'],
    ]);
    await call('profile:delete', { profileId: first.id });
    expect((await call<Profile[]>('profile:list', { workspacePath: null })).map((profile) => profile.id)).not.toContain(first.id);
    // A deleted profile's versions stay readable: turns that used them still say what they were.
    expect(await call<Profile[]>('profile:versions', { profileId: first.id })).toHaveLength(2);
  });

  it('does not offer the tools of a group the profile turns off, refuses a call to one, and records the version each turn used', async () => {
    const profile = await save({ name: 'No writes', instructions: 'You only read.', toolGroupsOff: ['files_write', 'memory'] });
    const sessionId = await newSession();
    const view = await call<SessionProfileView>('session:setProfile', { sessionId, profileId: profile.id });
    expect(view).toMatchObject({ name: 'No writes', version: 1, toolGroupsOff: ['files_write', 'memory'], ownToolGroups: false });
    server.reset();
    server.enqueue({ steps: [toolCall('write_note', { name: 'a', text: 'b' })] }, textTurn('Could not write.'));
    await send(sessionId, 'Write a note');
    expect(offered(0)).toContain('read_note');
    expect(offered(0)).not.toContain('write_note');
    expect(offered(0)).not.toContain('remember');
    expect(log).not.toContain('write a');
    const turn = await events(sessionId);
    expect(turn.find((event) => event.type === 'run_started')).toMatchObject({
      profile: { id: profile.id, version: 1, name: 'No writes' },
    });
    expect(turn.find((event) => event.type === 'tool_call_finished')).toMatchObject({ status: 'denied' });

    await save({ name: 'No writes', instructions: 'You only read, and say so.', toolGroupsOff: ['files_write', 'memory'] }, profile.id);
    server.reset();
    server.enqueue(textTurn('Read only.'));
    await send(sessionId, 'Again');
    const started = (await events(sessionId)).filter((event) => event.type === 'run_started');
    expect(started.at(-1)).toMatchObject({ profile: { version: 2 } });
    const system = (server.requests[0]?.body['messages'] as Array<{ role: string; content: string }>)[0]?.content ?? '';
    expect(system.startsWith('You only read, and say so.')).toBe(true);
    const measured = (await events(sessionId)).findLast((event) => event.type === 'context_measured');
    const prompt = await call<AssembledPrompt>('prompt:get', { promptId: measured?.type === 'context_measured' ? measured.promptId : '' });
    expect(prompt.parts[0]).toMatchObject({ kind: 'profile', title: 'No writes v2' });
  });

  it("switches a session's tool groups on its own, and back to the profile's", async () => {
    const sessionId = await newSession();
    const own = await call<SessionProfileView>('session:setProfile', {
      sessionId,
      profileId: 'builtin:code',
      toolGroupsOff: ['files_read'],
    });
    expect(own).toMatchObject({ name: 'Code', toolGroupsOff: ['files_read'], ownToolGroups: true });
    server.reset();
    server.enqueue(textTurn('Fine.'));
    await send(sessionId, 'Hello');
    expect(offered(0)).not.toContain('read_note');
    expect(offered(0)).toContain('write_note');
    const back = await call<SessionProfileView>('session:setProfile', { sessionId, profileId: 'builtin:code', toolGroupsOff: null });
    expect(back).toMatchObject({ toolGroupsOff: [], ownToolGroups: false });
  });

  it("sends the profile's temperature and answer room, and brings its model and autonomy to the session", async () => {
    const profile = await save({
      name: 'Cool',
      instructions: 'Be exact.',
      temperature: 0.2,
      maxAnswerTokens: 1_000,
      autonomy: 'L2',
      model: { providerId, model: 'scripted-model' },
    });
    const sessionId = await newSession();
    await call('session:setProfile', { sessionId, profileId: profile.id });
    const session = (await call<Session[]>('session:list', {})).find((candidate) => candidate.id === sessionId);
    expect(session?.autonomy).toBe('L2');
    expect((await events(sessionId)).find((event) => event.type === 'autonomy_changed')).toMatchObject({ from: 'L1', to: 'L2' });
    server.reset();
    server.enqueue(textTurn('Exact.'));
    await send(sessionId, 'Hi');
    expect(server.requests[0]?.body['temperature']).toBe(0.2);
    expect(server.requests[0]?.body['max_tokens']).toBe(1_000);
  });

  it('asks the fallback model for the rest of the turn when the first cannot be reached, and says so', async () => {
    const gone = (
      await call<{ id: string }>('provider:save', { kind: 'openai-compatible', name: 'Gone', baseUrl: 'http://127.0.0.1:1/v1' })
    ).id;
    const profile = await save({
      name: 'With fallback',
      instructions: 'Be brief.',
      model: { providerId: gone, model: 'big-model' },
      fallbackModel: { providerId, model: 'scripted-model' },
    });
    const sessionId = await newSession();
    await call('session:setProfile', { sessionId, profileId: profile.id });
    server.reset();
    server.enqueue(textTurn('Answered by the fallback.'));
    await send(sessionId, 'Anyone there?');
    const turn = await events(sessionId);
    const fallback = turn.find((event) => event.type === 'model_fallback_used');
    expect(fallback).toMatchObject({
      from: { model: 'big-model' },
      to: { model: 'scripted-model' },
      error: { code: 'model_connection_failed' },
    });
    expect(fallback?.type === 'model_fallback_used' && fallback.message).toMatch(
      /the rest of this turn uses the profile's fallback, scripted-model/,
    );
    expect(turn.findLast((event) => event.type === 'run_finished')).toMatchObject({ status: 'completed' });
    expect(server.requests).toHaveLength(1);
  });

  it("pauses at the profile's own budget in place of the one in Settings", async () => {
    const profile = await save({ name: 'Short leash', instructions: 'Be quick.', limits: { modelCalls: 1 } });
    const sessionId = await newSession();
    await call('session:setProfile', { sessionId, profileId: profile.id });
    server.reset();
    server.enqueue({ steps: [toolCall('read_note', { name: 'a' })] }, textTurn('Read it.'));
    await call('run:send', { sessionId, text: 'Read a note' });
    let reached: RuntimeEvent | undefined;
    for (let waited = 0; !reached && waited < 5_000; waited += 20) {
      reached = (await events(sessionId)).find((event) => event.type === 'budget_reached');
      if (!reached) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(reached).toMatchObject({ budget: 'model_calls', figure: 1, limit: 1 });
    await call('budget:answer', { gateId: reached?.type === 'budget_reached' ? reached.gateId : '', answer: 'stop' });
    await core.runtime?.whenIdle(sessionId);
    expect(server.requests).toHaveLength(1);
  });

  it('exports a profile with its schema version and imports it back; refuses a newer file or unknown fields, saying why', async () => {
    const exported = await call<{ fileName: string; document: string }>('profile:export', { profileId: 'builtin:review' });
    expect(exported.fileName).toBe('review.profile.json');
    expect(JSON.parse(exported.document)).toMatchObject({
      format: 'agent-workbench-profile',
      schemaVersion: 1,
      profile: { name: 'Review' },
    });
    const imported = await call<Profile>('profile:import', { document: exported.document, scope: 'global', workspacePath: null });
    expect(imported).toMatchObject({ name: 'Review', version: 1, scope: 'global', toolGroupsOff: ['files_write'] });
    const newer = await transport.invoke('profile:import', {
      document: exported.document.replace('"schemaVersion": 1', '"schemaVersion": 2'),
      scope: 'global',
      workspacePath: null,
    });
    expect(newer.ok === false && newer.error.message).toMatch(/made by a newer version of the app \(profile schema 2; this one reads 1\)/);
    const unknown = await transport.invoke('profile:import', {
      document: exported.document.replace('"name": "Review"', '"name": "Review", "plugins": []'),
      scope: 'global',
      workspacePath: null,
    });
    expect(unknown.ok === false && unknown.error.message).toMatch(/cannot be imported: .*plugins/);
  });
});
