/*
 * The frame of the app's dialogs: a titled box on the window's top layer, over everything, with the rest of the window
 * out of reach until it closes (by its × button, by Esc wherever the focus is, or by a click beside it).
 */

import { useRef, type ReactNode } from 'react';
import { useLayoutDisposables } from '../disposables';
import { toDisposable } from '../../../shared/lifecycle';

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
  useLayoutDisposables((disposables) => {
    const element = dialog.current;
    if (!element) return;
    // The browser closes it on Esc (and may insist, after a refused Esc): the app follows, whichever way it closed.
    // Disposed first on unmount, so the app's own close is not reported back to it.
    if (!element.open) element.showModal();
    disposables.add(
      toDisposable(() => {
        if (element.open) element.close();
      }),
    );
    // A close that comes while the dialog is open again (a close queued by an earlier mount) is not this one's.
    disposables.listen(element, 'close', () => {
      if (!element.open) close.current();
    });
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
