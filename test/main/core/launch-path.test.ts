import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../src/shared/domain';
import type { EventPayload } from '../../../src/shared/ipc/contract';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import { temporaryFolder } from '../../helpers';
import { needs, symlinks } from '../../platform';
import type { LoopbackTransport } from '../../host/loopback-transport';
import { textTurn, type ScriptedModelServer } from '../../scripted-model-server';
import { useScriptedCore } from '../scripted-core';

describe('opening a path given to the app from outside', () => {
  let server: ScriptedModelServer;
  let transport: LoopbackTransport;
  let core: WorkbenchCore;
  useScriptedCore({}, (started) => ({ server, transport, core } = started));
  const places = temporaryFolder('workbench-launch-');
  afterAll(() => places.remove());

  async function call<T>(channel: string, input: unknown): Promise<T> {
    const result = await transport.invoke(channel, input);
    if (!result.ok) throw Object.assign(new Error(result.error.message), { code: result.error.code });
    return result.value as T;
  }
  const sessions = (): Promise<Session[]> => call<Session[]>('session:list', {});
  const told = (): Array<EventPayload<'launch:opened'>> =>
    transport.sent.filter((sent) => sent.event === 'launch:opened').map((sent) => sent.payload as EventPayload<'launch:opened'>);
  const folder = (name: string): string => {
    const path = join(places.path, name);
    mkdirSync(path, { recursive: true });
    return realpathSync(path);
  };

  it('opens a folder without sessions as a new session in it, and tells the window to show it', async () => {
    const project = folder('fresh');
    const before = (await sessions()).length;
    const opened = await core.openLaunchPath(project);
    if (!('session' in opened)) throw new Error(opened.error.message);
    expect(opened.session.workspacePath).toBe(project);
    expect(await sessions()).toHaveLength(before + 1);
    expect(told().at(-1)).toEqual({ session: opened.session });
    expect(transport.sent.some((sent) => sent.event === 'session:changed')).toBe(true);
  });

  it(
    'opens a folder that has sessions as its most recently changed one, through a link to it too, and creates none',
    needs(symlinks),
    async () => {
      const project = folder('worked-on');
      const older = await call<Session>('session:create', { title: 'Older', workspacePath: project });
      const newer = await call<Session>('session:create', { title: 'Newer', workspacePath: project });
      server.enqueue(textTurn('Done.'));
      await call('run:send', { sessionId: older.id, text: 'Go on' });
      await core.runtime?.whenIdle(older.id);
      symlinkSync(project, join(places.path, 'link-to-project'));
      const before = (await sessions()).length;

      const opened = await core.openLaunchPath(join(places.path, 'link-to-project'));
      expect('session' in opened && opened.session.id).toBe(older.id);
      expect(await sessions()).toHaveLength(before);
      expect(newer.id).not.toBe(older.id);
    },
  );

  it('imports an exported session given as a file, as a new session', async () => {
    const original = await call<Session>('session:create', { title: 'Carried over' });
    const exported = await call<{ fileName: string; document: string }>('session:export', { sessionId: original.id });
    const file = join(places.path, exported.fileName);
    writeFileSync(file, exported.document);
    const before = (await sessions()).length;

    const opened = await core.openLaunchPath(file);
    if (!('session' in opened)) throw new Error(opened.error.message);
    expect(opened.session.id).not.toBe(original.id);
    expect(opened.session.title).toBe('Carried over');
    expect(await sessions()).toHaveLength(before + 1);
    expect(told().at(-1)).toEqual({ session: opened.session });
  });

  it('refuses what is neither a folder nor a session export with a typed error, tells the window, and changes nothing', async () => {
    const notes = join(places.path, 'notes.md');
    writeFileSync(notes, '# Notes\n');
    const notAnExport = join(places.path, 'package.workbench-session.json');
    writeFileSync(notAnExport, '{"name": "not a session"}');
    const before = await sessions();
    const cases: Array<[string, string]> = [
      [join(places.path, 'missing'), 'not_found'],
      ['relative/folder', 'invalid_input'],
      [notes, 'invalid_input'],
      [notAnExport, 'invalid_input'],
    ];
    for (const [path, code] of cases) {
      const opened = await core.openLaunchPath(path);
      expect(opened).toMatchObject({ path, error: { code } });
      expect(told().at(-1)).toEqual(opened);
    }
    expect(await sessions()).toEqual(before);
  });
});
