import { readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JournalEntry, RuntimeEvent } from '../../../src/shared/events';
import type { Session, Settings } from '../../../src/shared/domain';
import { emptySessionView, reduceSessionView } from '../../../src/shared/session-view';
import { textTurn } from '../../scripted-model-server';
import { toolCall } from '../agent/harness';
import { answer, useScriptedCore, type ScriptedCore } from '../scripted-core';
import { installFakeServer } from './fake-servers';

/** The tool result the model read in a request: the content of its last tool message. */
const toolResultOf = (scripted: ScriptedCore, index: number): string => {
  const messages = scripted.server.requests[index]?.body['messages'] as Array<{ role: string; content: string }> | undefined;
  return messages?.findLast((message) => message.role === 'tool')?.content ?? '';
};

describe('problems after an edit, in the turn', () => {
  let scripted: ScriptedCore;
  useScriptedCore(
    {
      builtinTools: true,
      dataDir: (folder) => join(folder, 'data'),
      languageServerEnvironment: { ...process.env, PATH: `${resolve('node_modules/.bin')}${delimiter}${process.env['PATH'] ?? ''}` },
      prepare: () => undefined,
    },
    (started) => (scripted = started),
  );

  const newSession = async (folder: string): Promise<string> => {
    const session = await answer<Session>(scripted.transport, 'session:create', { workspacePath: join(scripted.folder.path, folder) });
    await answer(scripted.transport, 'session:setAutonomy', { sessionId: session.id, autonomy: 'L3' });
    return session.id;
  };
  const send = async (sessionId: string, text: string): Promise<void> => {
    await answer(scripted.transport, 'run:send', { sessionId, text });
    await scripted.core.runtime?.whenIdle(sessionId);
  };
  const reports = async (sessionId: string) =>
    (await answer<{ entries: JournalEntry[] }>(scripted.transport, 'session:open', { sessionId })).entries
      .map((entry) => entry.event)
      .filter((event): event is Extract<RuntimeEvent, { type: 'problems_reported' }> => event.type === 'problems_reported');

  it('gives the model the type error its edit made, once the person allowed the server, and the view counts it', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(scripted.folder.path, 'shop/src'), { recursive: true });
    writeFileSync(
      join(scripted.folder.path, 'shop/src/cart.ts'),
      'export function count(items: string[]): number {\n  return items.length;\n}\n',
    );
    const sessionId = await newSession('shop');

    // Not allowed yet: the edit's result says so, and the journal says which server waits.
    scripted.server.reset();
    scripted.server.enqueue(
      {
        steps: [toolCall('edit_file', { path: 'src/cart.ts', oldText: 'return items.length;', newText: 'return items.join();' }, 'edit1')],
      },
      textTurn('Done.'),
    );
    await send(sessionId, 'Join the items.');
    expect(toolResultOf(scripted, 1)).toContain(
      'TypeScript and JavaScript files are not checked until the person allows typescript-language-server to run in this folder.',
    );
    expect((await reports(sessionId)).at(-1)?.report.unallowed).toEqual(['typescript']);

    const settings = await answer<Settings>(scripted.transport, 'diagnostics:allow', { sessionId, language: 'typescript', allow: true });
    expect(settings.diagnostics.allowed).toEqual([{ workspacePath: join(scripted.folder.path, 'shop'), language: 'typescript' }]);
    scripted.server.reset();
    scripted.server.enqueue(
      {
        steps: [
          toolCall('edit_file', { path: 'src/cart.ts', oldText: 'return items.join();', newText: 'return items.join(", ");' }, 'edit2'),
        ],
      },
      textTurn('Still wrong, I see.'),
    );
    await send(sessionId, 'Use a comma and a space.');
    const result = toolResultOf(scripted, 1);
    expect(result).toContain('Problems in the changed files (src/cart.ts): 1 error, 0 warnings.');
    expect(result).toContain("src/cart.ts:2:3 error: Type 'string' is not assignable to type 'number'. (typescript 2322)");
    // The edit stands whatever the check says.
    expect(readFileSync(join(scripted.folder.path, 'shop/src/cart.ts'), 'utf8')).toContain('items.join(", ")');
    const { entries } = await answer<{ entries: JournalEntry[] }>(scripted.transport, 'session:open', { sessionId });
    const view = reduceSessionView(emptySessionView, entries);
    expect(view.problems).toEqual({ 'src/cart.ts': { errors: 1, warnings: 0 } });
    const edited = view.messages
      .flatMap((message) => message.toolCalls)
      .filter((call) => call.tool === 'edit_file')
      .at(-1);
    expect(edited?.problems?.problems.map((problem) => problem.code)).toEqual(['2322']);
  });

  it('a server that crashes: a note with the result, the edit stands, the turn goes on', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(scripted.folder.path, 'broken/src'), { recursive: true });
    writeFileSync(join(scripted.folder.path, 'broken/src/a.ts'), 'export const a = 1;\n');
    installFakeServer(join(scripted.folder.path, 'broken'), 'dies-after-start');
    const sessionId = await newSession('broken');
    await answer(scripted.transport, 'diagnostics:allow', { sessionId, language: 'typescript', allow: true });
    scripted.server.reset();
    scripted.server.enqueue(
      { steps: [toolCall('write_file', { path: 'src/a.ts', content: 'export const a = 2;\n' }, 'write1')] },
      textTurn('Written.'),
    );
    await send(sessionId, 'Make it two.');
    expect(toolResultOf(scripted, 1)).toMatch(/TypeScript and JavaScript checks failed: typescript-language-server .*The change stands\./);
    expect(readFileSync(join(scripted.folder.path, 'broken/src/a.ts'), 'utf8')).toBe('export const a = 2;\n');
    expect(scripted.server.requests).toHaveLength(2);
  });
});
