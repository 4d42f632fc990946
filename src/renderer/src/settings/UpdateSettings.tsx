/*
 * The Updates section of Settings: updates on or off, the feed, when to look and whether to download at once, what the
 * organization's policy decides (shown, and not changeable here), and the updater's state with Check now.
 */

import { useEffect, useState } from 'react';
import type { UpdateSettings as UpdateChoices, UpdatesView } from '../../../shared/updates';
import { errorMessage } from '../client';
import { useAppState, type AppStore } from '../store';
import { updateStateText } from '../update-words';
import { SettingsSection, settingField } from './SettingsSection';

const intervalChoices: ReadonlyArray<{ hours: number; label: string }> = [
  { hours: 1, label: 'every hour' },
  { hours: 6, label: 'every 6 hours' },
  { hours: 24, label: 'every day' },
  { hours: 168, label: 'every week' },
];

const byPolicy = 'Set by your organization’s policy.';

/** The person's choices about updates, under the policy, and the updater's state. */
export function UpdateSettings({ store }: { store: AppStore }) {
  const view = useAppState(store, (state) => state.updates);
  const [feed, setFeed] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const field = settingField('updates');
  useEffect(() => {
    void store.attempt(async () => store.setUpdates(await store.call('updates:get', {})));
  }, [store]);
  const appliedFeed = view?.settings.feedUrl ?? '';
  useEffect(() => setFeed(appliedFeed), [appliedFeed]);
  if (!view) return null;
  const { settings, locked } = view;
  /** Runs a change; what is refused is said beside the fields, and nothing was changed. */
  const run = (work: () => Promise<UpdatesView>): void => {
    setProblem(null);
    void work().then(
      (next) => store.setUpdates(next),
      (error: unknown) => {
        setProblem(errorMessage(error));
        // What shows goes back to what applies (the feed's field keeps what was typed).
        void store.attempt(async () => store.setUpdates(await store.call('updates:get', {})));
      },
    );
  };
  /** A choice shows at once, and is then what main answers: the same, or what applies when it was refused. */
  const change = (choices: Partial<UpdateChoices>): void => {
    store.setUpdates({ ...view, settings: { ...settings, ...choices } });
    run(() => store.call('updates:set', choices));
  };
  const busy = view.state.kind === 'checking' || view.state.kind === 'downloading';
  return (
    <SettingsSection
      id="updates"
      description="Off unless you turn it on: the app then looks for updates only at the feed set here, and checks what it downloads before it installs it."
    >
      {view.policyProblem && (
        <p className="error small" role="alert">
          {view.policyProblem}
        </p>
      )}
      <label className="row small" {...field('Look for updates', 'updates on off')}>
        <input
          type="checkbox"
          checked={settings.enabled}
          disabled={locked.enabled}
          onChange={(event) => change({ enabled: event.target.checked })}
        />
        Look for updates
        {locked.enabled && <span className="muted">{byPolicy}</span>}
      </label>
      <form
        className="row small"
        {...field('Update feed', 'address url https latest.yml')}
        onSubmit={(event) => {
          event.preventDefault();
          // Kept as typed until main takes it: a refused address stays in the field to be corrected.
          const feedUrl = feed.trim() === '' ? null : feed.trim();
          run(() => store.call('updates:set', { feedUrl }));
        }}
      >
        <label className="row">
          Feed
          <input
            aria-label="Update feed"
            value={feed}
            readOnly={locked.feedUrl}
            placeholder="https://updates.example.com/agent-workbench/"
            maxLength={2_048}
            size={42}
            onChange={(event) => setFeed(event.target.value)}
          />
        </label>
        {locked.feedUrl ? (
          <span className="muted">{byPolicy}</span>
        ) : (
          <button type="submit" disabled={feed.trim() === (settings.feedUrl ?? '')}>
            Save feed
          </button>
        )}
      </form>
      <label className="row small" {...field('Check automatically', 'at start schedule interval')}>
        <input
          type="checkbox"
          checked={settings.checkAutomatically}
          onChange={(event) => change({ checkAutomatically: event.target.checked })}
        />
        Check at start, then
        <select
          aria-label="How often to check"
          value={String(settings.intervalHours)}
          disabled={!settings.checkAutomatically}
          onChange={(event) => change({ intervalHours: Number(event.target.value) })}
        >
          {intervalChoices.map((choice) => (
            <option key={choice.hours} value={String(choice.hours)}>
              {choice.label}
            </option>
          ))}
          {!intervalChoices.some((choice) => choice.hours === settings.intervalHours) && (
            <option value={String(settings.intervalHours)}>every {settings.intervalHours} hours</option>
          )}
        </select>
      </label>
      <label className="row small" {...field('When an update is found', 'download automatically ask')}>
        When an update is found
        <select
          aria-label="When an update is found"
          value={settings.download}
          onChange={(event) => change({ download: event.target.value === 'automatic' ? 'automatic' : 'ask' })}
        >
          <option value="ask">ask me before downloading</option>
          <option value="automatic">download it at once</option>
        </select>
      </label>
      {problem && (
        <p className="error small" role="alert">
          {problem}
        </p>
      )}
      <div className="row small" {...field('Update status', 'check now restart to update')}>
        <span role="status" aria-label="Update status" className={view.state.kind === 'error' ? 'error' : ''}>
          {updateStateText(view.state, view.currentVersion)}
        </span>
        <span className="spacer" />
        <button type="button" disabled={busy} onClick={() => run(() => store.call('updates:check', {}))}>
          Check now
        </button>
        {view.state.kind === 'available' && (
          <button type="button" onClick={() => run(() => store.call('updates:download', {}))}>
            Download
          </button>
        )}
        {view.state.kind === 'ready' && (
          <button type="button" className="primary" onClick={() => void store.attempt(() => store.call('updates:install', {}))}>
            Restart to update
          </button>
        )}
      </div>
      {view.lastCheckedAt !== null && <p className="muted small">Last checked {new Date(view.lastCheckedAt).toLocaleString()}.</p>}
    </SettingsSection>
  );
}
