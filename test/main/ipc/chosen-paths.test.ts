import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../src/shared/domain';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import { ignoresCase, isWithin, pathKey, samePath } from '../../../src/main/workspace/path-case';
import { createNodeCore } from '../../host/node-core';
import { LoopbackTransport } from '../../host/loopback-transport';

describe('paths the window names', () => {
  let root: string;
  let picked: string | null = null;
  let core: WorkbenchCore;
  let transport: LoopbackTransport;
  const folder = (name: string): string => {
    const path = join(root, name);
    mkdirSync(path, { recursive: true });
    return path;
  };
  const sessions = async (): Promise<Session[]> => {
    const listed = await transport.invokeFromPage('session:list', {});
    return listed.ok ? (listed.value as Session[]) : [];
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'workbench-chosen-'));
    transport = new LoopbackTransport();
    ({ core } = await createNodeCore({
      dataDir: folder('data'),
      transport,
      folderPicker: { pickFolder: async () => picked, pickFile: async () => picked },
    }));
  });
  afterAll(async () => {
    await core.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses a workspace the person never chose, and creates nothing', async () => {
    const before = await sessions();
    const refused = await transport.invokeFromPage('session:create', { workspacePath: folder('never-chosen') });
    expect(refused).toMatchObject({ ok: false, error: { code: 'path_not_chosen' } });
    expect(await sessions()).toEqual(before);
    const home = await transport.invokeFromPage('session:create', { workspacePath: root });
    expect(home).toMatchObject({ ok: false, error: { code: 'path_not_chosen' } });
  });

  it('takes a folder the dialog returned, a dropped one, and a recent one; another session cannot move elsewhere', async () => {
    picked = folder('from-dialog');
    const blank = await transport.invokeFromPage('session:create', { workspacePath: null });
    if (!blank.ok) throw new Error(blank.error.message);
    const sessionId = (blank.value as Session).id;
    const moved = await transport.invokeFromPage('workspace:pick', { sessionId });
    expect(moved).toMatchObject({ ok: true, value: { workspacePath: picked } });

    // Dropped: the preload told main of it first.
    const dropped = folder('dropped');
    expect(await transport.invokeFromPage('workspace:set', { sessionId, path: dropped })).toMatchObject({ ok: false });
    core.rememberChosenPath(dropped);
    expect(await transport.invokeFromPage('workspace:set', { sessionId, path: dropped })).toMatchObject({
      ok: true,
      value: { workspacePath: dropped },
    });

    // A folder a session already has (the recent folders) needs no dialog again.
    const again = await transport.invokeFromPage('session:create', { workspacePath: picked });
    expect(again).toMatchObject({ ok: true, value: { workspacePath: picked } });
    // Anything else is refused, and the session stays where it was.
    const other = folder('elsewhere');
    expect(await transport.invokeFromPage('workspace:set', { sessionId, path: other })).toMatchObject({
      ok: false,
      error: { code: 'path_not_chosen' },
    });
    expect((await sessions()).find((session) => session.id === sessionId)?.workspacePath).toBe(dropped);
  });

  it('an imported session keeps its folder only where the person chose it, so a file cannot name one', async () => {
    const [own] = (await sessions()).filter((session) => session.workspacePath !== null);
    if (!own) throw new Error('no session with a folder');
    const exported = await transport.invokeFromPage('session:export', { sessionId: own.id });
    if (!exported.ok) throw new Error(exported.error.message);
    const document = JSON.parse((exported.value as { document: string }).document) as { session: { workspacePath: string } };
    // Its own folder (a session has it): kept.
    const same = await transport.invokeFromPage('session:import', { document: JSON.stringify(document) });
    expect(same).toMatchObject({ ok: true, value: { workspacePath: own.workspacePath } });
    // A folder that exists but was never chosen: the session comes without one, and the folder stays refused.
    const secret = folder('secret-keys');
    document.session.workspacePath = secret;
    const other = await transport.invokeFromPage('session:import', { document: JSON.stringify(document) });
    expect(other).toMatchObject({ ok: true, value: { workspacePath: null } });
    const imported = (other.ok ? other.value : null) as Session | null;
    expect(await transport.invokeFromPage('workspace:set', { sessionId: imported?.id, path: secret })).toMatchObject({
      ok: false,
      error: { code: 'path_not_chosen' },
    });
  });

  it('a chosen folder reached through a link is the same choice', async () => {
    const real = folder('real-project');
    const link = join(root, 'link-to-project');
    symlinkSync(real, link);
    core.rememberChosenPath(link);
    const created = await transport.invokeFromPage('session:create', { workspacePath: real });
    expect(created).toMatchObject({ ok: true, value: { workspacePath: real } });
  });

  it('reads no model file the dialog did not return', async () => {
    const secret = join(root, 'not-a-model.gguf');
    writeFileSync(secret, 'GGUF? no: a file the page should not make main read');
    const refused = await transport.invokeFromPage('local-model:addFile', { path: secret });
    expect(refused).toMatchObject({ ok: false, error: { code: 'path_not_chosen' } });
    picked = secret;
    expect(await transport.invokeFromPage('local-model:pickFile', {})).toMatchObject({ ok: true, value: { path: secret } });
    // Chosen now: main reads it, and says what is wrong with it.
    const read = await transport.invokeFromPage('local-model:addFile', { path: secret });
    expect(read).toMatchObject({ ok: false });
    expect(read.ok ? null : read.error.code).not.toBe('path_not_chosen');
  });
});

describe('path comparisons by the file system’s case rules', () => {
  it('finds that this machine’s temporary folder keeps case, as Linux file systems do', () => {
    const folder = mkdtempSync(join(tmpdir(), 'workbench-Case-'));
    try {
      expect(ignoresCase(folder)).toBe(process.platform === 'darwin' || process.platform === 'win32');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('where case is ignored, another letter case is the same place: inside a protected folder, or the same folder', () => {
    expect(isWithin('/Users/me/Library/Workbench', '/users/ME/library/workbench/db.sqlite', true)).toBe(true);
    expect(isWithin('/Users/me/Library/Workbench', '/users/ME/library/workbench/db.sqlite', false)).toBe(false);
    expect(isWithin('/Users/me/Library/Workbench', '/Users/me/Library/Workbench2', true)).toBe(false);
    expect(samePath('/Users/me/Project', '/users/me/project', true)).toBe(true);
    expect(samePath('/home/me/Project', '/home/me/project', false)).toBe(false);
    expect(pathKey('/Users/me/Project', true)).toBe(pathKey('/users/ME/project', true));
    expect(pathKey('/home/me/Project', false)).not.toBe(pathKey('/home/me/project', false));
  });
});
