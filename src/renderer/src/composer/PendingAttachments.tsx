/*
 * The chips of what the next message will attach: its `@` references and the files from the desktop (dropped on the
 * box, chosen with its attach button or pasted), each removable.
 */

import { rangeText, sizeText, type AttachmentRequest } from '../../../shared/attachments';
import type { FileReference } from './file-references';

/** A file from the desktop (dropped, chosen or pasted), read and waiting to go with the next message. */
export interface PendingDrop {
  readonly id: number;
  readonly name: string;
  readonly size: number;
  readonly request: AttachmentRequest;
}

/** What the next message will attach: the `@` references in its text, and the dropped files (each removable). */
export function PendingAttachments({
  references,
  drops,
  onRemove,
}: {
  references: readonly FileReference[];
  drops: readonly PendingDrop[];
  onRemove: (id: number) => void;
}) {
  if (references.length === 0 && drops.length === 0) return null;
  return (
    <div className="attachment-chips pending" aria-label="Files to attach">
      {references.map((reference) => (
        <span key={reference.written} className="attachment-chip" title="Read from the workspace when the message is sent">
          {reference.path}
          {reference.range ? `#${rangeText(reference.range)}` : ''}
        </span>
      ))}
      {drops.map((drop) => (
        <span key={drop.id} className="attachment-chip" title="From your computer: dropped, chosen or pasted">
          {drop.name} · {drop.request.kind === 'dropped_image' ? 'image, ' : ''}
          {sizeText(drop.size)}
          <button type="button" className="icon" aria-label={`Remove ${drop.name}`} onClick={() => onRemove(drop.id)}>
            ×
          </button>
        </span>
      ))}
    </div>
  );
}
