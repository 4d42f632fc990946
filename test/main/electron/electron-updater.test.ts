import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { electronUpdater, type AutoUpdaterLike } from '../../../src/main/electron/electron-updater';

/** electron-updater's `autoUpdater` as far as the adapter sees it, recording what is done to it. */
class RecordingAutoUpdater extends EventEmitter implements AutoUpdaterLike {
  autoDownload = true;
  autoInstallOnAppQuit = true;
  allowDowngrade = true;
  feeds: Array<{ provider: 'generic'; url: string }> = [];
  answer: Awaited<ReturnType<AutoUpdaterLike['checkForUpdates']>> = null;
  installs: Array<[boolean | undefined, boolean | undefined]> = [];
  downloads = 0;

  /** The Windows signature check: replacing it would turn off publisher verification. */
  set verifyUpdateCodeSignature(_value: unknown) {
    throw new Error('the signature check was replaced');
  }

  setFeedURL(options: { provider: 'generic'; url: string }): void {
    this.feeds.push(options);
  }
  checkForUpdates(): ReturnType<AutoUpdaterLike['checkForUpdates']> {
    return Promise.resolve(this.answer);
  }
  downloadUpdate(): Promise<unknown> {
    this.downloads++;
    return Promise.resolve(['/tmp/update.AppImage']);
  }
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void {
    this.installs.push([isSilent, isForceRunAfter]);
  }
}

describe('the updater on electron-updater', () => {
  it('sets nothing up until it is first used', () => {
    let made = 0;
    electronUpdater(() => {
      made++;
      return new RecordingAutoUpdater();
    });
    expect(made).toBe(0);
  });

  it('points electron-updater at a generic feed, downloads and installs on quit as told, and never allows a downgrade', () => {
    const auto = new RecordingAutoUpdater();
    const updater = electronUpdater(() => auto);
    updater.configure({ feedUrl: 'https://updates.example.org/workbench/', autoDownload: false, autoInstallOnAppQuit: false });
    expect(auto.feeds).toEqual([{ provider: 'generic', url: 'https://updates.example.org/workbench/' }]);
    expect(auto).toMatchObject({ autoDownload: false, autoInstallOnAppQuit: false, allowDowngrade: false });
    updater.configure({ feedUrl: 'https://updates.example.org/workbench/', autoDownload: true, autoInstallOnAppQuit: true });
    expect(auto).toMatchObject({ autoDownload: true, autoInstallOnAppQuit: true, allowDowngrade: false });
  });

  it('hands on what a check found, the download electron-updater began with it, and its progress', async () => {
    const auto = new RecordingAutoUpdater();
    const updater = electronUpdater(() => auto);
    const percents: number[] = [];
    updater.setListener({ onProgress: (percent) => percents.push(percent) });
    updater.configure({ feedUrl: 'https://updates.example.org/', autoDownload: true, autoInstallOnAppQuit: true });
    auto.answer = { isUpdateAvailable: true, updateInfo: { version: '0.2.0' }, downloadPromise: Promise.resolve(['/tmp/a']) };
    const found = await updater.check();
    expect(found).toMatchObject({ version: '0.2.0', newer: true });
    await expect(found.download).resolves.toBeUndefined();
    auto.emit('download-progress', { percent: 41.5 });
    expect(percents).toEqual([41.5]);
    auto.answer = { isUpdateAvailable: false, updateInfo: { version: '0.1.0' }, downloadPromise: null };
    expect(await updater.check()).toEqual({ version: '0.1.0', newer: false, download: null });
  });

  it('says that only an installed app updates itself where electron-updater does not run', async () => {
    const updater = electronUpdater(() => new RecordingAutoUpdater());
    await expect(updater.check()).rejects.toThrow('Only an installed (packaged) app can update itself.');
  });

  it('downloads when asked, and installs by quitting and starting again, the installer shown', async () => {
    const auto = new RecordingAutoUpdater();
    const updater = electronUpdater(() => auto);
    await updater.download();
    updater.install();
    expect(auto.downloads).toBe(1);
    expect(auto.installs).toEqual([[false, true]]);
  });
});
