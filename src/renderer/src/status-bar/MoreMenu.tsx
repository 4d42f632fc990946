/*
 * The "More" menu at the end of the status bar: what the bar folded away for lack of room.
 */

import type { ReactNode } from 'react';
import type { MorePlace } from './status-bar-fold';

/** "More" at the end of the status bar: what the bar folded away, in a list under the button. */
export function MoreMenu({
  folded,
  moreAt,
  onMoreAt,
}: {
  folded: readonly ReactNode[];
  moreAt: MorePlace | null;
  onMoreAt: (place: MorePlace | null) => void;
}) {
  if (folded.length === 0) return null;
  return (
    <div className="status-more">
      <button
        type="button"
        aria-label="More"
        aria-expanded={moreAt !== null}
        title="More"
        onClick={(event) => {
          const place = event.currentTarget.getBoundingClientRect();
          onMoreAt(moreAt ? null : { top: place.bottom + 6, right: window.innerWidth - place.right });
        }}
      >
        ⋯
      </button>
      {moreAt && (
        <div className="status-more-list" role="group" aria-label="More of the status bar" style={{ top: moreAt.top, right: moreAt.right }}>
          {folded}
        </div>
      )}
    </div>
  );
}
