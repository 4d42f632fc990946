/*
 * The window's top layer: popovers are shown there, over every panel and each other, placed by the control that opened
 * them and kept inside the window. Esc, a click elsewhere, or a dialog opening closes them (the browser's light
 * dismiss); the control that opened one closes it again.
 */

import { useRef, type RefObject } from 'react';
import { toDisposable } from '../../../shared/lifecycle';
import { observeResize, useLayoutDisposables } from '../disposables';

/** Space kept between a popover and the window's edges, and between it and its control. */
const margin = 8;
const gap = 6;

/** Where a popover goes for its control: under it (over it when there is no room below), by its start or end edge. */
export type PopoverAlign = 'start' | 'end';

/** A box placed for a control's box within the window: below when it fits, else above, else where it fits best. */
export function placeBeside(
  anchor: { readonly left: number; readonly right: number; readonly top: number; readonly bottom: number },
  size: { readonly width: number; readonly height: number },
  window: { readonly width: number; readonly height: number },
  align: PopoverAlign,
): { top: number; left: number; maxHeight: number } {
  const below = window.height - margin - (anchor.bottom + gap);
  const above = anchor.top - gap - margin;
  const maxHeight = Math.max(below, above, 0);
  const height = Math.min(size.height, maxHeight);
  const top = height <= below || below >= above ? anchor.bottom + gap : anchor.top - gap - height;
  const wanted = align === 'end' ? anchor.right - size.width : anchor.left;
  const left = Math.max(margin, Math.min(wanted, window.width - margin - size.width));
  return { top: Math.max(margin, top), left, maxHeight };
}

/** The element a popover is shown with (`showPopover({ source })` in current browsers): its control stays its toggle. */
interface PopoverOptions {
  readonly source?: HTMLElement;
}

/**
 * Shows the element given the returned ref as a popover while the component is mounted: on the top layer, placed by
 * `anchor` and kept in the window as it resizes. `onClose` runs when the browser closes it (Esc, a click elsewhere,
 * a dialog opening); the caller then stops rendering it. The element needs `popover="auto"`.
 */
export function usePopover<T extends HTMLElement>(
  anchor: RefObject<HTMLElement | null>,
  onClose: () => void,
  align: PopoverAlign = 'end',
): RefObject<T | null> {
  const element = useRef<T>(null);
  const close = useRef(onClose);
  close.current = onClose;
  useLayoutDisposables(
    (disposables) => {
      const popover = element.current;
      if (!popover) return;
      const place = (): void => {
        const control = anchor.current;
        if (!control || !popover.isConnected) return;
        // Placed by its whole height (what a limit would hide included), so placing it again changes nothing.
        const borders = popover.offsetHeight - popover.clientHeight;
        const spot = placeBeside(
          control.getBoundingClientRect(),
          { width: popover.offsetWidth, height: popover.scrollHeight + borders },
          { width: window.innerWidth, height: window.innerHeight },
          align,
        );
        popover.style.top = `${spot.top}px`;
        popover.style.left = `${spot.left}px`;
        popover.style.maxHeight = `${spot.maxHeight}px`;
      };
      const source = anchor.current ?? undefined;
      (popover.showPopover as (options?: PopoverOptions) => void)(source ? { source } : undefined);
      // Hidden when it goes; its own hiding is not reported back (the listener goes first: disposed last in, first out
      // or not, the toggle event comes later, as a task).
      disposables.add(
        toDisposable(() => {
          if (popover.matches(':popover-open')) popover.hidePopover();
        }),
      );
      disposables.listen(popover, 'toggle', (event: Event) => {
        if ((event as ToggleEvent).newState === 'closed') close.current();
      });
      place();
      disposables.listen(window, 'resize', place);
      // Its content may grow after it opens (a check's result, an error): keep it placed.
      disposables.add(observeResize(popover, place));
    },
    [anchor, align],
  );
  return element;
}

/** Whether a modal dialog is open: the window's own keys wait while one is. */
export function modalOpen(): boolean {
  return document.querySelector('dialog[open]:modal') !== null;
}
