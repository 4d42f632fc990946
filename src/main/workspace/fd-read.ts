/*
 * Reads and writes of a file already open, through its descriptor: all of it, a range of its lines, and whether it
 * looks binary.
 */

import { read, readSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { promisify } from 'node:util';

const readAsync = promisify(read);
const chunkBytes = 64 * 1024;

/** Reads an open regular file from its start, at most `maxBytes`, through the descriptor (the path is never looked at again). */
export function readAllSync(fd: number, maxBytes: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(chunkBytes, maxBytes - total));
    if (chunk.length === 0) break;
    const bytesRead = readSync(fd, chunk, 0, chunk.length, total);
    if (bytesRead === 0) break;
    chunks.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
    total += bytesRead;
    // A regular file reads short only at its end, so a short read saves asking again for nothing.
    if (bytesRead < chunk.length) break;
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
}

/** Writes all of `data` to an open descriptor. */
export function writeAllSync(fd: number, data: Buffer): void {
  let written = 0;
  while (written < data.length) written += writeSync(fd, data, written, data.length - written);
}

/** Whether a file looks binary: a NUL byte in its first 8 KB, as git and ripgrep judge. */
export function looksBinaryFd(fd: number): boolean {
  const sample = Buffer.alloc(8192);
  const bytesRead = readSync(fd, sample, 0, sample.length, 0);
  return sample.subarray(0, bytesRead).includes(0);
}

/**
 * Lines `start`..`end` (1-based) of an open file, split as Node's readline splits them (`\n`,
 * `\r\n` or a lone `\r`). `total` is the number of lines when the file ended before `end`, else
 * null. Reads stay on the descriptor and are awaited one by one, so closing it afterwards is safe.
 * With `maxChars`, reading stops once the lines taken hold more than that (`over`), so a huge range
 * of a huge file is not gathered first and refused after.
 */
export async function readLinesFromFd(
  fd: number,
  start: number,
  end: number,
  maxChars = Number.POSITIVE_INFINITY,
): Promise<{ lines: string[]; total: number | null; over?: true }> {
  const lines: string[] = [];
  let chars = 0;
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.allocUnsafe(chunkBytes);
  let number = 0;
  let partial = '';
  let afterCarriageReturn = false;
  let position = 0;
  const take = (line: string): boolean => {
    number += 1;
    if (number >= start && number <= end) {
      lines.push(line);
      chars += line.length + 1;
    }
    return number > end || chars > maxChars;
  };
  for (;;) {
    const { bytesRead } = await readAsync(fd, buffer, 0, buffer.length, position);
    position += bytesRead;
    let text = bytesRead === 0 ? decoder.end() : decoder.write(buffer.subarray(0, bytesRead));
    // A \r\n split across two reads is one line break, as readline with crlfDelay Infinity treats it.
    if (afterCarriageReturn && text.startsWith('\n')) text = text.slice(1);
    afterCarriageReturn = text.endsWith('\r');
    const pieces = (partial + text).split(/\r\n|\n|\r/);
    partial = pieces.pop() ?? '';
    for (const line of pieces) if (take(line)) return chars > maxChars ? { lines, total: null, over: true } : { lines, total: null };
    if (bytesRead === 0) break;
  }
  if (partial.length > 0 && take(partial)) return { lines, total: null };
  return { lines, total: number };
}
