/*
 * The checks of a download and the failures they answer with: what its first bytes say it is, room on the disk, its
 * checksum, what a failure means for the bytes that arrived, and the speed shown while it runs.
 */

import { toErrorInfo, type ErrorInfo } from '../../shared/errors';
import { sizeWords } from '../../shared/model-catalogue';
import { DownloadFailure, errorCode, webPage } from './download-request';

/** Room kept free on the disk beyond the file itself. */
const spareBytes = 100_000_000;
const speedWindowMs = 5_000;

/** Refuses a body that is a web page or not a GGUF file, from its first bytes. */
export function sniff(head: Buffer): void {
  const text = head.subarray(0, 64).toString('latin1').trimStart().toLowerCase();
  if (text.startsWith('<!doctype') || text.startsWith('<html') || text.startsWith('<')) throw webPage();
  if (head.subarray(0, 4).toString('latin1') !== 'GGUF')
    throw new DownloadFailure(
      { code: 'model_file_invalid', message: 'The server sent a file that is not a GGUF model (the format the built-in runtime loads).' },
      false,
    );
}

/** Refuses a download the disk has no room for (with some to spare); a file of unknown size is let through. */
export function checkRoom(name: string, total: number | null, have: number, free: number): void {
  if (total === null) return;
  const needed = total - have;
  if (free < needed + spareBytes)
    throw new DownloadFailure(
      {
        code: 'disk_full',
        message: `Not enough room on the disk for ${name}: it needs ${sizeWords(needed + spareBytes)} and ${sizeWords(free)} is free. Free some space, then try again.`,
        retryable: true,
      },
      true,
    );
}

/** The failure of a download whose connection ended before the whole file arrived: resumable from there. */
export function cutShort(received: number, total: number | null): DownloadFailure {
  return new DownloadFailure(
    {
      code: 'download_failed',
      message: `The connection was cut after ${sizeWords(received)}${total ? ` of ${sizeWords(total)}` : ''}: Resume goes on from there.`,
      retryable: true,
    },
    true,
  );
}

/** Refuses a file whose SHA-256 is not the one expected; what arrived is removed. */
export function checkDigest(digest: string, expected: string | null): void {
  if (expected !== null && digest !== expected)
    throw new DownloadFailure(
      {
        code: 'download_failed',
        message: `The file downloaded does not match its checksum (SHA-256 ${digest.slice(0, 12)}…, expected ${expected.slice(0, 12)}…): it was removed. Try again.`,
      },
      false,
    );
}

/** What a failure says, and whether the bytes that arrived are kept for Resume. */
export function failureOf(error: unknown, name: string, received: number, total: number | null): { info: ErrorInfo; keep: boolean } {
  if (error instanceof DownloadFailure) return { info: error.info, keep: error.keepPart };
  if (errorCode(error) === 'ENOSPC')
    return {
      info: {
        code: 'disk_full',
        message: `The disk is full: ${name} could not be written. Free some space, then resume.`,
        retryable: true,
      },
      keep: true,
    };
  if (error instanceof TypeError || errorCode(error)?.startsWith('UND_ERR') || errorCode(error) === 'ECONNRESET')
    return { info: cutShort(received, total).info, keep: true };
  return { info: toErrorInfo(error), keep: true };
}

/** The speed over the last few seconds and the time left, from samples of `[time, bytes received]` (trimmed in place). */
export function speedOf(
  samples: Array<readonly [number, number]>,
  now: number,
  received: number,
  total: number | null,
): { bytesPerSecond: number | null; secondsLeft: number | null } {
  samples.push([now, received]);
  while (samples.length > 2 && now - (samples[0]?.[0] ?? now) > speedWindowMs) samples.shift();
  const first = samples[0];
  const span = first ? now - first[0] : 0;
  const speed = first && span >= 200 ? ((received - first[1]) * 1000) / span : null;
  const secondsLeft = speed && total !== null && speed > 0 ? Math.max(0, (total - received) / speed) : null;
  return { bytesPerSecond: speed, secondsLeft };
}
