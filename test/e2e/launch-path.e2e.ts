import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { afterAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/shared/domain';
import { temporaryFolder } from '../helpers';
import { useWorkbenches } from './fixture';

describe('a folder or a session file given to the app from outside', () => {
  const open = useWorkbenches();
  const places = temporaryFolder('workbench-launch-e2e-');
  afterAll(() => places.remove());

  it('shows the session the folder opened as, the same one again later, an imported session, and why a path could not be opened', async () => {
    const workbench = await open();
    const { page, host } = workbench;
    await workbench.configureScriptedModel();
    const elsewhere = await host.invoke('session:create', { title: 'Elsewhere', workspacePath: null });
    expect(elsewhere.ok).toBe(true);
    const elsewhereButton = page.locator('.sessions button.session-open', { hasText: 'Elsewhere' });
    await elsewhereButton.click();
    const selected = page.locator('.sessions button.session-open[aria-current="true"]');
    const workspace = page.getByLabel('Workspace').locator('code');
    await expectPage(selected).toHaveCount(1);
    const sessionsShown = page.locator('.sessions > li');
    const before = await sessionsShown.count();

    // As `agent-workbench ~/project` would: a new session in the folder, shown at once.
    const project = join(places.path, 'project');
    mkdirSync(project);
    const opened = await host.core.openLaunchPath(project);
    if (!('session' in opened)) throw new Error(opened.error.message);
    await expectPage(workspace).toHaveText(realpathSync(project));
    await expectPage(sessionsShown).toHaveCount(before + 1);
    await expectPage(selected).toHaveCount(1);
    await workbench.screenshot('launch-folder-opened');

    // Another session is shown; opening the folder again goes back to its session and creates none.
    await elsewhereButton.click();
    await expectPage(selected).toContainText('Elsewhere');
    await expectPage(workspace).not.toHaveText(realpathSync(project));
    const again = await host.core.openLaunchPath(project);
    expect('session' in again && again.session.id).toBe(opened.session.id);
    await expectPage(workspace).toHaveText(realpathSync(project));
    await expectPage(sessionsShown).toHaveCount(before + 1);

    // An exported session given as a file is imported and shown.
    const renamed = await host.invoke('session:rename', { sessionId: opened.session.id, title: 'Carried over' });
    expect(renamed.ok).toBe(true);
    const exported = await host.invoke('session:export', { sessionId: opened.session.id });
    if (!exported.ok) throw new Error(exported.error.message);
    const { fileName, document } = exported.value as { fileName: string; document: string };
    writeFileSync(join(places.path, fileName), document);
    const imported = await host.core.openLaunchPath(join(places.path, fileName));
    if (!('session' in imported)) throw new Error(imported.error.message);
    await expectPage(sessionsShown).toHaveCount(before + 2);
    await expectPage(page.getByRole('heading', { name: 'Carried over', level: 2 })).toBeVisible();
    await expectPage(selected).toContainText('Carried over');
    expect((imported.session satisfies Session).id).not.toBe(opened.session.id);

    // A path that is not there: the window says so and nothing changes.
    const missing = join(places.path, 'gone');
    await host.core.openLaunchPath(missing);
    await expectPage(page.getByRole('alert')).toContainText(`${missing} could not be opened`);
    await expectPage(sessionsShown).toHaveCount(before + 2);
    await workbench.screenshot('launch-path-refused');
  });
});
