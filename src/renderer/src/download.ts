/*
 * Saves text as a file the window downloads: the exports of sessions, audits and profiles.
 */

import { toDisposable, type DisposableStore } from '../../shared/lifecycle';

/**
 * Saves an export (a session, an audit) as a file the browser (or the app window) downloads. The file's URL is
 * `owner`'s until it is revoked, a moment after the download has read it.
 */
export function download(owner: DisposableStore, fileName: string, text: string, type = 'application/json'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const revoke = owner.add(toDisposable(() => URL.revokeObjectURL(url)));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  owner.timeout(() => void owner.release(revoke), 1_000);
}
