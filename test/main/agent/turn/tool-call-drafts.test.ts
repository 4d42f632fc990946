import { afterEach, describe, expect, it } from 'vitest';
import type { ToolCallDraftEvent } from '../../../../src/shared/events';
import type { ScriptedModelServer } from '../../../scripted-model-server';
import { createHarness, useHarness, type Harness } from '../harness';

const longText = Array.from({ length: 300 }, (_, index) => `line ${index + 1} of the note, with "quotes" and a tab\there`).join('\n');
const noteCall = {
  kind: 'tool_call',
  id: 'call_0',
  name: 'write_note',
  arguments: JSON.stringify({ name: 'long', text: longText }),
  chunks: 200,
} as const;
const writtenArguments = (drafts: readonly ToolCallDraftEvent[]): string =>
  drafts.map((draft) => (draft.type === 'tool_call_draft_delta' ? draft.text : '')).join('');

describe('tool calls while the model writes them', () => {
  let server: ScriptedModelServer;
  let harness: Harness | null = null;
  useHarness({ server: (started) => (server = started) });
  // At L2 a write runs at once: a draft that was requested by mistake would run.
  const open = async (): Promise<Harness> => (harness = await createHarness(server, { autonomy: 'L2' }));
  afterEach(async () => {
    await harness?.close();
    harness = null;
  });

  it('shows the call as it streams, gathered per frame, and journals it only once complete', async () => {
    const session = await open();
    // 200 pieces about a millisecond apart: some 40 frames of the harness's 5 ms.
    server.enqueue(
      { steps: [{ kind: 'text', text: 'Writing it.' }, noteCall], chunkDelayMs: 1 },
      { steps: [{ kind: 'text', text: 'Written.' }] },
    );
    session.runtime.send(session.sessionId, 'Write a long note');
    await session.runtime.whenIdle(session.sessionId);
    expect(session.view().status).toBe('completed');
    expect(session.log).toEqual(['write long']);

    const [first, ...rest] = session.drafts;
    expect(first).toMatchObject({ type: 'tool_call_draft_started', index: 0, callId: 'call_0', tool: 'write_note' });
    expect(rest.every((draft) => draft.type === 'tool_call_draft_delta' && draft.messageId === first?.messageId)).toBe(true);
    // Several pieces per frame go out as one; nothing is lost or reordered. What the last frame
    // gathered is not sent: the finished call takes the draft's place at once.
    expect(rest.length).toBeGreaterThan(1);
    expect(rest.length).toBeLessThan(100);
    const written = writtenArguments(session.drafts);
    expect(written.length).toBeGreaterThan(noteCall.arguments.length / 2);
    expect(noteCall.arguments.startsWith(written)).toBe(true);

    // Drafts come after the response they belong to began, and none after its call was requested.
    const { announced } = session;
    expect(announced.indexOf('assistant_message_started')).toBeLessThan(announced.indexOf('tool_call_draft_started'));
    expect(announced.lastIndexOf('tool_call_draft_delta')).toBeLessThan(announced.indexOf('tool_call_requested'));

    // The journal has the finished call and no draft: the long text is saved once, by the request.
    const journal = session.store.journal(session.sessionId);
    expect(journal.filter((entry) => entry.event.type.startsWith('tool_call_draft'))).toEqual([]);
    expect(
      journal.filter((entry) => JSON.stringify(entry.event).includes('line 300 of the note')).map((entry) => entry.event.type),
    ).toEqual(['tool_call_requested']);
    const call = session.view().messages[1]?.toolCalls[0];
    expect(call).toMatchObject({ tool: 'write_note', state: 'succeeded', input: { name: 'long', text: longText } });
    expect(session.view().drafting).toBeNull();
  });

  it('announces no draft after its call was requested, when the whole call arrives at once', async () => {
    const session = await open();
    server.enqueue({ steps: [noteCall] }, { steps: [{ kind: 'text', text: 'Written.' }] });
    session.runtime.send(session.sessionId, 'Write a long note');
    await session.runtime.whenIdle(session.sessionId);
    expect(session.log).toEqual(['write long']);
    const requestedAt = session.announced.indexOf('tool_call_requested');
    expect(requestedAt).toBeGreaterThan(0);
    expect(session.announced.slice(requestedAt).filter((type) => type.startsWith('tool_call_draft'))).toEqual([]);
  });

  it('never requests nor runs a call whose response failed while it was being written', async () => {
    const session = await open();
    // The connection drops in the middle of the call's arguments; the server is not asked again.
    server.enqueue({ steps: [noteCall], fault: { kind: 'drop', afterChunks: 40 } });
    session.runtime.send(session.sessionId, 'Write a long note');
    await session.runtime.whenIdle(session.sessionId);
    const view = session.view();
    expect(view.status).toBe('failed');
    expect(session.drafts[0]).toMatchObject({ type: 'tool_call_draft_started', tool: 'write_note' });
    expect(writtenArguments(session.drafts).length).toBeGreaterThan(0);
    expect(writtenArguments(session.drafts).length).toBeLessThan(noteCall.arguments.length);
    expect(session.store.journal(session.sessionId).map((entry) => entry.event.type)).not.toContain('tool_call_requested');
    expect(session.log).toEqual([]);
    expect(view.drafting).toBeNull();
    expect(view.messages.at(-1)).toMatchObject({ role: 'assistant', state: 'failed', toolCalls: [] });
  });

  it('never requests nor runs a call stopped while it was being written', async () => {
    const session = await open();
    server.enqueue({ steps: [noteCall], chunkDelayMs: 10 });
    session.runtime.send(session.sessionId, 'Write a long note');
    const started = Date.now();
    while (writtenArguments(session.drafts).length === 0) {
      if (Date.now() - started > 5_000) throw new Error('no draft arrived');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await session.runtime.cancel(session.sessionId)).toBe(true);
    await session.runtime.whenIdle(session.sessionId);
    const view = session.view();
    expect(view.status).toBe('cancelled');
    expect(session.store.journal(session.sessionId).map((entry) => entry.event.type)).not.toContain('tool_call_requested');
    expect(session.log).toEqual([]);
    expect(view.messages.at(-1)).toMatchObject({ role: 'assistant', state: 'cancelled', toolCalls: [] });
  });
});
