/*
 * The updater port on electron-updater's `autoUpdater`: a generic feed at the address the update service gives, with
 * downloads and installs on quit as the settings say, and every check of what is downloaded left as electron-updater
 * makes it.
 *
 * What is verified, by system (electron-updater 6.8, read in its source):
 * - every system: the downloaded file's sha512 must be the one the feed's channel file (latest.yml, latest-mac.yml,
 *   latest-linux.yml) gives, or the download fails (builder-util-runtime's DigestTransform);
 * - Windows (NSIS): the installer's Authenticode signature must be valid and its publisher one of those the running
 *   build names in its app-update.yml (`NsisUpdater.verifySignature`, `verifyUpdateCodeSignature`), before it runs; a
 *   build that names no publisher there gets the sha512 check only;
 * - macOS: Squirrel.Mac (Electron's native updater) installs the downloaded app only if its code signature satisfies
 *   the running app's designated requirement;
 * - Linux: an AppImage (and a deb or rpm) is checked against the feed's sha512 only: nothing signs it, so the feed's
 *   https is what stands behind that sha512.
 * None of these is turned off here: `verifyUpdateCodeSignature` is never replaced, `forceDevUpdateConfig` never set,
 * and a downgrade is never allowed.
 */

import type { Updater, UpdaterConfig, UpdaterListener, UpdateCheck } from '../updates/updater';

/** The part of electron-updater's `AppUpdater` this adapter uses. */
export interface AutoUpdaterLike {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  allowDowngrade: boolean;
  setFeedURL(options: { provider: 'generic'; url: string }): void;
  checkForUpdates(): Promise<{
    readonly isUpdateAvailable: boolean;
    readonly updateInfo: { readonly version: string };
    readonly downloadPromise?: Promise<unknown> | null;
  } | null>;
  downloadUpdate(): Promise<unknown>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
  on(event: 'download-progress', listener: (progress: { percent: number }) => void): unknown;
}

/**
 * The updater port on electron-updater's `autoUpdater`, made at the first use: while updates are off, electron-updater
 * is not even set up.
 */
export function electronUpdater(make: () => AutoUpdaterLike): Updater {
  let listener: UpdaterListener | null = null;
  let made: AutoUpdaterLike | null = null;
  const updater = (): AutoUpdaterLike => {
    if (made) return made;
    made = make();
    made.on('download-progress', (progress) => listener?.onProgress(progress.percent));
    return made;
  };
  return {
    configure: (config: UpdaterConfig) => {
      const autoUpdater = updater();
      autoUpdater.setFeedURL({ provider: 'generic', url: config.feedUrl });
      autoUpdater.autoDownload = config.autoDownload;
      autoUpdater.autoInstallOnAppQuit = config.autoInstallOnAppQuit;
      autoUpdater.allowDowngrade = false;
    },
    setListener: (next) => {
      listener = next;
    },
    check: async (): Promise<UpdateCheck> => {
      const result = await updater().checkForUpdates();
      // electron-updater answers null where it does not run: an app started from its source, not installed.
      if (!result) throw new Error('Only an installed (packaged) app can update itself.');
      const download = result.downloadPromise ? result.downloadPromise.then(() => undefined) : null;
      return { version: result.updateInfo.version, newer: result.isUpdateAvailable, download };
    },
    download: async () => {
      await updater().downloadUpdate();
    },
    // Not silent on Windows (the installer shows), and the app starts again after.
    install: () => updater().quitAndInstall(false, true),
  };
}
