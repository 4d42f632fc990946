import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { settingsSections } from '../../src/renderer/src/settings/settings-sections';
import { useWorkbenches } from './fixture';

/* Settings as sections: a list of them to go to by click or by keys, and a search box that leaves what matches. */
describe('the sections of Settings and its search', () => {
  const open = useWorkbenches();

  it('goes to a section from the list by a click, and along the list with the arrow keys, Home and End', async () => {
    const workbench = await open();
    const { page } = workbench;
    // The window's keys listen once the app has started.
    await expectPage(page.getByRole('button', { name: 'Settings' })).toBeVisible();
    await page.keyboard.press('Control+,');
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const list = dialog.getByRole('navigation', { name: 'Sections of Settings' });
    const entry = (name: string) => list.getByRole('button', { name, exact: true });
    const section = (name: string) => dialog.getByRole('region', { name, exact: true });
    await expectPage(entry('Model endpoints')).toHaveAttribute('aria-current', 'true');
    await expectPage(section('Command limits')).not.toBeInViewport();

    await entry('Command limits').click();
    await expectPage(entry('Command limits')).toHaveAttribute('aria-current', 'true');
    await expectPage(entry('Model endpoints')).not.toHaveAttribute('aria-current', 'true');
    await expectPage(section('Command limits').getByRole('heading', { name: 'Command limits' })).toBeInViewport();
    await expectPage(section('Model endpoints')).not.toBeInViewport();
    // The last section cannot reach the top; gone to, it is still the current one.
    await entry('Data').click();
    await expectPage(entry('Data')).toHaveAttribute('aria-current', 'true');
    await expectPage(section('Data')).toBeInViewport();

    // The keys: one Tab stop in the list, the arrows move along it, each showing its section.
    await entry('Data').focus();
    await page.keyboard.press('Home');
    await expectPage(entry('Model endpoints')).toBeFocused();
    await expectPage(entry('Model endpoints')).toHaveAttribute('aria-current', 'true');
    await expectPage(section('Model endpoints').getByRole('heading', { name: 'Model endpoints' })).toBeInViewport();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expectPage(entry('Context window')).toBeFocused();
    await expectPage(entry('Context window')).toHaveAttribute('aria-current', 'true');
    await expectPage(section('Context window').getByRole('heading', { name: 'Context window' })).toBeInViewport();
    await page.keyboard.press('ArrowUp');
    await expectPage(entry('Models on this computer')).toBeFocused();
    await expectPage(entry('Models on this computer')).toHaveAttribute('aria-current', 'true');
    await page.keyboard.press('End');
    await expectPage(entry('Data')).toBeFocused();
    await expectPage(section('Data')).toBeInViewport();
    expect(await list.getByRole('button').evaluateAll((buttons) => buttons.filter((button) => button.tabIndex === 0).length)).toBe(1);
    // Enter goes into the section: Tab goes on from there.
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await expectPage(section('Archived sessions').getByRole('heading', { name: 'Archived sessions' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expectPage(section('Archived sessions').getByLabel('Keep deleted sessions for')).toBeFocused();

    // Scrolling the sections by hand moves the mark in the list.
    await dialog.locator('.settings-content').evaluate((content, top) => (content.scrollTop = top), 0);
    await expectPage(entry('Model endpoints')).toHaveAttribute('aria-current', 'true');

    // At 1024x640 the list goes above the sections, and still goes to them.
    await page.setViewportSize({ width: 1024, height: 640 });
    await workbench.screenshot('settings-sections-1024x640');
    await entry('Budgets').click();
    await expectPage(section('Budgets').getByRole('heading', { name: 'Budgets' })).toBeInViewport();
    await page.setViewportSize({ width: 760, height: 640 });
    const listBox = await list.boundingBox();
    const contentBox = await dialog.locator('.settings-content').boundingBox();
    expect(listBox && contentBox && listBox.y + listBox.height <= contentBox.y + 1).toBe(true);
    await entry('Tools').click();
    await expectPage(section('Tools').getByRole('heading', { name: 'Tools' })).toBeInViewport();
    await workbench.screenshot('settings-sections-760x640');
  });

  it('a search leaves the settings whose label, help or section match, in their sections, and says when nothing does', async () => {
    const workbench = await open();
    const { page } = workbench;
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const search = dialog.getByRole('searchbox', { name: 'Search settings' });
    await expectPage(search).toBeFocused();
    const list = dialog.getByRole('navigation', { name: 'Sections of Settings' });

    await search.fill('budget');
    // The budgets, in their section, and the thinking budget in its own.
    await expectPage(dialog.getByLabel('Model calls per turn budget')).toBeVisible();
    await expectPage(dialog.getByLabel('Cost per session (priced models only) budget')).toBeVisible();
    await expectPage(dialog.getByRole('region', { name: 'Budgets', exact: true })).toBeVisible();
    await expectPage(dialog.getByRole('region', { name: 'Extended thinking' })).toBeVisible();
    // What has nothing to do with budgets is gone, and so are the sections left empty.
    await expectPage(dialog.getByLabel('Theme')).toBeHidden();
    await expectPage(dialog.getByLabel('Plan threshold')).toBeHidden();
    await expectPage(dialog.getByLabel('Memory per process')).toBeHidden();
    await expectPage(dialog.getByRole('region', { name: 'Command limits' })).toBeHidden();
    await expectPage(dialog.getByRole('region', { name: 'MCP servers' })).toBeHidden();
    await expectPage(dialog.getByRole('form', { name: 'Add an endpoint' })).toBeHidden();
    await expectPage(list.getByRole('button')).toHaveText(['Extended thinking', 'Budgets']);
    // The words found are marked.
    expect(await page.evaluate(() => CSS.highlights.get('settings-search')?.size ?? 0)).toBeGreaterThanOrEqual(3);
    await workbench.screenshot('settings-search-budget');

    // A section's name finds all of it; several words must all be found.
    await search.fill('command limits');
    await expectPage(list.getByRole('button')).toHaveText(['Command limits']);
    await expectPage(dialog.getByLabel('Memory per process')).toBeVisible();
    await expectPage(dialog.getByLabel('CPU time per process')).toBeVisible();
    await search.fill('THEME');
    await expectPage(dialog.getByLabel('Theme')).toBeVisible();
    await expectPage(dialog.getByLabel('Default autonomy')).toBeHidden();

    await search.fill('zebra crossing');
    await expectPage(dialog.getByRole('status').filter({ hasText: 'No setting matches' })).toHaveText(
      'No setting matches “zebra crossing”.',
    );
    await expectPage(list.getByRole('button')).toHaveCount(0);
    await expectPage(dialog.getByRole('region')).toHaveCount(0);
    await workbench.screenshot('settings-search-nothing');

    // Esc empties the search first, and every section is back; a second Esc closes the dialog.
    await search.press('Escape');
    await expectPage(search).toHaveValue('');
    await expectPage(dialog.getByLabel('Theme')).toBeVisible();
    await expectPage(list.getByRole('button')).toHaveCount(settingsSections.length);
    expect(await page.evaluate(() => CSS.highlights.get('settings-search')?.size ?? 0)).toBe(0);
    await search.press('Escape');
    await expectPage(dialog).toHaveCount(0);
  });
});
