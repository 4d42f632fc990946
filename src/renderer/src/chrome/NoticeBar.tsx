/*
 * The notice bar above the conversation: the app's last error, or what an action came to, until dismissed.
 */

import { useAppState, type AppStore } from '../store';

/** The app's last notice (an error, or what an action came to), above the conversation until dismissed. */
export function NoticeBar({ store }: { store: AppStore }) {
  const notice = useAppState(store, (state) => state.notice);
  if (!notice) return null;
  return (
    <div className={`notice notice-${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
      <span>{notice.text}</span>
      <button type="button" className="link" aria-label="Dismiss message" onClick={() => store.notify(null)}>
        ×
      </button>
    </div>
  );
}
