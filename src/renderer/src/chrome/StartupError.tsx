/*
 * Why the app could not start, in place of the window, with the backup of the database that opens offered to put back.
 */

import { useState } from 'react';
import { errorMessage } from '../client';

/** What putting the backup back answered. */
export interface BackupRestored {
  readonly setAsidePath: string;
  readonly relaunching: boolean;
}

type Restoring =
  | { readonly kind: 'offered' }
  | { readonly kind: 'working' }
  | { readonly kind: 'done'; readonly restored: BackupRestored }
  | { readonly kind: 'failed'; readonly message: string };

/** Why the app could not start, in place of the window; nothing was changed unless the person puts the backup back. */
export function StartupError({
  title,
  message,
  detail,
  backupPath,
  backupTakenAt,
  restoreBackup,
}: {
  title: string;
  message: string;
  detail?: string;
  /** A backup of the database that opens now, which `restoreBackup` puts back, and when it was taken. */
  backupPath?: string;
  backupTakenAt?: number;
  restoreBackup?: () => Promise<BackupRestored>;
}) {
  const [restoring, setRestoring] = useState<Restoring>({ kind: 'offered' });
  const restore = (): void => {
    if (!restoreBackup) return;
    setRestoring({ kind: 'working' });
    restoreBackup().then(
      (restored) => setRestoring({ kind: 'done', restored }),
      (failure: unknown) => setRestoring({ kind: 'failed', message: errorMessage(failure) }),
    );
  };
  const offered = backupPath !== undefined && restoreBackup !== undefined;
  return (
    <div className="startup-error" role="alert">
      <h1>{title}</h1>
      <p>{message}</p>
      {detail && <p className="muted">{detail}</p>}
      {restoring.kind === 'done' ? (
        <p role="status">
          The backup is back in place. The database that could not be opened was kept as {restoring.restored.setAsidePath}.{' '}
          {restoring.restored.relaunching ? 'The app starts again…' : 'Quit the app and start it again to open it.'}
        </p>
      ) : (
        <>
          {restoring.kind === 'failed' ? (
            <p className="error">{restoring.message}</p>
          ) : (
            <p className="muted">
              Nothing was changed or deleted.{' '}
              {offered
                ? 'Put the backup back, or quit the app to keep things as they are.'
                : 'Quit the app, then move the file aside or update the app.'}
            </p>
          )}
          {offered && (
            <div className="startup-error-actions">
              <button type="button" className="primary" onClick={restore} disabled={restoring.kind === 'working'}>
                Put the backup back
              </button>
              <span className="muted">{backupPath}</span>
              <p className="muted">
                What changed after {backupTakenAt === undefined ? 'the backup was taken' : new Date(backupTakenAt).toLocaleString()} stays
                only in the database file, which is kept beside it. If the database&apos;s key may come back (its keychain unlocked, or the
                system it was made on), quit instead: it then opens as it was.
              </p>
              {restoring.kind === 'working' && <p role="status">Putting the backup back…</p>}
            </div>
          )}
        </>
      )}
    </div>
  );
}
