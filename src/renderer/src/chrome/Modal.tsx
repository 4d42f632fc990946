/*
 * The frame of the app's dialogs: a titled box over the app, closed by its × button, by Esc, or by a click beside it.
 */

import type { ReactNode } from 'react';

/** A dialog over the app: closed by its × button, by Esc, or by a click beside it. */
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
  return (
    <div className="modal-backdrop" onClick={onClose}>
      <section
        className={className ? `modal ${className}` : 'modal'}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        onClick={(event) => event.stopPropagation()}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onClose();
        }}
      >
        <header className="modal-header">
          <h2>{title}</h2>
          <button type="button" aria-label={closeLabel} autoFocus onClick={onClose}>
            ×
          </button>
        </header>
        {children}
      </section>
    </div>
  );
}
