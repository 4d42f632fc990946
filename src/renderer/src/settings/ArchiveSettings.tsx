/*
 * The Archived sessions section of Settings: deleted sessions with Restore and Delete now, and how long they are kept
 * before they are purged.
 */

import { counted } from '../../../shared/counts';
import { useEffect, useState } from 'react';
import type { ArchiveEntry } from '../../../shared/ipc/archive-channels';
import { archiveRetentionSchema, type ArchiveRetention } from '../../../shared/retention';
import { useAppState, type AppStore } from '../store';
import { SettingsSection, settingField } from './SettingsSection';

const retentionChoices: ReadonlyArray<{ value: string; label: string }> = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '1 year' },
  { value: 'never', label: 'Never (until deleted by hand)' },
];

const day = (time: number): string => new Date(time).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

/** Deleted sessions, kept until they are purged: each with Restore and Delete now; and how long they are kept. */
export function ArchiveSettings({ store }: { store: AppStore }) {
  const settings = useAppState(store, (state) => state.settings);
  const sessionCount = useAppState(store, (state) => state.sessions.length);
  const [entries, setEntries] = useState<ArchiveEntry[]>([]);
  /** A shorter retention that would purge sessions at once: it waits for the person to confirm. */
  const [pending, setPending] = useState<{ days: Exclude<ArchiveRetention, null>; due: number } | null>(null);
  const field = settingField('archive');
  const refresh = (): void => void store.attempt(async () => setEntries(await store.call('archive:list', {})));
  // Looked at again whenever the list of sessions changes: one deleted meanwhile appears here at once.
  useEffect(refresh, [store, sessionCount]);
  if (!settings) return null;
  const save = (archiveRetentionDays: ArchiveRetention): void => {
    setPending(null);
    void store.attempt(async () => {
      store.setSettings(await store.call('settings:update', { archiveRetentionDays }));
      refresh();
    });
  };
  const setRetention = (value: string): void => {
    const parsed = archiveRetentionSchema.safeParse(value === 'never' ? null : Number(value));
    if (!parsed.success) return;
    const days = parsed.data;
    // A purge cannot be undone: one the new period makes due now is said, and done only once confirmed.
    const due = days === null ? 0 : entries.filter((entry) => entry.archivedAt + days * 86_400_000 <= Date.now()).length;
    if (days !== null && due > 0) setPending({ days, due });
    else save(days);
  };
  return (
    <SettingsSection id="archive">
      <label className="row small" {...field('Keep deleted sessions for', 'days before archived sessions are purged; retention')}>
        Keep deleted sessions for
        <select
          aria-label="Keep deleted sessions for"
          value={settings.archiveRetentionDays === null ? 'never' : String(settings.archiveRetentionDays)}
          onChange={(event) => setRetention(event.target.value)}
        >
          {retentionChoices.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      </label>
      {pending && (
        <div role="alertdialog" aria-label="Purge now?" className="card small">
          <p>
            {pending.due === 1 ? '1 archived session is' : `${pending.due} archived sessions are`} older than {counted(pending.days, 'day')}{' '}
            and will be deleted for good now.
          </p>
          <div className="row">
            <button type="button" className="danger" onClick={() => save(pending.days)}>
              Delete and keep {counted(pending.days, 'day')}
            </button>
            <button type="button" onClick={() => setPending(null)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <p className="muted small" {...field('Archived sessions', 'restored with its whole conversation until it is purged')}>
        A deleted session is archived: it can be restored with its whole conversation until it is purged. Purging removes it for good, with
        the saved file contents no other session needs.
      </p>
      {entries.length === 0 && <p className="muted small">No archived sessions.</p>}
      <ul className="providers" aria-label="Archived sessions">
        {entries.map((entry) => (
          <li
            key={entry.session.id}
            className="card row"
            aria-label={entry.session.title}
            {...field(entry.session.title, `${entry.session.workspacePath ?? 'no workspace'} archived session`)}
          >
            <strong>{entry.session.title}</strong>
            <code className="small" title={entry.session.workspacePath ?? ''}>
              {entry.session.workspacePath ?? 'no workspace'}
            </code>
            <span className="muted small">
              archived {day(entry.archivedAt)} · {entry.purgeAt === null ? 'kept until deleted' : `purged ${day(entry.purgeAt)}`}
            </span>
            <span className="spacer" />
            <button
              type="button"
              aria-label={`Restore ${entry.session.title}`}
              onClick={() =>
                void store.attempt(async () => {
                  const session = await store.call('archive:restore', { sessionId: entry.session.id });
                  store.upsertSession(session);
                  refresh();
                })
              }
            >
              Restore
            </button>
            <button
              type="button"
              className="danger"
              aria-label={`Delete ${entry.session.title} now`}
              onClick={() => {
                if (
                  !window.confirm(`Delete “${entry.session.title}” for good? Its conversation and history cannot be restored after this.`)
                )
                  return;
                void store.attempt(async () => {
                  await store.call('archive:delete', { sessionId: entry.session.id });
                  refresh();
                });
              }}
            >
              Delete now
            </button>
          </li>
        ))}
      </ul>
    </SettingsSection>
  );
}
