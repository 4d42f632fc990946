import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { electronApp, needs } from '../platform';
import { RemoteScriptedServer } from '../scripted-model-server/remote';
import { launchSmokeApp, type SmokeApp } from './app';
import { addEndpointInSettings, noteText, scriptedTurns, sendScriptedTurn } from './scripted-turn';

/*
 * One turn end to end in the real app: the scripted model server in a process of its own, added as an endpoint in
 * Settings; a folder given on the app's command line, as `agent-workbench ~/project` gives it (the folder dialog is the
 * system's and cannot be driven); a message, the model's tool call run on the folder, and the answer, in the window.
 */
describe('one scripted turn in the built app in Electron', needs(electronApp), () => {
  let workspace: { path: string; remove: () => void };
  let server: RemoteScriptedServer;
  let smoke: SmokeApp;
  beforeAll(async () => {
    workspace = temporaryFolder('workbench-electron-smoke-workspace-');
    writeFileSync(join(workspace.path, 'notes.md'), `${noteText}\n`);
    server = await RemoteScriptedServer.start();
    smoke = await launchSmokeApp([workspace.path]);
  });
  afterAll(async () => {
    await smoke?.close();
    await server?.close();
    workspace?.remove();
  });

  it('opens the folder it was started with, adds the endpoint in Settings, and shows the tool call and the answer', async () => {
    const page = smoke.window;
    await expectPage(page.getByLabel('Workspace').locator('code')).toHaveText(realpathSync(workspace.path));
    await addEndpointInSettings(page, server.openaiBaseUrl);
    await server.enqueue(...scriptedTurns);
    await sendScriptedTurn(page);
    expect(smoke.pageErrors).toEqual([]);
  });
});
