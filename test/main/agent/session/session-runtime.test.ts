import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import Conf from 'conf';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultSettings, type Session } from '../../../../src/shared/domain';
import type { JournalEntry } from '../../../../src/shared/events';
import { emptySessionView, reduceSessionView } from '../../../../src/shared/session-view';
import { systemClock } from '../../../../src/main/agent/ports/clock';
import { SessionRuntime } from '../../../../src/main/agent/session/session-runtime';
import { ProviderRegistry } from '../../../../src/main/providers/provider-registry';
import { EncryptedFileSecretStore } from '../../../../src/main/secrets/encrypted-file-secret-store';
import { ConfSettingsStore } from '../../../../src/main/settings/conf-settings-store';
import { openDatabase } from '../../../../src/main/store/database';
import { SqliteSessionStore } from '../../../../src/main/store/sqlite-session-store';
import { SqliteAccountingStore } from '../../../../src/main/store/sqlite-accounting-store';
import { SqliteSteadyTime } from '../../../../src/main/store/sqlite-steady-time';
import { SqliteTrustStore } from '../../../../src/main/store/sqlite-trust-store';
import { SqliteCheckpointStore } from '../../../../src/main/store/sqlite-checkpoint-store';
import { ToolRegistry } from '../../../../src/main/agent/ports/tools';
import { newId } from '../../../../src/main/agent/ports/ids';
import { Gates } from '../../../../src/main/agent/rules/gates';
import { ContextBudget, defaultContextSettings } from '../../../../src/main/agent/context/prompt-builder';
import { SystemPrompts } from '../../../../src/main/agent/context/prompt-assembly';
import { ConversationStore } from '../../../../src/main/agent/history/conversation-store';
import { SessionJournal } from '../../../../src/main/agent/history/session-journal';
import { FolderInspector } from '../../../../src/main/workspace/folder-inspector';
import { closedPort, temporaryFolder } from '../../../helpers';
import { memoryKeyCipher } from '../../../host/test-cipher';
import { ScriptedModelServer, textTurn } from '../../../scripted-model-server';

describe('SessionRuntime against the scripted server and a real database', () => {
  let server: ScriptedModelServer;
  let folder: ReturnType<typeof temporaryFolder>;
  let db: Database;
  let store: SqliteSessionStore;
  let registry: ProviderRegistry;
  let settings: ConfSettingsStore;
  let runtime: SessionRuntime;
  let journal: SessionJournal;
  let live: JournalEntry[];
  let changes: Session[];

  beforeAll(async () => {
    server = await ScriptedModelServer.start();
  });
  afterAll(async () => server.close());

  beforeEach(() => {
    folder = temporaryFolder();
    db = openDatabase(join(folder.path, 'workbench.sqlite')).db;
    store = new SqliteSessionStore(db);
    settings = new ConfSettingsStore(
      new Conf<Record<string, unknown>>({ cwd: folder.path, projectName: 'agent-workbench', defaults: { ...defaultSettings } }),
    );
    registry = new ProviderRegistry({
      settings,
      secrets: new EncryptedFileSecretStore(join(folder.path, 'secrets.json'), memoryKeyCipher()),
      clock: systemClock,
      retryPolicy: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 },
      idleTimeoutMs: 2_000,
    });
    const endpoint = registry.save({ kind: 'openai-compatible', name: 'Scripted', baseUrl: server.openaiBaseUrl });
    live = [];
    changes = [];
    // The runtime with the collaborators the app's core gives it, over this test's store and registry.
    journal = new SessionJournal(
      store,
      {
        onEntries: (_id, entries) => live.push(...entries),
        onSessionChanged: (change) => 'session' in change && changes.push(change.session),
      },
      systemClock,
    );
    const checkpoints = new SqliteCheckpointStore(db);
    runtime = new SessionRuntime({
      store,
      providers: registry,
      journal,
      conversations: new ConversationStore(checkpoints, store),
      turn: {
        tools: new ToolRegistry(),
        trust: new SqliteTrustStore(db, new SqliteSteadyTime(db)),
        accounting: new SqliteAccountingStore(db),
        checkpoints,
        gates: new Gates(),
        clock: systemClock,
        journal,
        frameMs: 16,
        context: new ContextBudget({ window: (choice, signal) => registry.window(choice, signal), settings: () => defaultContextSettings }),
        prompts: new SystemPrompts({ clock: systemClock }),
        newId: () => newId(systemClock.now()),
      },
      limits: () => settings.get(),
      workspaces: new FolderInspector(),
      defaults: () => ({ model: null, autonomy: 'L1', profileId: null }),
      providerExists: (providerId) => registry.list().some((provider) => provider.id === providerId),
    });
    store.create({
      id: 's1',
      title: 'Test',
      workspacePath: null,
      model: { providerId: endpoint.id, model: 'scripted-model' },
      autonomy: 'L1',
      // Begun today: its system prompt gives today's date, so no message needs to tell it.
      createdAt: Date.now(),
    });
    server.reset();
  });

  afterEach(async () => {
    await runtime.dispose();
    db.close();
    folder.remove();
  });

  const view = () => reduceSessionView(emptySessionView, store.journal('s1'));

  it('streams an answer into the journal, coalescing deltas, and ends completed', async () => {
    server.enqueue({
      steps: [{ kind: 'text', text: 'Hello **world**, this is a streamed answer.', chunkSize: 1 }],
      usage: { inputTokens: 30, outputTokens: 12 },
    });
    runtime.send('s1', 'Say hello');
    await runtime.whenIdle('s1');
    const types = store.journal('s1').map((entry) => entry.event.type);
    expect(types.slice(0, 6)).toEqual([
      'user_message',
      'run_started',
      'status_changed',
      'checkpoint_saved',
      'context_measured',
      'assistant_message_started',
    ]);
    expect(types.slice(-4)).toEqual(['model_call_finished', 'checkpoint_saved', 'run_finished', 'status_changed']);
    // 43 one-character chunks arrive far faster than one frame: they are written as a few rows.
    expect(types.filter((type) => type === 'text_delta').length).toBeLessThan(10);
    const result = view();
    expect(result.status).toBe('completed');
    expect(result.messages.map((message) => [message.role, message.text, message.state])).toEqual([
      ['user', 'Say hello', 'done'],
      ['assistant', 'Hello **world**, this is a streamed answer.', 'done'],
    ]);
    expect(result.usage).toMatchObject({ inputTokens: 30, outputTokens: 12 });
    expect(store.get('s1')?.status).toBe('completed');
    expect(changes.map((session) => session.status)).toEqual(['planning', 'completed']);
  });

  it('sends the earlier turns of the session as context', async () => {
    server.enqueue(textTurn('First answer.'), textTurn('Second answer.'));
    runtime.send('s1', 'First question');
    await runtime.whenIdle('s1');
    runtime.send('s1', 'Second question');
    await runtime.whenIdle('s1');
    const messages = server.requests[1]?.body['messages'] as Array<{ role: string; content: string }>;
    expect(messages.slice(1)).toEqual([
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'Second question' },
    ]);
  });

  it('stops mid-stream within 500 ms, keeping the partial answer and ending cancelled', async () => {
    server.enqueue(textTurn('word '.repeat(400), { chunkSize: 5, chunkDelayMs: 20 }));
    runtime.send('s1', 'Write a lot');
    const started = Date.now();
    while (!view().messages.some((message) => message.role === 'assistant' && message.text.length > 0)) {
      if (Date.now() - started > 5000) throw new Error('no text arrived');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const stopAt = Date.now();
    expect(await runtime.cancel('s1')).toBe(true);
    expect(Date.now() - stopAt).toBeLessThan(500);
    const result = view();
    expect(result.status).toBe('cancelled');
    const answer = result.messages.at(-1);
    expect(answer?.state).toBe('cancelled');
    expect(answer?.text.length).toBeGreaterThan(0);
    expect(answer?.text.length).toBeLessThan('word '.repeat(400).length);
    expect(runtime.isBusy('s1')).toBe(false);
  });

  it('fails with a clear error when the endpoint is down, and the session stays usable', async () => {
    const port = await closedPort();
    const down = registry.save({ kind: 'openai-compatible', name: 'Down', baseUrl: `http://127.0.0.1:${port}/v1` });
    store.update('s1', { model: { providerId: down.id, model: 'x' } }, 2);
    runtime.send('s1', 'Anyone there?');
    await runtime.whenIdle('s1');
    let result = view();
    expect(result.status).toBe('failed');
    expect(result.messages.at(-1)?.error).toMatchObject({ code: 'model_connection_failed' });
    expect(result.messages.at(-1)?.error?.message).toContain(`127.0.0.1:${port}`);
    expect(store.journal('s1').filter((entry) => entry.event.type === 'model_retry_scheduled')).toHaveLength(2);

    const up = registry.list().find((provider) => provider.name === 'Scripted');
    store.update('s1', { model: { providerId: up?.id ?? '', model: 'scripted-model' } }, 3);
    server.enqueue(textTurn('Back again.'));
    runtime.send('s1', 'And now?');
    await runtime.whenIdle('s1');
    result = view();
    expect(result.status).toBe('completed');
    expect(result.messages.at(-1)?.text).toBe('Back again.');
  });

  it('retries a server error and then completes, recording the attempt', async () => {
    server.enqueue({ steps: [], fault: { kind: 'status', status: 500 } }, textTurn('Recovered.'));
    runtime.send('s1', 'Try');
    await runtime.whenIdle('s1');
    const journal = store.journal('s1');
    expect(journal.some((entry) => entry.event.type === 'model_retry_scheduled')).toBe(true);
    expect(journal.find((entry) => entry.event.type === 'model_call_finished')?.event).toMatchObject({ attempts: 2 });
    expect(view().messages.at(-1)?.text).toBe('Recovered.');
  });

  it('refuses to run without a model, writing nothing', () => {
    store.create({ id: 's2', title: 'No model', workspacePath: null, model: null, autonomy: 'L1', createdAt: Date.now() });
    expect(() => runtime.send('s2', 'hello')).toThrow(expect.objectContaining({ code: 'no_model' }));
    expect(store.journal('s2')).toEqual([]);
    expect(store.get('s2')?.status).toBe('idle');
  });

  it('marks a session that was running when the app stopped as interrupted', () => {
    journal.append('s1', [
      { type: 'user_message', turnId: 't', messageId: 'u', text: 'q' },
      { type: 'run_started', turnId: 't', model: { providerId: 'p', model: 'm' }, providerKind: 'openai-compatible' },
      { type: 'status_changed', status: 'planning' },
      { type: 'assistant_message_started', turnId: 't', messageId: 'a' },
      { type: 'text_delta', turnId: 't', messageId: 'a', text: 'half an ans' },
    ]);
    expect(runtime.recoverInterrupted()).toEqual(['s1']);
    const result = view();
    expect(result.status).toBe('interrupted');
    expect(result.messages.at(-1)).toMatchObject({ text: 'half an ans', state: 'interrupted' });
    expect(result.activeTurnId).toBeNull();
  });

  it('builds the same view from the live events as from replaying the journal', async () => {
    server.enqueue(
      {
        steps: [
          { kind: 'reasoning', text: 'Let me think.' },
          { kind: 'text', text: 'A considered answer.', chunkSize: 2 },
        ],
      },
      { steps: [], fault: { kind: 'status', status: 400 } },
    );
    runtime.send('s1', 'Think');
    await runtime.whenIdle('s1');
    runtime.send('s1', 'Fail please');
    await runtime.whenIdle('s1');
    const fromLive = reduceSessionView(emptySessionView, live);
    expect(fromLive).toEqual(view());
    expect(fromLive.messages.map((message) => message.state)).toEqual(['done', 'done', 'done', 'failed']);
    expect(fromLive.messages[1]?.reasoning).toBe('Let me think.');
  });
});
