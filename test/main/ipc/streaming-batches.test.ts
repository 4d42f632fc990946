import { useScriptedCore } from '../scripted-core';
import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../../src/shared/events';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import type { LoopbackTransport } from '../../host/loopback-transport';
import { ScriptedModelServer, textTurn } from '../../scripted-model-server';

describe('streamed text on its way to the renderer', () => {
  let server: ScriptedModelServer;
  let transport: LoopbackTransport;
  let core: WorkbenchCore;
  let sessionId: string;
  useScriptedCore({ frameMs: 16, session: 'plain' }, (started) => ({ server, transport, core, sessionId } = started));

  it('arrives as deltas, at most one message per frame, never as the whole transcript', async () => {
    const text = Array.from({ length: 400 }, (_, index) => `t${index} `).join('');
    server.enqueue(textTurn(text, { chunkSize: 3, chunkDelayMs: 1 }));
    transport.sent.length = 0;
    const started = Date.now();
    await transport.invoke('run:send', { sessionId, text: 'stream please' });
    await core.runtime?.whenIdle(sessionId);
    core.batcher.flushAll();
    const elapsed = Date.now() - started;
    const messages = transport.sent
      .filter((sent) => sent.event === 'session:events')
      .map((sent) => (sent.payload as { entries: JournalEntry[] }).entries);
    // One message per 16 ms frame at most, plus the first and last flush.
    expect(messages.length).toBeLessThanOrEqual(Math.ceil(elapsed / 16) + 2);
    expect(messages.length).toBeGreaterThan(3);
    const deltas = messages.flat().flatMap((entry) => (entry.event.type === 'text_delta' ? [entry.event.text] : []));
    // The deltas add up to the answer exactly once: nothing repeated, nothing lost.
    expect(deltas.join('')).toBe(text);
    expect(Math.max(...deltas.map((delta) => delta.length))).toBeLessThan(text.length);
    const seqs = messages.flat().map((entry) => entry.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });
});
