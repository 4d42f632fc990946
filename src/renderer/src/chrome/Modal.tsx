/*
 * The frame of the app's dialogs: a titled box on the window's top layer, over everything, with the rest of the window
 * out of reach until it closes (by its × button, by Esc wherever the focus is, or by a click beside it).
 */

import { useLayoutEffect, useRef, type ReactNode } from 'react';

/** A modal dialog over the app: keys and focus stay inside it; closed by its × button, by Esc, or by a click beside it. */
export function Modal({
  title,
  closeLabel,
  className,
  onClose,
  children,
}: {
  title: string;
  closeLabel: string;
  className?: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const close = useRef(onClose);
  close.current = onClose;
  useLayoutEffect(() => {
    const element = dialog.current;
    if (!element) return;
    // The browser closes it on Esc (and may insist, after a refused Esc): the app follows, whichever way it closed.
    const closed = (): void => close.current();
    element.addEventListener('close', closed);
    if (!element.open) element.showModal();
    return () => {
      element.removeEventListener('close', closed);
      if (element.open) element.close();
    };
  }, []);
  return (
    <dialog
      ref={dialog}
      className={className ? `modal ${className}` : 'modal'}
      aria-label={title}
      // A click on the backdrop lands on the dialog itself; its content fills it.
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
    >
      <div className="modal-content">
        <header className="modal-header">
          <h2>{title}</h2>
          <button type="button" aria-label={closeLabel} autoFocus onClick={onClose}>
            ×
          </button>
        </header>
        {children}
      </div>
    </dialog>
  );
}
