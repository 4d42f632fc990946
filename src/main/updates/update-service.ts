/*
 * The update service: decides from the person's settings and the organization's policy whether and where to look for
 * updates, looks on its schedule and when asked, and tells the window the updater's state.
 *
 * An automatic check that cannot reach the feed (no network, no name, nobody listening, too slow) is only logged: the
 * app works offline and says nothing of it. A check the person asked for says plainly that the feed could not be reached.
 */

import { WorkbenchError } from '../../shared/errors';
import type { Disposable } from '../../shared/lifecycle';
import type { UpdateSettings, UpdateState, UpdatesView } from '../../shared/updates';
import type { Clock } from '../agent/ports/clock';
import type { SettingsStore } from '../agent/ports/settings';
import { applyPolicy, readUpdatePolicy, type PolicyReading } from './update-policy';
import { unreachableReason, type Updater } from './updater';

/** Runs a function after a delay; disposing it before then cancels it. */
export type Schedule = (run: () => void, delayMs: number) => Disposable;

/** A timer that does not keep the process alive by itself. */
export const realSchedule: Schedule = (run, delayMs) => {
  const timer = setTimeout(run, delayMs);
  timer.unref();
  return { dispose: () => clearTimeout(timer) };
};

export interface UpdateServiceOptions {
  readonly updater: Updater;
  readonly settings: SettingsStore;
  /** The organization's policy file (see `systemPolicyPath`); read again at every check and every look at Settings. */
  readonly policyPath: string;
  readonly readPolicy?: (path: string) => PolicyReading;
  readonly currentVersion: string;
  readonly clock: Clock;
  readonly schedule?: Schedule;
  /** How long after start the first automatic check waits, so that it does not compete with the app's start. */
  readonly startDelayMs?: number;
  /** Where quiet notes go (an automatic check that could not reach the feed, a policy that could not be read). */
  readonly log?: (message: string) => void;
  /** Told whenever what `view()` answers changed. */
  readonly onChanged?: (view: UpdatesView) => void;
}

const hour = 60 * 60 * 1000;

/** Looks for updates as the settings and the policy say, and keeps the state the window shows. */
export class UpdateService implements Disposable {
  private state: UpdateState = { kind: 'idle' };
  private asked = false;
  private lastCheckedAt: number | null = null;
  private reading: PolicyReading;
  private timer: Disposable | null = null;
  private checking: Promise<void> | null = null;
  private checkingAsked = false;
  private configured = '';
  private disposed = false;
  private reportedProblem: string | null = null;

  constructor(private readonly options: UpdateServiceOptions) {
    this.reading = this.readPolicy();
    options.updater.setListener({
      onProgress: (percent) => {
        if (this.state.kind !== 'downloading') return;
        this.setState({ ...this.state, percent: Math.max(0, Math.min(100, Math.round(percent))) });
      },
    });
  }

  /** Schedules the first automatic check, when the settings and the policy ask for one. */
  start(): void {
    this.reschedule(this.options.startDelayMs ?? 10_000);
  }

  /** What applies, what the policy locks, and the state. The policy is read again, so a changed file shows at once. */
  view(): UpdatesView {
    this.reading = this.readPolicy();
    this.reconfigure();
    return this.snapshot();
  }

  /** Changes the person's choices; a change to what the policy decides is refused and nothing is written. */
  set(change: Partial<UpdateSettings>): UpdatesView {
    this.reading = this.readPolicy();
    const { settings: applied, locked } = applyPolicy(this.person(), this.reading);
    const byPolicy = `set by your organization's update policy (${this.reading.path})`;
    if (locked.enabled && change.enabled !== undefined && change.enabled !== applied.enabled)
      throw new WorkbenchError(
        'invalid_state',
        `Updates are ${applied.enabled ? 'on' : 'off'}: ${byPolicy}, so this cannot be changed here.`,
      );
    if (locked.feedUrl && change.feedUrl !== undefined && change.feedUrl !== applied.feedUrl)
      throw new WorkbenchError('invalid_state', `The update feed is ${byPolicy}, so it cannot be changed here.`);
    const all = this.options.settings.get();
    this.options.settings.set({ ...all, updates: { ...all.updates, ...change } });
    if (!this.applied().enabled && this.state.kind !== 'ready' && this.state.kind !== 'downloading') this.state = { kind: 'idle' };
    this.reconfigure();
    this.reschedule(0);
    return this.changed();
  }

  /**
   * Looks for an update now. Asked by the person (`manual`), a feed that cannot be reached is an error the state says;
   * on the schedule it is only logged. Resolves when the check is over (a download it begins goes on).
   */
  async check(manual: boolean): Promise<UpdatesView> {
    this.reading = this.readPolicy();
    const settings = this.applied();
    if (!settings.enabled || settings.feedUrl === null) {
      if (!manual) return this.snapshot();
      const why = this.reading.problem ?? (settings.enabled ? 'Set the update feed first.' : 'Updates are off: turn them on first.');
      throw new WorkbenchError('invalid_state', why);
    }
    // A check under way answers another like it; one the person asks for during a quiet one follows it, to say its end.
    if (this.checking && (this.checkingAsked || !manual)) {
      await this.checking;
      return this.snapshot();
    }
    if (this.checking) await this.checking;
    // A download under way or done is not interrupted by another look.
    if (this.state.kind === 'downloading' || this.state.kind === 'ready') return this.snapshot();
    this.checkingAsked = manual;
    const checking = this.runCheck(settings, manual).finally(() => (this.checking = null));
    this.checking = checking;
    await checking;
    return this.snapshot();
  }

  /** Downloads the update the last check found. */
  async download(): Promise<UpdatesView> {
    if (this.state.kind !== 'available') throw new WorkbenchError('invalid_state', 'There is no update to download: check for one first.');
    this.follow(this.state.version, this.options.updater.download());
    return this.snapshot();
  }

  /** Quits, installs the downloaded update and starts the app again. */
  install(): { restarting: boolean } {
    if (this.state.kind !== 'ready') throw new WorkbenchError('invalid_state', 'No update has been downloaded yet.');
    this.options.updater.install();
    return { restarting: true };
  }

  dispose(): void {
    this.disposed = true;
    this.timer?.dispose();
    this.timer = null;
  }

  private async runCheck(settings: UpdateSettings, manual: boolean): Promise<void> {
    const before = this.state;
    const askedBefore = this.asked;
    this.asked = manual;
    this.configure(settings);
    this.setState({ kind: 'checking' });
    try {
      const found = await this.options.updater.check();
      this.lastCheckedAt = this.options.clock.now();
      if (!found.newer) this.setState({ kind: 'up_to_date', version: this.options.currentVersion });
      else if (found.download) this.follow(found.version, found.download);
      else this.setState({ kind: 'available', version: found.version });
    } catch (error) {
      const unreachable = unreachableReason(error);
      if (unreachable && !manual) {
        // Offline is normal for this app: noted where logs go, shown nowhere.
        this.log(`Update check skipped: the feed ${settings.feedUrl ?? ''} could not be reached (${unreachable}).`);
        this.asked = askedBefore;
        this.setState(before.kind === 'checking' ? { kind: 'idle' } : before);
        return;
      }
      const message = unreachable
        ? `Could not reach the update feed at ${settings.feedUrl ?? ''} (${unreachable}). Check the network connection, or the feed's address.`
        : `The update check failed: ${errorText(error)}`;
      this.setState({ kind: 'error', message: message.slice(0, 2_000) });
    }
  }

  /** Shows a download's progress, then its end: ready to install, or why it failed. */
  private follow(version: string, download: Promise<void>): void {
    this.setState({ kind: 'downloading', version, percent: 0 });
    download.then(
      () => this.setState({ kind: 'ready', version }),
      (error: unknown) => {
        const unreachable = unreachableReason(error);
        const why = unreachable ? `the feed could not be reached (${unreachable})` : errorText(error);
        this.setState({ kind: 'error', message: `The download of version ${version} failed: ${why}`.slice(0, 2_000) });
      },
    );
  }

  private configure(settings: UpdateSettings): void {
    const automatic = settings.enabled && settings.download === 'automatic';
    const config = { feedUrl: settings.feedUrl ?? '', autoDownload: automatic, autoInstallOnAppQuit: automatic };
    const key = JSON.stringify(config);
    if (key === this.configured) return;
    this.options.updater.configure(config);
    this.configured = key;
  }

  /**
   * Once the updater has a feed, a change of the person's choices or of the policy reaches it at once: an update already
   * downloaded is not installed at quit when updates were turned off or set to ask since (the feed stays as it was).
   */
  private reconfigure(): void {
    if (this.configured === '') return;
    const settings = this.applied();
    const { feedUrl } = JSON.parse(this.configured) as { feedUrl: string };
    this.configure({ ...settings, feedUrl: settings.enabled && settings.feedUrl !== null ? settings.feedUrl : feedUrl });
  }

  /** The next automatic check: `firstDelayMs` from now, then every `intervalHours`; none when off or not automatic. */
  private reschedule(firstDelayMs: number): void {
    this.timer?.dispose();
    this.timer = null;
    const settings = this.applied();
    if (this.disposed || !settings.enabled || !settings.checkAutomatically || settings.feedUrl === null) return;
    const schedule = this.options.schedule ?? realSchedule;
    const delay = Math.max(
      firstDelayMs,
      this.lastCheckedAt === null ? 0 : this.lastCheckedAt + settings.intervalHours * hour - this.options.clock.now(),
    );
    this.timer = schedule(() => {
      this.timer = null;
      void this.check(false).finally(() => this.reschedule(settings.intervalHours * hour));
    }, delay);
  }

  private person(): UpdateSettings {
    return this.options.settings.get().updates;
  }

  private applied(): UpdateSettings {
    return applyPolicy(this.person(), this.reading).settings;
  }

  private readPolicy(): PolicyReading {
    const reading = (this.options.readPolicy ?? readUpdatePolicy)(this.options.policyPath);
    if (reading.problem !== null && reading.problem !== this.reportedProblem) this.log(reading.problem);
    this.reportedProblem = reading.problem;
    return reading;
  }

  private snapshot(): UpdatesView {
    const { settings, locked } = applyPolicy(this.person(), this.reading);
    return {
      settings,
      locked,
      policyPath: this.reading.path,
      policyProblem: this.reading.problem,
      state: this.state,
      asked: this.asked,
      lastCheckedAt: this.lastCheckedAt,
      currentVersion: this.options.currentVersion,
    };
  }

  private setState(state: UpdateState): void {
    this.state = state;
    this.changed();
  }

  private changed(): UpdatesView {
    const view = this.snapshot();
    this.options.onChanged?.(view);
    return view;
  }

  private log(message: string): void {
    (this.options.log ?? ((line: string) => console.info(line)))(message);
  }
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
