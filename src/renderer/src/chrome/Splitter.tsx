/*
 * The handle between two panels: dragged, or moved with the arrow keys, to resize a side panel, and double-clicked to
 * fold it away.
 */

import { useRef } from 'react';

/**
 * A handle between two panels: drag it, or focus it and use the arrow keys, to resize the panel on
 * its `side`. Double-click collapses or opens that panel.
 */
export function Splitter({
  label,
  side,
  width,
  onResize,
  onToggle,
}: {
  label: string;
  side: 'left' | 'right';
  width: number;
  onResize: (width: number) => void;
  onToggle: () => void;
}) {
  const start = useRef<{ x: number; width: number } | null>(null);
  const sign = side === 'left' ? 1 : -1;
  return (
    <div
      className="splitter"
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={Math.round(width)}
      tabIndex={0}
      onPointerDown={(event) => {
        start.current = { x: event.clientX, width };
        event.currentTarget.setPointerCapture(event.pointerId);
      }}
      onPointerMove={(event) => {
        if (start.current) onResize(start.current.width + sign * (event.clientX - start.current.x));
      }}
      onPointerUp={() => {
        start.current = null;
      }}
      onDoubleClick={onToggle}
      onKeyDown={(event) => {
        if (event.key === 'ArrowLeft') onResize(width - sign * 16);
        else if (event.key === 'ArrowRight') onResize(width + sign * 16);
        else if (event.key === 'Enter') onToggle();
        else return;
        event.preventDefault();
      }}
    />
  );
}
