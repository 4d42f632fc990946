import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort, temporaryFolder } from '../helpers';
import { FeedUpdater } from '../host/feed-updater';
import { startUpdateFeed, type UpdateFeedServer } from '../update-feed-server';
import { useWorkbenches, type Workbench } from './fixture';

/* Updates are off until turned on; then the feed the person (or their organization) sets is checked, and an update
 * downloaded and verified waits for "Restart to update". */
describe('updates from a feed', () => {
  const open = useWorkbenches();
  const owned: Array<() => unknown> = [];
  afterEach(async () => {
    for (const release of owned.splice(0).reverse()) await release();
  });

  async function feed(version: string): Promise<UpdateFeedServer> {
    const server = await startUpdateFeed({ version });
    owned.push(() => server.close());
    return server;
  }

  /** A policy file of the organization's, in a folder of the test's own. */
  function policyFile(text: string | null): string {
    const folder = temporaryFolder('workbench-policy-');
    owned.push(folder.remove);
    const path = join(folder.path, 'policy.json');
    if (text !== null) writeFileSync(path, text);
    return path;
  }

  async function openUpdates(workbench: Workbench) {
    const { page } = workbench;
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByRole('navigation', { name: 'Sections of Settings' }).getByRole('button', { name: 'Updates', exact: true }).click();
    return dialog.getByRole('region', { name: 'Updates', exact: true });
  }

  it('is turned on with a feed, checks it, downloads when asked, and offers Restart to update', async () => {
    const server = await feed('0.2.0');
    const updater = new FeedUpdater('0.1.0');
    const workbench = await open({ updates: { updater, policyPath: policyFile(null) } });
    const section = await openUpdates(workbench);
    const status = section.getByRole('status', { name: 'Update status' });
    await expectPage(section.getByRole('checkbox', { name: /Look for updates/ })).not.toBeChecked();
    await expectPage(status).toHaveText('Version 0.1.0. No check yet.');

    // A feed over plain http on another computer is refused, and nothing is kept.
    const feedField = section.getByRole('textbox', { name: 'Update feed' });
    await feedField.fill('http://updates.example.com/workbench/');
    await section.getByRole('button', { name: 'Save feed' }).click();
    await expectPage(section.getByRole('alert')).toContainText('must start with https:// (http:// only for 127.0.0.1 or localhost)');
    await expectPage(feedField).toHaveValue('http://updates.example.com/workbench/');
    const refused = await workbench.host.invoke('updates:get', {});
    expect(refused.ok && (refused.value as { settings: { feedUrl: string | null } }).settings.feedUrl).toBeNull();

    await feedField.fill(server.url);
    await section.getByRole('button', { name: 'Save feed' }).click();
    await expectPage(section.getByRole('alert')).toHaveCount(0);
    // The switch shows the setting as the app saved it, so it turns once the app has answered.
    const lookForUpdates = section.getByRole('checkbox', { name: /Look for updates/ });
    await lookForUpdates.click();
    await expectPage(lookForUpdates).toBeChecked();
    await section.getByRole('button', { name: 'Check now' }).click();
    await expectPage(status).toHaveText('Version 0.2.0 is available.');
    expect(server.requests).toContain('/feed/latest-linux.yml');
    // Asked first: nothing is downloaded before the person says so.
    expect(server.requests).not.toContain('/feed/Agent-Workbench-0.2.0.AppImage');
    await workbench.screenshot('updates-available');

    await section.getByRole('button', { name: 'Download' }).click();
    await expectPage(status).toHaveText('Version 0.2.0 is downloaded and verified: restart to update.');
    expect(updater.downloaded?.length).toBe(256 * 1024);

    // Outside Settings, a quiet notice says the same, with the button that installs it.
    await workbench.page.keyboard.press('Escape');
    const notice = workbench.page.getByRole('status', { name: 'Updates' });
    await expectPage(notice).toContainText('Version 0.2.0 is downloaded and verified');
    await workbench.screenshot('updates-ready-notice');
    await notice.getByRole('button', { name: 'Restart to update' }).click();
    await expect.poll(() => updater.installs).toBe(1);
  });

  it('shows what the organization’s policy sets, and does not let it be changed', async () => {
    const server = await feed('0.2.0');
    const policyPath = policyFile(JSON.stringify({ version: 1, updates: { enabled: true, feedUrl: server.url } }));
    const workbench = await open({ updates: { updater: new FeedUpdater('0.1.0'), policyPath } });
    const section = await openUpdates(workbench);
    const enabled = section.getByRole('checkbox', { name: /Look for updates/ });
    await expectPage(enabled).toBeChecked();
    await expectPage(enabled).toBeDisabled();
    await expectPage(section.getByRole('textbox', { name: 'Update feed' })).toHaveValue(server.url);
    await expectPage(section.getByRole('textbox', { name: 'Update feed' })).toHaveAttribute('readonly', '');
    await expectPage(section.getByRole('button', { name: 'Save feed' })).toHaveCount(0);
    await expectPage(section.getByText('Set by your organization’s policy.')).toHaveCount(2);
    await workbench.screenshot('updates-policy');

    // The window cannot change it by another way either.
    const changed = await workbench.host.invoke('updates:set', { feedUrl: 'https://elsewhere.example.com/' });
    expect(changed).toMatchObject({ ok: false, error: { code: 'invalid_state' } });
    await section.getByRole('button', { name: 'Check now' }).click();
    await expectPage(section.getByRole('status', { name: 'Update status' })).toHaveText('Version 0.2.0 is available.');
  });

  it('says why updates are off when the policy is malformed, and plainly when a feed asked for cannot be reached', async () => {
    const port = await closedPort();
    const broken = await open({ updates: { updater: new FeedUpdater('0.1.0'), policyPath: policyFile('{ "updates": ') } });
    const brokenSection = await openUpdates(broken);
    await expectPage(brokenSection.getByRole('alert')).toContainText('is not JSON');
    await expectPage(brokenSection.getByRole('checkbox', { name: /Look for updates/ })).toBeDisabled();
    await broken.close();

    const workbench = await open({ updates: { updater: new FeedUpdater('0.1.0'), policyPath: policyFile(null) } });
    const section = await openUpdates(workbench);
    await section.getByRole('textbox', { name: 'Update feed' }).fill(`http://127.0.0.1:${port}/feed/`);
    await section.getByRole('button', { name: 'Save feed' }).click();
    // Turned on by the person: the first automatic check finds nobody there, and says nothing.
    const lookForUpdates = section.getByRole('checkbox', { name: /Look for updates/ });
    await lookForUpdates.click();
    await expectPage(lookForUpdates).toBeChecked();
    await section.getByRole('button', { name: 'Check now' }).click();
    await expectPage(section.getByRole('status', { name: 'Update status' })).toHaveText(
      `Could not reach the update feed at http://127.0.0.1:${port}/feed/ (ECONNREFUSED). Check the network connection, or the feed's address.`,
      { timeout: 15_000 },
    );
  }, 40_000);
});
