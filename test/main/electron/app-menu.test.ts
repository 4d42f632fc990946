import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { appMenuTemplate, checkForUpdatesLabel } from '../../../src/main/electron/app-menu';

const submenuOf = (item: MenuItemConstructorOptions | undefined): MenuItemConstructorOptions[] =>
  Array.isArray(item?.submenu) ? item.submenu : [];

/** Where in the menu the update check is: the top menu's label or role, and the item. */
function findCheck(template: MenuItemConstructorOptions[]): { menu: string; item: MenuItemConstructorOptions } | null {
  for (const menu of template) {
    const item = submenuOf(menu).find((entry) => entry.label === checkForUpdatesLabel);
    if (item) return { menu: menu.label ?? menu.role ?? '?', item };
  }
  return null;
}

describe('the application menu', () => {
  it('puts “Check for Updates…” in the app menu on macOS, after About', () => {
    const template = appMenuTemplate({ platform: 'darwin', appName: 'Agent Workbench', onCheckForUpdates: () => undefined });
    expect(findCheck(template)?.menu).toBe('Agent Workbench');
    expect(
      submenuOf(template[0])
        .slice(0, 2)
        .map((item) => item.role ?? item.label),
    ).toEqual(['about', checkForUpdatesLabel]);
    expect(template.map((menu) => menu.role ?? menu.label)).toEqual([
      'Agent Workbench',
      'fileMenu',
      'editMenu',
      'viewMenu',
      'windowMenu',
      'help',
    ]);
  });

  it.each(['linux', 'win32'] as const)('puts it in the Help menu on %s, with the standard menus before', (platform) => {
    const template = appMenuTemplate({ platform, appName: 'Agent Workbench', onCheckForUpdates: () => undefined });
    expect(findCheck(template)?.menu).toBe('help');
    expect(template.map((menu) => menu.role ?? menu.label)).toEqual(['fileMenu', 'editMenu', 'viewMenu', 'windowMenu', 'help']);
  });

  it('checks for updates when the item is chosen', () => {
    let checks = 0;
    const template = appMenuTemplate({ platform: 'linux', appName: 'Agent Workbench', onCheckForUpdates: () => checks++ });
    const click = findCheck(template)?.item.click as (() => void) | undefined;
    click?.();
    expect(checks).toBe(1);
  });
});
