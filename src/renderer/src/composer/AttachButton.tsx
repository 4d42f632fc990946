/*
 * The message box's attach button: a paperclip that opens the system's file chooser, the files chosen attached as
 * dropped ones are.
 */

import { useRef } from 'react';

/** A paperclip button opening the system's file chooser (several files at once); `onFiles` gets those chosen. */
export function AttachButton({ onFiles }: { onFiles: (files: readonly File[]) => void }) {
  const chooser = useRef<HTMLInputElement>(null);
  return (
    <>
      <button
        type="button"
        className="icon attach-button"
        aria-label="Attach files"
        title="Attach files"
        onClick={() => chooser.current?.click()}
      >
        <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
          <path
            d="M21.4 11.1 12.2 20.3a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
            strokeLinecap="round"
            strokeLinejoin="round"
          />
        </svg>
      </button>
      <input
        ref={chooser}
        type="file"
        multiple
        hidden
        tabIndex={-1}
        onChange={(event) => {
          const files = Array.from(event.currentTarget.files ?? []);
          // Emptied, so choosing the same file again is a change too.
          event.currentTarget.value = '';
          if (files.length > 0) onFiles(files);
        }}
      />
    </>
  );
}
