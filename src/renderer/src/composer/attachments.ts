/*
 * The files that go with a message: `@` references to workspace files, and files dropped on the message box, chosen
 * with its attach button or pasted into it, read and waiting as chips.
 */

import { useRef, useState, type ClipboardEvent, type DragEvent } from 'react';
import type { AttachmentRequest } from '../../../shared/attachments';
import { readDroppedFile, workspacePathDragType } from './dropped-files';
import { insertReference, readReferences } from './file-references';
import type { PendingDrop } from './PendingAttachments';

/** The files dropped on the message box, and the handlers that take them. */
export interface AttachmentDrops {
  readonly drops: readonly PendingDrop[];
  /** Something that can be attached is being dragged over the box. */
  readonly dragOver: boolean;
  readonly remove: (id: number) => void;
  readonly clear: () => void;
  /** Attaches files from the desktop, as a drop does: the files chosen with the attach button. */
  readonly addFiles: (files: readonly File[]) => void;
  /** The box's paste handler: files on the clipboard (a screenshot) are attached; text is pasted as usual. */
  readonly onPaste: (event: ClipboardEvent) => void;
  /** The drag and drop handlers of the box's form. */
  readonly dropTarget: {
    readonly onDragOver: (event: DragEvent) => void;
    readonly onDragLeave: () => void;
    readonly onDrop: (event: DragEvent) => void;
  };
}

/** What the box the files are dropped on offers the drop: its text and caret, a way to edit them, and where problems go. */
export interface DropBox {
  readonly text: string;
  readonly caret: number;
  readonly edit: (next: string, at: number) => void;
  readonly focus: () => void;
  readonly onProblem: (problem: string) => void;
}

const accepts = (event: DragEvent): boolean =>
  event.dataTransfer.types.includes(workspacePathDragType) || event.dataTransfer.types.includes('Files');

/**
 * Dropping on the message box: a row of the file tree goes in as an `@path` at the caret; a file from the desktop
 * (dropped, chosen with the attach button, or pasted, such as a screenshot) is read and waits, as a chip, to go with
 * the next message. A file that cannot be attached is said as the box's problem.
 */
export function useAttachmentDrops(box: DropBox): AttachmentDrops {
  const [drops, setDrops] = useState<readonly PendingDrop[]>([]);
  const [dragOver, setDragOver] = useState(false);
  const nextDrop = useRef(0);

  /** Reads files from the desktop (dropped, chosen or pasted) into chips; one that cannot be attached is said. */
  const addFiles = async (files: readonly File[]): Promise<void> => {
    for (const file of files) {
      let read: Awaited<ReturnType<typeof readDroppedFile>>;
      try {
        read = await readDroppedFile(file);
      } catch {
        read = { ok: false, problem: `${file.name} could not be read; a folder cannot be attached, only files.` };
      }
      if (!read.ok) {
        box.onProblem(read.problem);
        continue;
      }
      const { name, request, size } = read;
      setDrops((current) => [...current, { id: (nextDrop.current += 1), name, size, request }]);
    }
    box.focus();
  };

  const onDrop = async (event: DragEvent): Promise<void> => {
    // Dropped on the message box, a file is attached: the window's folder drop zone must not take it for a workspace.
    event.preventDefault();
    event.stopPropagation();
    setDragOver(false);
    const path = event.dataTransfer.getData(workspacePathDragType);
    if (path) {
      const inserted = insertReference(box.text, box.caret, path);
      box.edit(inserted.text, inserted.caret);
      box.focus();
      return;
    }
    await addFiles(Array.from(event.dataTransfer.files));
  };

  const onPaste = (event: ClipboardEvent): void => {
    // Text on the clipboard is pasted as text, even beside an image (office apps put a picture of the copied text there).
    const files = Array.from(event.clipboardData.files);
    if (files.length === 0 || event.clipboardData.types.includes('text/plain')) return;
    event.preventDefault();
    void addFiles(files);
  };

  return {
    drops,
    dragOver,
    remove: (id) => setDrops((current) => current.filter((drop) => drop.id !== id)),
    clear: () => setDrops([]),
    addFiles: (files) => void addFiles(files),
    onPaste,
    dropTarget: {
      onDragOver: (event) => {
        if (!accepts(event)) return;
        event.preventDefault();
        event.stopPropagation();
        event.dataTransfer.dropEffect = 'copy';
        setDragOver(true);
      },
      onDragLeave: () => setDragOver(false),
      onDrop: (event) => void onDrop(event),
    },
  };
}

/**
 * What a message goes with: the workspace files its `@` references point at, then the files dropped on the box; or the
 * problem with a reference, in which case nothing is sent.
 */
export function attachmentsFor(message: string, drops: readonly PendingDrop[]): { attachments: AttachmentRequest[] } | { problem: string } {
  const pointed = readReferences(message);
  if (pointed.problem !== null) return { problem: pointed.problem };
  return {
    attachments: [
      ...pointed.references.map((reference) => ({
        kind: 'workspace' as const,
        path: reference.path,
        ...(reference.range ? { range: reference.range } : {}),
      })),
      ...drops.map((drop) => drop.request),
    ],
  };
}
