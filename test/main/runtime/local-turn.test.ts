import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localEndpointAddress, type ContextWindow } from '../../../src/shared/domain';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import { temporaryFolder } from '../../helpers';
import { LoopbackTransport } from '../../host/loopback-transport';
import { createNodeCore } from '../../host/node-core';
import { answer } from '../scripted-core';
import { TinyModels, testRuntime } from './runtime-fixture';

/* A whole turn through the core, as the app runs it, with "This computer" as the session's endpoint. */

const models = new TinyModels();
const folder = temporaryFolder();
let core: WorkbenchCore;
let transport: LoopbackTransport;

beforeAll(async () => {
  models.add('hello', { says: ['Hello', ' world', '.'], contextLength: 2048 });
  transport = new LoopbackTransport();
  const made = await createNodeCore({ dataDir: folder.path, transport, launchRuntime: testRuntime, localModels: models });
  core = made.core;
  made.settings.set({
    ...made.settings.get(),
    providers: [{ id: 'this-computer', kind: 'local', name: 'This computer', baseUrl: localEndpointAddress }],
    defaultModel: { providerId: 'this-computer', model: 'hello' },
  });
});

afterAll(async () => {
  await core.close();
  models.remove();
  folder.remove();
});

describe('a turn on the built-in runtime', () => {
  it('answers, journals the answer, and budgets with the window the runtime loads', async () => {
    const session = await answer<{ id: string }>(transport, 'session:create', {});
    await answer(transport, 'run:send', { sessionId: session.id, text: 'Say hello.' });
    await core.runtime?.whenIdle(session.id);
    const opened = await answer<{ entries: { event: { type: string; status?: string; text?: string } }[] }>(transport, 'session:open', {
      sessionId: session.id,
    });
    expect(opened.entries.findLast((entry) => entry.event.type === 'run_finished')?.event).toMatchObject({ status: 'completed' });
    // The answer's deltas joined: how many there are depends on how the runtime's process batched them.
    expect(opened.entries.map((entry) => (entry.event.type === 'text_delta' ? (entry.event.text ?? '') : '')).join('')).toBe(
      'Hello world.',
    );
    const window = await answer<ContextWindow>(transport, 'provider:window', { providerId: 'this-computer', model: 'hello' });
    expect(window).toMatchObject({ tokens: 2048, source: 'server', trained: 2048 });
    expect(window.detail).toContain('built-in runtime');
  });
});
