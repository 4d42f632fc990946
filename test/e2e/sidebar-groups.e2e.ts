import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage, type Page } from 'playwright/test';
import { afterEach, describe, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { useWorkbenches, type Workbench } from './fixture';

/* The sessions list: sessions under their folder's name, a search box, folding, and the keys following what it shows. */
describe('the sessions list grouped by folder', () => {
  const open = useWorkbenches();
  const folders: Array<{ remove: () => void }> = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) folder.remove();
  });

  /** Three sessions in two folders, made one after the other: the list has them newest first. */
  async function threeSessions(): Promise<Workbench> {
    const parent = temporaryFolder('workbench-sidebar-e2e-');
    folders.push(parent);
    for (const name of ['alpha', 'beta']) mkdirSync(join(parent.path, name));
    const workbench = await open();
    for (const [title, folder] of [
      ['Fix the login', 'alpha'],
      ['Write the docs', 'beta'],
      ['Tidy the tests', 'alpha'],
    ] as const) {
      const created = await workbench.host.invoke('session:create', { title, workspacePath: join(parent.path, folder) });
      if (!created.ok) throw new Error(created.error.message);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await workbench.page.reload();
    return workbench;
  }

  const selected = (page: Page) => page.locator('.sessions button.session-open[aria-current="true"] .session-title');

  it('groups the sessions under their folder, narrows them by title or folder, and Alt+arrows and Ctrl+digits follow the list as shown', async () => {
    const workbench = await threeSessions();
    const { page } = workbench;
    const list = page.getByRole('navigation', { name: 'Sessions' });
    const group = (name: string) => list.getByRole('group', { name, exact: true });
    const titles = list.locator('.session-title');
    await expectPage(list.getByRole('group')).toHaveCount(2);
    await expectPage(group('alpha').locator('.session-title')).toHaveText(['Tidy the tests', 'Fix the login']);
    await expectPage(group('beta').locator('.session-title')).toHaveText(['Write the docs']);
    await expectPage(group('alpha').getByRole('button', { name: /^alpha\s*2 sessions$/ })).toHaveAttribute('aria-expanded', 'true');
    await workbench.screenshot('sidebar-groups');

    // The keys go down the list as shown (alpha's two, then beta's), not by when each session changed.
    await list.getByRole('button', { name: /^Tidy the tests/ }).click();
    await expectPage(selected(page)).toHaveText('Tidy the tests');
    await page.keyboard.press('Alt+ArrowDown');
    await expectPage(selected(page)).toHaveText('Fix the login');
    await page.keyboard.press('Alt+ArrowDown');
    await expectPage(selected(page)).toHaveText('Write the docs');
    await page.keyboard.press('Alt+ArrowDown');
    await expectPage(selected(page)).toHaveText('Tidy the tests');
    await page.keyboard.press('Alt+ArrowUp');
    await expectPage(selected(page)).toHaveText('Write the docs');
    await page.keyboard.press('Control+2');
    await expectPage(selected(page)).toHaveText('Fix the login');

    // Folded, a group shows only the selected session; the keys skip what it hides.
    await group('alpha').getByRole('button', { name: /alpha/ }).click();
    await expectPage(group('alpha').getByRole('button', { name: /alpha/ })).toHaveAttribute('aria-expanded', 'false');
    await expectPage(titles).toHaveText(['Fix the login', 'Write the docs']);
    await page.keyboard.press('Alt+ArrowDown');
    await expectPage(selected(page)).toHaveText('Write the docs');
    await expectPage(titles).toHaveText(['Write the docs']);
    await page.keyboard.press('Alt+ArrowDown');
    await expectPage(selected(page)).toHaveText('Write the docs');
    await page.keyboard.press('Control+1');
    await expectPage(selected(page)).toHaveText('Write the docs');
    await group('alpha').getByRole('button', { name: /alpha/ }).click();
    await expectPage(titles).toHaveText(['Tidy the tests', 'Fix the login', 'Write the docs']);

    // The search narrows by title, or by the folder's name; the keys follow what it leaves.
    const search = list.getByRole('searchbox', { name: 'Search sessions' });
    await list.getByRole('button', { name: /^Fix the login/ }).click();
    await search.fill('tests');
    // The selected session stays in sight, found or not.
    await expectPage(titles).toHaveText(['Tidy the tests', 'Fix the login']);
    await expectPage(list.getByRole('group')).toHaveCount(1);
    await search.fill('BETA');
    await expectPage(titles).toHaveText(['Fix the login', 'Write the docs']);
    await expectPage(group('beta')).toBeVisible();
    await page.keyboard.press('Alt+ArrowDown');
    await expectPage(selected(page)).toHaveText('Write the docs');
    await expectPage(titles).toHaveText(['Write the docs']);
    await workbench.screenshot('sidebar-search');
    await search.fill('nothing like it');
    await expectPage(list.getByRole('status')).toHaveText('No session matches “nothing like it”.');
    await expectPage(titles).toHaveText(['Write the docs']);
    await search.press('Escape');
    await expectPage(search).toHaveValue('');
    await expectPage(titles).toHaveText(['Tidy the tests', 'Fix the login', 'Write the docs']);
  });
});
