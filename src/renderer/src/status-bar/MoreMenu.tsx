/*
 * The "More" menu at the end of the status bar: what the bar folded away, on the top layer under its button.
 */

import { useRef, type ReactNode } from 'react';
import { Popover } from '../chrome/Popover';

/** "More" at the end of the status bar: what the bar folded away, in a list under the button. */
export function MoreMenu({ folded, open, onOpen }: { folded: readonly ReactNode[]; open: boolean; onOpen: (open: boolean) => void }) {
  const button = useRef<HTMLButtonElement>(null);
  if (folded.length === 0) return null;
  return (
    <div className="status-more">
      <button ref={button} type="button" aria-label="More" aria-expanded={open} title="More" onClick={() => onOpen(!open)}>
        ⋯
      </button>
      {open && (
        <Popover anchor={button} onClose={() => onOpen(false)} className="status-more-list" role="group" label="More of the status bar">
          {folded}
        </Popover>
      )}
    </div>
  );
}
