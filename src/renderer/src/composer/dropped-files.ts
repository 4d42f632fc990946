/*
 * Reads a file from the desktop (dropped, chosen or pasted) as text or an image to attach, or says why it cannot be
 * attached.
 *
 * The renderer is sandboxed and cannot hand main a path, so the content itself is sent, and main checks it again.
 */

import {
  attachmentImageLimitBytes,
  attachmentTextLimitBytes,
  imageMediaTypeSchema,
  imageTypeOf,
  sizeText,
  type AttachmentRequest,
} from '../../../shared/attachments';

/** The drag type a file tree row carries: its workspace path. */
export const workspacePathDragType = 'application/x-workbench-path';

/** A file dropped from the desktop, read, or why it cannot be attached. */
export type DroppedFile =
  | { readonly ok: true; readonly name: string; readonly request: AttachmentRequest; readonly size: number }
  | { readonly ok: false; readonly problem: string };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function base64(bytes: Uint8Array): string {
  let binary = '';
  // In slices: spreading a whole megabyte into one call would pass the engine's argument limit.
  for (let offset = 0; offset < bytes.length; offset += 0x8000) binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  return btoa(binary);
}

/**
 * Reads a file dropped from the desktop. The renderer is sandboxed and main cannot be given a path, so the content
 * itself is sent: text when it is UTF-8 without NUL bytes, an image when it is one a model takes, within the limits.
 * Main checks all of it again.
 */
export async function readDroppedFile(file: File): Promise<DroppedFile> {
  const parsedType = imageMediaTypeSchema.safeParse(file.type);
  const mediaType = parsedType.success ? parsedType.data : imageTypeOf(file.name);
  // Something pasted may come without a name.
  const name = file.name || (mediaType ? `pasted.${mediaType.slice('image/'.length)}` : 'pasted.txt');
  if (mediaType) {
    if (file.size > attachmentImageLimitBytes)
      return {
        ok: false,
        problem: `${name} is ${sizeText(file.size)}; an attached image may be at most ${sizeText(attachmentImageLimitBytes)}.`,
      };
    const bytes = new Uint8Array(await file.arrayBuffer());
    return { ok: true, name, size: bytes.length, request: { kind: 'dropped_image', name, mediaType, data: base64(bytes) } };
  }
  if (file.size > attachmentTextLimitBytes)
    return {
      ok: false,
      problem: `${name} is ${sizeText(file.size)}, more than the ${sizeText(attachmentTextLimitBytes)} of text a message can carry.`,
    };
  const bytes = new Uint8Array(await file.arrayBuffer());
  // A NUL byte in the first 8 KB means binary, as git and ripgrep judge.
  if (bytes.subarray(0, 8192).includes(0))
    return { ok: false, problem: `${name} is a binary file; only text files and images can be attached.` };
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return { ok: false, problem: `${name} is not UTF-8 text, so it cannot be attached as text.` };
  }
  return { ok: true, name, size: bytes.length, request: { kind: 'dropped_text', name, text } };
}
