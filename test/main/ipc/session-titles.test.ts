import { useScriptedCore } from '../scripted-core';
import { describe, expect, it } from 'vitest';
import { titleFrom } from '../../../src/main/agent/session/sessions';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import type { LoopbackTransport } from '../../host/loopback-transport';
import { ScriptedModelServer, textTurn } from '../../scripted-model-server';

describe('session titles', () => {
  it('are the first line of a message, cut at a word', () => {
    expect(titleFrom('Fix the failing parser test\nand then run the suite')).toBe('Fix the failing parser test');
    expect(titleFrom('   ')).toBe('New session');
    const long = titleFrom('Please refactor the configuration loader so that it validates every field with a schema');
    expect(long.length).toBeLessThanOrEqual(61);
    expect(long.endsWith('…')).toBe(true);
    expect(long).toBe('Please refactor the configuration loader so that it…');
  });

  describe('through IPC', () => {
    let server: ScriptedModelServer;
    let transport: LoopbackTransport;
    let core: WorkbenchCore;
    useScriptedCore({}, (started) => ({ server, transport, core } = started));

    it('name a new session after its first message, and leave a chosen title alone', async () => {
      const fresh = await transport.invoke('session:create', {});
      const named = await transport.invoke('session:create', { title: 'My title' });
      if (!fresh.ok || !named.ok) throw new Error('setup failed');
      const freshId = (fresh.value as { id: string }).id;
      const namedId = (named.value as { id: string }).id;
      server.enqueue(textTurn('a'), textTurn('b'), textTurn('c'));
      await transport.invoke('run:send', { sessionId: freshId, text: 'Explain the build script' });
      await core.runtime?.whenIdle(freshId);
      await transport.invoke('run:send', { sessionId: freshId, text: 'Something else entirely' });
      await core.runtime?.whenIdle(freshId);
      await transport.invoke('run:send', { sessionId: namedId, text: 'Explain the build script' });
      await core.runtime?.whenIdle(namedId);
      const list = await transport.invoke('session:list', {});
      const titles = Object.fromEntries(
        (list.ok ? (list.value as Array<{ id: string; title: string }>) : []).map((session) => [session.id, session.title]),
      );
      expect(titles[freshId]).toBe('Explain the build script');
      expect(titles[namedId]).toBe('My title');
    });
  });
});
