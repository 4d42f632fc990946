/*
 * Reads and checks the files a message attaches: the workspace's through the link-safe reader, dropped ones by their
 * content.
 */

import { basename } from 'node:path';
import {
  attachmentImageLimitBytes,
  attachmentTextLimitBytes,
  imageTypeOf,
  rangeText,
  sizeText,
  type Attachment,
  type AttachmentRequest,
  type ImageMediaType,
  type LineRange,
} from '../../shared/attachments';
import { WorkbenchError } from '../../shared/errors';
import { detectInjectionSigns } from '../agent/rules/injection-signs';
import { looksBinaryFd, readAllSync, readLinesFromFd } from './fd-read';
import type { FolderAccess } from './folder-access';
import { losslessText } from './utf8-text';
import { WorkspaceFiles } from './workspace-files';

/** What reading a message's attachments needs to know of its session. */
export interface AttachmentContext {
  readonly workspacePath: string | null;
  /** Whether the session's model takes images, with its name for the refusal; asked only when an image is attached. */
  readonly takesImages: () => Promise<{ readonly takes: boolean; readonly model: string }>;
  readonly access?: FolderAccess;
}

/** The first bytes each image type starts with, so a renamed file is not sent as what its name says. */
const signatures: Record<ImageMediaType, (data: Buffer) => boolean> = {
  'image/png': (data) => data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (data) => data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff,
  'image/gif': (data) => ['GIF87a', 'GIF89a'].includes(data.subarray(0, 6).toString('latin1')),
  'image/webp': (data) => data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP',
};

const refuse = (message: string): WorkbenchError => new WorkbenchError('invalid_input', message);

/** How a reference is quoted back to the person: as they typed it. */
function written(path: string, range?: LineRange): string {
  return `@${path}${range ? `#${rangeText(range)}` : ''}`;
}

function checkedImage(name: string, mediaType: ImageMediaType, data: Buffer): void {
  if (data.length > attachmentImageLimitBytes)
    throw refuse(`${name} is ${sizeText(data.length)}; an attached image may be at most ${sizeText(attachmentImageLimitBytes)}.`);
  if (!signatures[mediaType](data)) throw refuse(`${name} is not the ${mediaType.slice(6).toUpperCase()} image its name says it is.`);
}

function checkedText(name: string, text: string): void {
  if (text.includes('\0')) throw refuse(`${name} is a binary file; only text files and images can be attached.`);
  const bytes = Buffer.byteLength(text);
  if (bytes > attachmentTextLimitBytes)
    throw refuse(
      `${name} is ${sizeText(bytes)} of text, more than the ${sizeText(attachmentTextLimitBytes)} a message can carry: attach a part of it, such as ${name}#L1-200.`,
    );
}

/** Reads one file of the workspace through the link-safe reader: a path that leaves it, through `..` or a link, is refused. */
async function fromWorkspace(files: WorkspaceFiles, path: string, range: LineRange | undefined): Promise<Attachment> {
  const reference = written(path, range);
  const found = files.inspect(path);
  if (found.kind === 'missing') throw new WorkbenchError('not_found', `${reference} does not exist in the workspace.`);
  if (found.kind === 'directory') throw refuse(`${reference} is a folder; point at a file in it.`);
  return files.withFile(path, async (file) => {
    const mediaType = imageTypeOf(file.relative);
    if (mediaType) {
      if (range) throw refuse(`${reference}: a line range goes with a text file, not an image.`);
      if (file.size > attachmentImageLimitBytes)
        throw refuse(`${reference} is ${sizeText(file.size)}; an attached image may be at most ${sizeText(attachmentImageLimitBytes)}.`);
      const data = readAllSync(file.fd, attachmentImageLimitBytes + 1);
      checkedImage(reference, mediaType, data);
      return { kind: 'image', path: file.relative, source: 'workspace', size: data.length, mediaType, data: data.toString('base64') };
    }
    if (looksBinaryFd(file.fd)) throw refuse(`${reference} is a binary file; only text files and images can be attached.`);
    let text: string | null;
    if (range) {
      // Read up to one line past the end, so a range that runs past the file's end is known as such.
      const { lines, total, over } = await readLinesFromFd(file.fd, range.start, range.end, attachmentTextLimitBytes);
      if (over)
        throw refuse(
          `${reference} holds more than the ${sizeText(attachmentTextLimitBytes)} of text a message can carry: attach fewer lines.`,
        );
      if (total !== null && range.end > total)
        throw refuse(`${reference} runs past the end of ${file.relative}, which has ${total} ${total === 1 ? 'line' : 'lines'}.`);
      // The lines were decoded with replacement characters where bytes were not UTF-8: such text is not the file's.
      text = lines.join('\n');
      if (text.includes('\uFFFD')) text = null;
    } else {
      if (file.size > attachmentTextLimitBytes)
        throw refuse(
          `${reference} is ${sizeText(file.size)}, more than the ${sizeText(attachmentTextLimitBytes)} of text a message can carry: attach a part of it, such as ${written(path, { start: 1, end: 200 })}.`,
        );
      text = losslessText(readAllSync(file.fd, attachmentTextLimitBytes + 1));
    }
    if (text === null) throw refuse(`${reference} is not UTF-8 text, so it cannot be attached as text.`);
    checkedText(reference, text);
    return {
      kind: 'text',
      path: file.relative,
      source: 'workspace',
      ...(range ? { range } : {}),
      size: Buffer.byteLength(text),
      text,
    };
  });
}

/** A text attachment with the signs of a prompt injection its whole text carries, if any. */
function screened(attachment: Attachment): Attachment {
  if (attachment.kind !== 'text') return attachment;
  const signs = detectInjectionSigns(attachment.text);
  return signs.length === 0 ? attachment : { ...attachment, injection: signs };
}

/** A dropped file's name without any folders a renderer may have put in it. */
function droppedName(name: string): string {
  return basename(name.replace(/\\/g, '/')) || 'dropped file';
}

/**
 * Reads and checks what a message asks to attach, before anything is written: files of the workspace through the
 * link-safe reader, dropped files as their content. Throws the first refusal, in words that name the file.
 */
export async function readAttachments(requests: readonly AttachmentRequest[], context: AttachmentContext): Promise<Attachment[]> {
  const attachments: Attachment[] = [];
  const seen = new Set<string>();
  let files: WorkspaceFiles | null = null;
  for (const request of requests) {
    switch (request.kind) {
      case 'workspace': {
        if (context.workspacePath === null)
          throw new WorkbenchError(
            'no_workspace',
            `This session has no workspace folder, so ${written(request.path, request.range)} points at nothing: drop a folder on the window first.`,
          );
        files ??= new WorkspaceFiles(context.workspacePath, context.access ? { access: context.access } : {});
        const attachment = await fromWorkspace(files, request.path, request.range);
        const key = `${attachment.path}#${attachment.kind === 'text' && attachment.range ? rangeText(attachment.range) : ''}`;
        if (!seen.has(key)) attachments.push(screened(attachment));
        seen.add(key);
        break;
      }
      case 'dropped_text': {
        const name = droppedName(request.name);
        checkedText(name, request.text);
        attachments.push(
          screened({ kind: 'text', path: name, source: 'dropped', size: Buffer.byteLength(request.text), text: request.text }),
        );
        break;
      }
      case 'dropped_image': {
        const name = droppedName(request.name);
        const data = Buffer.from(request.data, 'base64');
        checkedImage(name, request.mediaType, data);
        attachments.push({
          kind: 'image',
          path: name,
          source: 'dropped',
          size: data.length,
          mediaType: request.mediaType,
          data: request.data,
        });
        break;
      }
    }
  }
  const image = attachments.find((attachment) => attachment.kind === 'image');
  if (image) {
    const { takes, model } = await context.takesImages();
    if (!takes)
      throw refuse(
        `${model} does not take images, so ${image.path} cannot be sent to it. Remove the image, or pick a model that sees images.`,
      );
  }
  return attachments;
}
