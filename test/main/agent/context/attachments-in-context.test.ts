import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../../src/shared/domain';
import type { JournalEntry, RuntimeEvent } from '../../../../src/shared/events';
import { emptySessionView, reduceSessionView } from '../../../../src/shared/session-view';
import { conversationFromJournal, parseCheckpointMessages } from '../../../../src/main/agent/history/conversation';
import type { WorkbenchCore } from '../../../../src/main/core/workbench-core';
import type { LoopbackTransport } from '../../../host/loopback-transport';
import { textTurn, type ScriptedModelServer } from '../../../scripted-model-server';
import { tinyPng } from '../../../tiny-png';
import { useScriptedCore } from '../../scripted-core';

const notes = Array.from({ length: 40 }, (_, index) => `note ${index + 1}: remember the ${index % 2 ? 'owls' : 'larks'}`).join('\n');

describe('attached files in what the model sees', () => {
  let server: ScriptedModelServer;
  let transport: LoopbackTransport;
  let core: WorkbenchCore;
  let folder: string;
  useScriptedCore(
    { prepare: (path) => writeFileSync(join(path, 'notes.md'), notes) },
    (started) => ({ server, transport, core, folder } = { ...started, folder: started.folder.path }),
  );

  async function call<T>(channel: string, input: unknown): Promise<T> {
    const result = await transport.invoke(channel, input);
    if (!result.ok) throw Object.assign(new Error(result.error.message), { code: result.error.code });
    return result.value as T;
  }
  const newSession = (): Promise<Session> => call<Session>('session:create', { workspacePath: folder });
  const journal = async (sessionId: string): Promise<JournalEntry[]> =>
    (await call<{ entries: JournalEntry[] }>('session:open', { sessionId })).entries;
  const lastUserText = (): string => {
    const messages = (server.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> }).messages;
    return messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
  };
  async function send(sessionId: string, text: string, attachments: unknown[]): Promise<void> {
    server.enqueue(textTurn('Read it.'));
    await call('run:send', { sessionId, text, attachments });
    await core.runtime?.whenIdle(sessionId);
  }

  it('gives the model the attached lines with their path and range in the message', async () => {
    const session = await newSession();
    await send(session.id, 'What do @notes.md#L3-4 say?', [{ kind: 'workspace', path: 'notes.md', range: { start: 3, end: 4 } }]);
    expect(lastUserText()).toContain('What do @notes.md#L3-4 say?');
    expect(lastUserText()).toContain(
      '<attached_file path="notes.md" lines="3-4">\nnote 3: remember the larks\nnote 4: remember the owls\n</attached_file>',
    );
  });

  it('journals the attachment with the message, so the reopened conversation shows it', async () => {
    const session = await newSession();
    await send(session.id, 'Look at @notes.md', [{ kind: 'workspace', path: 'notes.md' }]);
    const view = reduceSessionView(emptySessionView, await journal(session.id));
    expect(view.messages[0]?.attachments?.[0]).toMatchObject({ kind: 'text', path: 'notes.md', size: Buffer.byteLength(notes) });
  });

  it('counts the attached text in the measured context', async () => {
    const plain = await newSession();
    await send(plain.id, 'Hello', []);
    const attached = await newSession();
    await send(attached.id, 'Hello', [{ kind: 'workspace', path: 'notes.md' }]);
    const measured = async (sessionId: string): Promise<number> => {
      const event = (await journal(sessionId)).find((entry) => entry.event.type === 'context_measured')?.event;
      return event?.type === 'context_measured' ? event.tokens : 0;
    };
    expect((await measured(attached.id)) - (await measured(plain.id))).toBeGreaterThan(notes.length / 8);
  });

  it('sends nothing and writes nothing when a reference does not exist', async () => {
    const session = await newSession();
    const before = (await journal(session.id)).length;
    const requests = server.requests.length;
    const result = await transport.invoke('run:send', {
      sessionId: session.id,
      text: 'See @missing.md',
      attachments: [{ kind: 'workspace', path: 'missing.md' }],
    });
    expect(result.ok ? null : result.error.message).toBe('@missing.md does not exist in the workspace.');
    expect((await journal(session.id)).length).toBe(before);
    expect(server.requests.length).toBe(requests);
  });

  it('refuses an image for a model that does not take images, and writes nothing', async () => {
    const session = await newSession();
    const before = (await journal(session.id)).length;
    const requests = server.requests.length;
    const result = await transport.invoke('run:send', {
      sessionId: session.id,
      text: 'What is this?',
      attachments: [{ kind: 'dropped_image', name: 'logo.png', mediaType: 'image/png', data: tinyPng.toString('base64') }],
    });
    expect(result.ok ? null : result.error.message).toContain('scripted-model does not take images');
    expect((await journal(session.id)).length).toBe(before);
    expect(server.requests.length).toBe(requests);
  });

  it('keeps an attached image in a checkpoint, so a resumed turn sends it again', () => {
    const image = { path: 'logo.png', mediaType: 'image/png' as const, data: tinyPng.toString('base64') };
    expect(parseCheckpointMessages([{ role: 'user', content: 'See', images: [image] }])).toEqual([
      { role: 'user', content: 'See', images: [image] },
    ]);
  });

  it('keeps the attachments when a message is edited and run again', async () => {
    const session = await newSession();
    await send(session.id, 'First look at @notes.md#L1', [{ kind: 'workspace', path: 'notes.md', range: { start: 1, end: 1 } }]);
    const messageId = reduceSessionView(emptySessionView, await journal(session.id)).messages[0]?.id;
    server.enqueue(textTurn('Again.'));
    await call('message:edit', { sessionId: session.id, messageId, text: 'Now explain @notes.md#L1' });
    await core.runtime?.whenIdle(session.id);
    expect(lastUserText()).toContain('Now explain');
    expect(lastUserText()).toContain('note 1: remember the larks');
  });

  it('keeps the attachments through a restore of the conversation', async () => {
    const session = await newSession();
    await send(session.id, 'Keep @notes.md#L2 in mind', [{ kind: 'workspace', path: 'notes.md', range: { start: 2, end: 2 } }]);
    await send(session.id, 'And then?', []);
    const checkpoint = (await journal(session.id)).find(
      (entry) => entry.event.type === 'checkpoint_saved' && entry.event.source === 'model',
    )?.event as Extract<RuntimeEvent, { type: 'checkpoint_saved' }>;
    await call('checkpoint:restore', { sessionId: session.id, checkpointId: checkpoint.checkpointId, mode: 'conversation' });
    await send(session.id, 'Where were we?', []);
    const messages = (server.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> }).messages;
    expect(messages.some((message) => message.content.includes('note 2: remember the owls'))).toBe(true);
  });

  it('keeps the attachments through an export and an import', async () => {
    const session = await newSession();
    await send(session.id, 'Carry @notes.md#L5', [{ kind: 'workspace', path: 'notes.md', range: { start: 5, end: 5 } }]);
    const exported = await call<{ document: string }>('session:export', { sessionId: session.id });
    const imported = await call<Session>('session:import', { document: exported.document });
    const view = reduceSessionView(emptySessionView, await journal(imported.id));
    expect(view.messages[0]?.attachments?.[0]).toMatchObject({
      path: 'notes.md',
      range: { start: 5, end: 5 },
      text: 'note 5: remember the larks',
    });
  });

  it('rebuilds the message with its attachment from the journal alone, as a resume after a crash does', () => {
    const entries: JournalEntry[] = [
      {
        sessionId: 's',
        seq: 0,
        at: 0,
        event: {
          type: 'user_message',
          turnId: 't',
          messageId: 'm',
          text: 'See this',
          attachments: [{ kind: 'text', path: 'a.txt', source: 'dropped', size: 5, text: 'hello' }],
        },
      },
    ];
    expect(conversationFromJournal(entries)).toEqual([
      { role: 'user', content: 'See this\n\n<attached_file path="a.txt">\nhello\n</attached_file>' },
    ]);
  });
});
