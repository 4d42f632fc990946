/*
 * The app's entry point in Electron: lifecycle, the window, the app:// protocol, and the settings, secrets, dialogs
 * and runtime process handed to the core.
 *
 * One instance runs at a time: a folder or session file given to a second one opens in the first.
 */

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BrowserWindow, Menu, app, dialog, ipcMain, net, protocol, safeStorage, session, shell, utilityProcess } from 'electron';
import electronUpdaterModule from 'electron-updater';
import ElectronStore from 'electron-store';
import { defaultSettings } from '../shared/domain';
import { chooseDataFolder } from './electron/data-folder';
import { denyAllPermissions, hardenWebContents } from './electron/harden';
import { ElectronIpcTransport } from './electron/ipc-transport';
import { safeStorageCipher } from './electron/safe-storage-cipher';
import { appOrigin, appScheme, contentSecurityPolicy, isAppUrl, mainWindowOptions, resolveAppFile } from './electron/window-options';
import { LaunchQueue, launchTarget, targetFor, type LaunchTarget } from './electron/launch-args';
import { CipherKeptDatabaseKey } from './secrets/cipher-kept-database-key';
import { databaseKeyFile } from './store/database-key';
import { EncryptedFileSecretStore } from './secrets/encrypted-file-secret-store';
import { ConfSettingsStore } from './settings/conf-settings-store';
import { createWorkbenchCore, type WorkbenchCore } from './core/workbench-core';
import type { SenderInfo } from './ipc/router';
import { utilityRuntime } from './electron/utility-runtime';
import { applyLoginEnvironment, startedFromTerminal } from './tools/login-environment';
import { electronUpdater } from './electron/electron-updater';
import { appMenuTemplate } from './electron/app-menu';
import { systemPolicyPath } from './updates/update-policy';

const here = fileURLToPath(new URL('.', import.meta.url));
const rendererRoot = join(here, '../renderer');
const preloadPath = join(here, '../preload/index.cjs');
const runtimeHostPath = join(here, 'runtime-host.js');
const tagWorkerPath = join(here, 'tag-worker.js');

protocol.registerSchemesAsPrivileged([{ scheme: appScheme, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

// A run from the electron binary may be given a data folder of its own (the smoke tests' fresh one). It is set before
// the single-instance lock, which is kept in the data folder; a value that names no folder stops the app before anything
// is written.
const dataFolder = chooseDataFolder(process.env, { packaged: app.isPackaged, platform: process.platform });
if (dataFolder.kind === 'override') app.setPath('userData', dataFolder.path);
if (dataFolder.kind === 'ignored') console.warn(dataFolder.reason);

if (dataFolder.kind === 'refused') {
  dialog.showErrorBox('Agent Workbench cannot start', dataFolder.reason);
  app.exit(2);
} else if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  // The PATH and the rest of the person's login shell environment, for every program the app starts; read while
  // Electron starts up, and waited for before the core starts any.
  const loginEnvironment = applyLoginEnvironment(process.env, { platform: process.platform, fromTerminal: startedFromTerminal() });
  let mainWindow: BrowserWindow | null = null;
  let core: WorkbenchCore | null = null;

  const createWindow = (): BrowserWindow => {
    const window = new BrowserWindow(mainWindowOptions(preloadPath));
    window.once('ready-to-show', () => window.show());
    window.on('closed', () => {
      if (mainWindow === window) mainWindow = null;
    });
    void window.loadURL(`${appOrigin}/index.html`);
    return window;
  };

  // A folder or an exported session given on the command line, by a file manager or dropped on the dock icon
  // (macOS sends that before `ready` too) opens once the window can show it.
  const launches = new LaunchQueue();
  const defaultApp = process.defaultApp === true;
  const initial = launchTarget(process.argv, { workingDirectory: process.cwd(), defaultApp });
  if (initial) launches.push(initial);
  const openTarget = (target: LaunchTarget): void => {
    const window = mainWindow ?? (mainWindow = createWindow());
    if (window.webContents.isLoading()) window.webContents.once('did-finish-load', () => void core?.openLaunchPath(target.path));
    else void core?.openLaunchPath(target.path);
    if (window.isMinimized()) window.restore();
    window.focus();
  };
  app.on('open-file', (event, path) => {
    event.preventDefault();
    launches.push(targetFor(path));
  });

  app.on('second-instance', (_event, argv, workingDirectory) => {
    if (mainWindow) {
      if (mainWindow.isMinimized()) mainWindow.restore();
      mainWindow.focus();
    }
    const target = launchTarget(argv, { workingDirectory, defaultApp });
    if (target) launches.push(target);
  });

  app.on('web-contents-created', (_event, contents) => {
    hardenWebContents(contents, (url) => void shell.openExternal(url));
  });

  void app.whenReady().then(async () => {
    denyAllPermissions(session.defaultSession);
    protocol.handle(appScheme, async (request) => {
      const file = resolveAppFile(rendererRoot, request.url);
      if (!file || !existsSync(file)) return new Response('Not found', { status: 404 });
      const response = await net.fetch(pathToFileURL(file).toString());
      const headers = new Headers(response.headers);
      headers.set('Content-Security-Policy', contentSecurityPolicy);
      headers.set('X-Content-Type-Options', 'nosniff');
      return new Response(response.body, { status: response.status, headers });
    });

    await loginEnvironment;
    const dataDir = app.getPath('userData');
    const settings = new ConfSettingsStore(
      new ElectronStore<Record<string, unknown>>({ name: 'settings', defaults: { ...defaultSettings } }),
    );
    const keychain = safeStorageCipher(safeStorage, process.platform);
    const secrets = new EncryptedFileSecretStore(join(dataDir, 'secrets.json'), keychain);
    // The database's key, kept encrypted by the keychain; where there is none, the database stays plain and says so.
    const databaseKeys = new CipherKeptDatabaseKey(join(dataDir, databaseKeyFile), keychain);
    const transport = new ElectronIpcTransport(ipcMain, () => BrowserWindow.getAllWindows().map((window) => window.webContents));
    const isTrustedSender = (sender: SenderInfo): boolean => sender.isMainFrame && isAppUrl(sender.url);
    core = await createWorkbenchCore({
      dataDir,
      appVersion: app.getVersion(),
      transport,
      isTrustedSender,
      settings,
      secrets,
      databaseKeys,
      folderPicker: {
        pickFolder: async () => {
          const options = { title: 'Choose a workspace folder', properties: ['openDirectory' as const, 'createDirectory' as const] };
          const result = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
          return result.canceled ? null : (result.filePaths[0] ?? null);
        },
        pickFile: async () => {
          const options = {
            title: 'Choose a model file',
            properties: ['openFile' as const],
            filters: [{ name: 'GGUF models', extensions: ['gguf'] }],
          };
          const result = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
          return result.canceled ? null : (result.filePaths[0] ?? null);
        },
      },
      environmentAnthropicKey: process.env['ANTHROPIC_API_KEY'] ?? null,
      // The workspace's files and the shell, whose commands run in the sandbox found on this machine.
      builtinTools: true,
      launchRuntime: utilityRuntime(utilityProcess.fork, runtimeHostPath),
      tagWorker: { path: tagWorkerPath },
      // After a backup of the database was put back, while nothing of the database is open: start again on it.
      relaunch: () => {
        // An AppImage runs from a mount that is gone once the app exits: it is started again from its own file.
        const appImage = process.env['APPIMAGE'];
        app.relaunch(appImage ? { execPath: appImage, args: process.argv.slice(1) } : undefined);
        app.exit(0);
      },
      // Off until the person or the organization's policy sets a feed (see the README's "Updates").
      updates: {
        updater: electronUpdater(() => electronUpdaterModule.autoUpdater),
        policyPath: systemPolicyPath(process.platform, process.env),
      },
    });
    const workbench = core;
    // "Check for Updates…": its end shows in the window; a check that cannot start (updates off) says why here.
    const checkForUpdates = (): void =>
      void workbench.updates.check(true).catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        const options = { type: 'info' as const, message: 'Check for Updates', detail: message };
        void (mainWindow ? dialog.showMessageBox(mainWindow, options) : dialog.showMessageBox(options));
      });
    Menu.setApplicationMenu(
      Menu.buildFromTemplate(appMenuTemplate({ platform: process.platform, appName: app.name, onCheckForUpdates: checkForUpdates })),
    );
    transport.onDroppedPath(isTrustedSender, (path) => workbench.rememberChosenPath(path));
    mainWindow = createWindow();
    launches.start(openTarget);
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow();
    });
  });

  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting || !core) return;
    event.preventDefault();
    quitting = true;
    void core.close().finally(() => app.quit());
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}
