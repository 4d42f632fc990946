/*
 * Files attached to a message: `@path`, `@path#L10-20`, a row dragged from the file tree or a file dropped from the
 * desktop. The renderer asks for them (`AttachmentRequest`); main reads and checks them and journals what it read with
 * the message (`Attachment`), so every later view of the message (restore, branch, edit, export, resume) sees the same
 * content.
 */

import { z } from 'zod';
import { injectionSignSchema } from './guardrails';

/** At most this much text is attached from one file (or one line range of it). */
export const attachmentTextLimitBytes = 256 * 1024;
/** At most this large an image, before base64. */
export const attachmentImageLimitBytes = 5 * 1024 * 1024;
/** At most this many files go with one message. */
export const attachmentsPerMessage = 10;

/** The image types a model may be given, as the APIs name them. */
export const imageMediaTypeSchema = z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
export type ImageMediaType = z.infer<typeof imageMediaTypeSchema>;

/** The image type a file name says, or null when it is not an image a model takes. */
export function imageTypeOf(name: string): ImageMediaType | null {
  const extension = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  switch (extension) {
    case 'png':
      return 'image/png';
    case 'jpg':
    case 'jpeg':
      return 'image/jpeg';
    case 'gif':
      return 'image/gif';
    case 'webp':
      return 'image/webp';
    default:
      return null;
  }
}

/** Lines `start`..`end` of a file, 1-based and inclusive. */
export const lineRangeSchema = z
  .object({ start: z.number().int().min(1), end: z.number().int().min(1) })
  .strict()
  .refine((range) => range.end >= range.start, { message: 'the line range ends before it starts' });
export type LineRange = z.infer<typeof lineRangeSchema>;

/** How a range is written after a path in the composer: `#L10-20`, or `#L10` for one line. */
export function rangeText(range: LineRange): string {
  return range.start === range.end ? `L${range.start}` : `L${range.start}-${range.end}`;
}

const nameSchema = z
  .string()
  .min(1)
  .max(4_096)
  .refine((value) => !value.includes('\0'), 'must not contain NUL bytes');
const base64Schema = z
  .string()
  .max(Math.ceil(attachmentImageLimitBytes / 3) * 4 + 4)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'is not base64');

/** What the renderer asks to attach. Main reads and checks every one again before anything is written. */
export const attachmentRequestSchema = z.discriminatedUnion('kind', [
  /** A file of the session's workspace, read by main through the link-safe reader. */
  z.object({ kind: z.literal('workspace'), path: nameSchema, range: lineRangeSchema.optional() }).strict(),
  /** A text file dropped from the desktop: the renderer read it (it cannot give main a path). */
  z.object({ kind: z.literal('dropped_text'), name: nameSchema, text: z.string().max(attachmentTextLimitBytes + 1) }).strict(),
  /** An image dropped from the desktop, as base64. */
  z.object({ kind: z.literal('dropped_image'), name: nameSchema, mediaType: imageMediaTypeSchema, data: base64Schema }).strict(),
]);
export type AttachmentRequest = z.infer<typeof attachmentRequestSchema>;

/** An attachment as journalled with its message: what the model was given, whole. */
export const attachmentSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('text'),
    /** The workspace path, or the dropped file's name. */
    path: z.string(),
    source: z.enum(['workspace', 'dropped']),
    range: lineRangeSchema.optional(),
    /** Bytes of the attached text. */
    size: z.number().int().nonnegative(),
    text: z.string(),
    /** Signs of a prompt injection found in the whole text: the chip is marked, and the model told to read it as data. */
    injection: z.array(injectionSignSchema).max(50).optional(),
  }),
  z.object({
    kind: z.literal('image'),
    path: z.string(),
    source: z.enum(['workspace', 'dropped']),
    size: z.number().int().nonnegative(),
    mediaType: imageMediaTypeSchema,
    /** The image's bytes, base64. */
    data: z.string(),
  }),
]);
export type Attachment = z.infer<typeof attachmentSchema>;

/** "12.3 KB": a size as a chip shows it. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** A file of the workspace as the preview shows it: text, an image, or why it is not shown. */
export const filePeekSchema = z.object({
  path: z.string(),
  size: z.number().int().nonnegative(),
  content: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('text'), text: z.string() }),
    z.object({ kind: z.literal('image'), mediaType: imageMediaTypeSchema, data: z.string() }),
    z.object({ kind: z.literal('binary') }),
    z.object({ kind: z.literal('too_large'), limit: z.number().int() }),
  ]),
});
export type FilePeek = z.infer<typeof filePeekSchema>;
