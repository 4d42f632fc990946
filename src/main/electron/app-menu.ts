/*
 * The application menu as a template of Electron's roles, with "Check for Updates…" in the app menu on macOS and in the
 * Help menu elsewhere. A plain function: the edge builds the menu from it.
 */

import type { MenuItemConstructorOptions } from 'electron';

/** The label of the menu item, as each system's guidelines write it. */
export const checkForUpdatesLabel = 'Check for Updates…';

/** The standard menu of the system, and the update check where that system's people look for it. */
export function appMenuTemplate(options: {
  readonly platform: NodeJS.Platform;
  readonly appName: string;
  readonly onCheckForUpdates: () => void;
}): MenuItemConstructorOptions[] {
  const checkForUpdates: MenuItemConstructorOptions = {
    id: 'check-for-updates',
    label: checkForUpdatesLabel,
    click: options.onCheckForUpdates,
  };
  const common: MenuItemConstructorOptions[] = [{ role: 'editMenu' }, { role: 'viewMenu' }, { role: 'windowMenu' }];
  if (options.platform === 'darwin')
    return [
      {
        label: options.appName,
        submenu: [
          { role: 'about' },
          checkForUpdates,
          { type: 'separator' },
          { role: 'services' },
          { type: 'separator' },
          { role: 'hide' },
          { role: 'hideOthers' },
          { role: 'unhide' },
          { type: 'separator' },
          { role: 'quit' },
        ],
      },
      { role: 'fileMenu' },
      ...common,
      { role: 'help', submenu: [] },
    ];
  return [{ role: 'fileMenu' }, ...common, { role: 'help', submenu: [checkForUpdates] }];
}
