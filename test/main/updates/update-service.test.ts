import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SettingsStore } from '../../../src/main/agent/ports/settings';
import { UpdateService, type Schedule } from '../../../src/main/updates/update-service';
import { defaultSettings, settingsSchema, type Settings } from '../../../src/shared/domain';
import type { UpdateSettings, UpdateState, UpdatesView } from '../../../src/shared/updates';
import { FeedUpdater } from '../../host/feed-updater';
import { closedPort, temporaryFolder, waitFor } from '../../helpers';
import { startUpdateFeed, type UpdateFeedServer } from '../../update-feed-server';

/** Settings kept in memory, checked against their schema as the app's store does. */
function memorySettings(updates: Partial<UpdateSettings> = {}): SettingsStore {
  let current: Settings = settingsSchema.parse({ ...defaultSettings, updates: { ...defaultSettings.updates, ...updates } });
  return { get: () => current, set: (settings) => (current = settingsSchema.parse(settings)) };
}

/** Timers run by hand: what was scheduled, after how long, and whether it was cancelled. */
function manualSchedule(): { schedule: Schedule; timers: Array<{ run: () => void; delayMs: number; cancelled: boolean }> } {
  const timers: Array<{ run: () => void; delayMs: number; cancelled: boolean }> = [];
  return {
    timers,
    schedule: (run, delayMs) => {
      const timer = { run, delayMs, cancelled: false };
      timers.push(timer);
      return { dispose: () => void (timer.cancelled = true) };
    },
  };
}

const hour = 3_600_000;

describe('the update service', () => {
  const owned: Array<() => unknown> = [];
  afterEach(async () => {
    for (const release of owned.splice(0).reverse()) await release();
  });

  async function serviceWith(options: { updates?: Partial<UpdateSettings>; feed?: UpdateFeedServer; policy?: string; version?: string }) {
    const folder = temporaryFolder();
    owned.push(folder.remove);
    const policyPath = join(folder.path, 'policy.json');
    if (options.policy !== undefined) writeFileSync(policyPath, options.policy);
    const updater = new FeedUpdater(options.version ?? '0.1.0');
    const { schedule, timers } = manualSchedule();
    const states: UpdateState[] = [];
    const logged: string[] = [];
    const settings = memorySettings({ ...(options.feed ? { feedUrl: options.feed.url } : {}), ...options.updates });
    const service = new UpdateService({
      updater,
      settings,
      policyPath,
      currentVersion: options.version ?? '0.1.0',
      clock: { now: () => 1_000_000, sleep: async () => undefined },
      schedule,
      startDelayMs: 5_000,
      log: (line) => logged.push(line),
      onChanged: (view: UpdatesView) => states.push(view.state),
    });
    owned.push(() => service.dispose());
    return { service, updater, timers, states, logged, settings, policyPath };
  }

  async function feed(version: string, options: { served?: Buffer } = {}): Promise<UpdateFeedServer> {
    const server = await startUpdateFeed({ version, ...options });
    owned.push(() => server.close());
    return server;
  }

  it('is off by default: nothing is scheduled, and a check asked for says so and asks no server', async () => {
    const server = await feed('0.2.0');
    const { service, timers } = await serviceWith({ feed: server, updates: { enabled: false } });
    service.start();
    expect(timers).toEqual([]);
    expect(service.view().settings.enabled).toBe(false);
    await expect(service.check(true)).rejects.toThrow('Updates are off: turn them on first.');
    expect(server.requests).toEqual([]);
  });

  it('looks at start on its schedule, reads latest-linux.yml from the feed, and offers the newer version', async () => {
    const server = await feed('0.2.0');
    const { service, timers, states } = await serviceWith({ feed: server, updates: { enabled: true, intervalHours: 6 } });
    service.start();
    expect(timers.map((timer) => timer.delayMs)).toEqual([5_000]);
    timers[0]?.run();
    await waitFor(() => states.at(-1)?.kind === 'available', 5_000, 'the update to be offered');
    expect(server.requests).toEqual(['/feed/latest-linux.yml']);
    expect(states.map((state) => state.kind)).toEqual(['checking', 'available']);
    expect(service.view().state).toEqual({ kind: 'available', version: '0.2.0' });
    // Then every six hours.
    await waitFor(() => timers.length === 2, 1_000, 'the next check to be scheduled');
    expect(timers[1]?.delayMs).toBe(6 * hour);
  });

  it('downloads on its own when told to, checks the sha512 from the feed, and is then ready to install', async () => {
    const payload = Buffer.alloc(300_000, 3);
    const server = await startUpdateFeed({ version: '0.3.0', payload });
    owned.push(() => server.close());
    const { service, updater, states } = await serviceWith({ feed: server, updates: { enabled: true, download: 'automatic' } });
    await service.check(true);
    await waitFor(() => states.at(-1)?.kind === 'ready', 5_000, 'the download');
    expect(updater.downloaded?.equals(payload)).toBe(true);
    // The download's progress as electron-updater's executor counts it, to the whole file, before it is ready.
    const percents = states.flatMap((state) => (state.kind === 'downloading' ? [state.percent] : []));
    expect(percents[0]).toBe(0);
    expect(percents.at(-1)).toBe(100);
    expect(service.view().state).toEqual({ kind: 'ready', version: '0.3.0' });
    expect(service.install()).toEqual({ restarting: true });
    expect(updater.installs).toBe(1);
  });

  it('does not install a downloaded update at quit once updates are turned off, or set to ask, or off by policy', async () => {
    const server = await startUpdateFeed({ version: '0.3.0', payload: Buffer.alloc(4_096, 5) });
    owned.push(() => server.close());
    const { service, updater, states, policyPath } = await serviceWith({ feed: server, updates: { enabled: true, download: 'automatic' } });
    await service.check(true);
    await waitFor(() => states.at(-1)?.kind === 'ready', 5_000, 'the download');
    expect(updater.configured).toMatchObject({ feedUrl: server.url, autoInstallOnAppQuit: true });
    service.set({ enabled: false });
    expect(updater.configured).toMatchObject({ feedUrl: server.url, autoInstallOnAppQuit: false, autoDownload: false });
    service.set({ enabled: true });
    expect(updater.configured?.autoInstallOnAppQuit).toBe(true);
    service.set({ download: 'ask' });
    expect(updater.configured?.autoInstallOnAppQuit).toBe(false);
    service.set({ download: 'automatic' });
    writeFileSync(policyPath, JSON.stringify({ version: 1, updates: { enabled: false } }));
    expect(service.view().settings.enabled).toBe(false);
    expect(updater.configured?.autoInstallOnAppQuit).toBe(false);
  });

  it('waits to be asked before it downloads, when the person chose to be asked', async () => {
    const server = await feed('0.2.0');
    const { service, states } = await serviceWith({ feed: server, updates: { enabled: true, download: 'ask' } });
    await service.check(true);
    expect(server.requests).toEqual(['/feed/latest-linux.yml']);
    await service.download();
    await waitFor(() => states.at(-1)?.kind === 'ready', 5_000, 'the download');
    expect(server.requests).toEqual(['/feed/latest-linux.yml', '/feed/Agent-Workbench-0.2.0.AppImage']);
  });

  it('refuses a download whose bytes are not those the feed’s sha512 names', async () => {
    const server = await feed('0.2.0', { served: Buffer.alloc(256 * 1024, 8) });
    const { service, updater, states } = await serviceWith({ feed: server, updates: { enabled: true, download: 'automatic' } });
    await service.check(true);
    await waitFor(() => states.at(-1)?.kind === 'error', 5_000, 'the download to fail');
    expect(service.view().state).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/download of version 0\.2\.0 failed: sha512 checksum mismatch/),
    });
    expect(() => service.install()).toThrow('No update has been downloaded yet.');
    expect(updater.installs).toBe(0);
  });

  it('says it is up to date when the feed offers the running version', async () => {
    const server = await feed('0.1.0');
    const { service } = await serviceWith({ feed: server, updates: { enabled: true } });
    expect((await service.check(true)).state).toEqual({ kind: 'up_to_date', version: '0.1.0' });
    expect(service.view().lastCheckedAt).toBe(1_000_000);
  });

  it('keeps quiet when an automatic check cannot reach the feed: logged, never shown as an error', async () => {
    const port = await closedPort();
    const { service, timers, states, logged } = await serviceWith({
      updates: { enabled: true, feedUrl: `http://127.0.0.1:${port}/feed/` },
    });
    service.start();
    timers[0]?.run();
    await waitFor(() => logged.length > 0, 9_000, 'the quiet note');
    expect(logged[0]).toMatch(/Update check skipped: the feed http:\/\/127\.0\.0\.1:\d+\/feed\/ could not be reached \(ECONNREFUSED\)/);
    expect(states.some((state) => state.kind === 'error')).toBe(false);
    expect(service.view().state).toEqual({ kind: 'idle' });
  }, 15_000);

  it('says plainly that the feed could not be reached when the person asked', async () => {
    const port = await closedPort();
    const { service } = await serviceWith({ updates: { enabled: true, feedUrl: `http://127.0.0.1:${port}/feed/` } });
    const view = await service.check(true);
    expect(view.state).toEqual({
      kind: 'error',
      message: `Could not reach the update feed at http://127.0.0.1:${port}/feed/ (ECONNREFUSED). Check the network connection, or the feed's address.`,
    });
  }, 15_000);

  it('refuses to change what the policy decides, and changes nothing', async () => {
    const server = await feed('0.2.0');
    const policy = JSON.stringify({ version: 1, updates: { enabled: true, feedUrl: server.url } });
    const { service, settings, policyPath } = await serviceWith({ policy, updates: { enabled: false, feedUrl: null } });
    const before = JSON.stringify(settings.get());
    expect(() => service.set({ feedUrl: 'https://elsewhere.example.com/' })).toThrow(
      `The update feed is set by your organization's update policy (${policyPath}), so it cannot be changed here.`,
    );
    expect(() => service.set({ enabled: false })).toThrow(/Updates are on: set by your organization's update policy/);
    expect(JSON.stringify(settings.get())).toBe(before);
    expect(service.view()).toMatchObject({ settings: { enabled: true, feedUrl: server.url }, locked: { enabled: true, feedUrl: true } });
    // What the policy leaves to the person stays theirs.
    expect(service.set({ download: 'automatic' }).settings.download).toBe('automatic');
    expect((await service.check(true)).state.kind).toMatch(/downloading|ready/);
  });

  it('turns updates off on a malformed policy, says why, and logs it once', async () => {
    const server = await feed('0.2.0');
    const { service, logged, timers } = await serviceWith({
      feed: server,
      policy: '{"updates": {"enabled": "yes"}}',
      updates: { enabled: true },
    });
    service.start();
    expect(timers).toEqual([]);
    const view = service.view();
    expect(view.settings.enabled).toBe(false);
    expect(view.locked.enabled).toBe(true);
    expect(view.policyProblem).toMatch(/is not valid \(updates\.enabled: .*\): updates are off\./);
    await expect(service.check(true)).rejects.toThrow(view.policyProblem ?? 'never');
    expect(server.requests).toEqual([]);
    expect(logged).toHaveLength(1);
  });

  it('schedules again when the person turns automatic checks off or on', async () => {
    const server = await feed('0.2.0');
    const { service, timers } = await serviceWith({ feed: server, updates: { enabled: true } });
    service.start();
    expect(timers).toHaveLength(1);
    service.set({ checkAutomatically: false });
    expect(timers[0]?.cancelled).toBe(true);
    expect(timers).toHaveLength(1);
    service.set({ checkAutomatically: true });
    expect(timers).toHaveLength(2);
  });
});

describe('the update settings', () => {
  it('load from a settings file written before they existed, off', () => {
    const { updates: _none, ...older } = defaultSettings;
    expect(settingsSchema.parse(older).updates).toEqual({
      enabled: false,
      feedUrl: null,
      checkAutomatically: true,
      intervalHours: 24,
      download: 'ask',
    });
  });

  it.each([
    ['http://updates.example.org/', 'it must start with https:// (http:// only for 127.0.0.1 or localhost)'],
    ['file:///etc/passwd', 'it must start with https://'],
    ['updates.example.org', 'it is not an address (it must start with https://)'],
  ])('refuse a feed at %s', (feedUrl, message) => {
    const result = settingsSchema.safeParse({ ...defaultSettings, updates: { ...defaultSettings.updates, feedUrl } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(message);
  });

  it.each(['https://updates.example.org/workbench/', 'http://127.0.0.1:8080/feed/', 'http://localhost/feed/'])(
    'take a feed at %s',
    (feedUrl) => {
      expect(settingsSchema.safeParse({ ...defaultSettings, updates: { ...defaultSettings.updates, feedUrl } }).success).toBe(true);
    },
  );
});
