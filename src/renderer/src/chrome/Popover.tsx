/*
 * A popover box on the window's top layer, beside the control that opened it (see top-layer.ts).
 */

import type { ReactNode, RefObject } from 'react';
import { usePopover, type PopoverAlign } from './top-layer';

/** A box over everything, placed by `anchor`; Esc or a click elsewhere runs `onClose`. */
export function Popover({
  anchor,
  onClose,
  align = 'end',
  className,
  role,
  label,
  children,
}: {
  anchor: RefObject<HTMLElement | null>;
  onClose: () => void;
  align?: PopoverAlign;
  className: string;
  role?: 'dialog' | 'group';
  label: string;
  children: ReactNode;
}) {
  const popover = usePopover<HTMLDivElement>(anchor, onClose, align);
  return (
    <div ref={popover} popover="auto" className={`${className} top-popover`} role={role} aria-label={label}>
      {children}
    </div>
  );
}
