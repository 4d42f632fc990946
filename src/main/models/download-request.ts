/*
 * The HTTP request of a model download: resumed from where it stopped, redirects followed to read the file's SHA-256,
 * and failures told in words.
 */

import { z } from 'zod';
import type { ErrorInfo } from '../../shared/errors';

/** How a failed download leaves its partial file: kept, so Resume goes on from it, or removed with everything else. */
export class DownloadFailure extends Error {
  constructor(
    readonly info: ErrorInfo,
    readonly keepPart: boolean,
  ) {
    super(info.message);
    this.name = new.target.name;
  }
}

const sha256Pattern = /^"?([0-9a-f]{64})"?$/;
/** `Content-Range: bytes <start>-<end>/<total>` of a 206 answer. */
const contentRangeSchema = z
  .string()
  .regex(/^bytes (\d+)-(\d+)\/(\d+|\*)$/)
  .transform((value) => {
    const [, start, end, total] = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(value) ?? [];
    return { start: Number(start), end: Number(end), total: total === '*' ? null : Number(total) };
  });
const lengthSchema = z
  .string()
  .regex(/^\d{1,15}$/)
  .transform(Number);

/** The answer to a download's request, once redirects are followed. */
export interface DownloadAnswer {
  readonly response: Response;
  /** Where the body starts in the file: 0, or the offset a 206 answered from. */
  readonly start: number;
  /** The whole file's size, when the server says. */
  readonly total: number | null;
  /** The file's SHA-256 as Hugging Face sends it with the redirect (`X-Linked-ETag`), when it does. */
  readonly linkedSha256: string | null;
  /** A strong ETag of the file, to resume only the same file (`If-Range`). */
  readonly etag: string | null;
}

const redirects = new Set([301, 302, 303, 307, 308]);
const networkCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'ENETDOWN', 'ETIMEDOUT']);

/** The system error code behind a failed fetch (undici puts it on `cause`, sometimes a level deeper). */
export function errorCode(error: unknown): string | null {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
  }
  return null;
}

/**
 * Asks for the file from `from` on (a `Range` request, with `If-Range` so a changed file comes whole), following
 * redirects itself so the headers of each hop are seen: Hugging Face's `resolve` answers with a redirect to its CDN
 * that carries the file's SHA-256. Throws a `DownloadFailure` for no network, an HTTP error, or a web page.
 */
export async function requestDownload(
  fetcher: typeof fetch,
  url: string,
  from: number,
  etag: string | null,
  signal: AbortSignal,
): Promise<DownloadAnswer> {
  let current = new URL(url);
  let linkedSha256: string | null = null;
  for (let hop = 0; hop <= 8; hop++) {
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    if (from > 0) {
      headers['range'] = `bytes=${from}-`;
      if (etag) headers['if-range'] = etag;
    }
    let response: Response;
    try {
      response = await fetcher(current, { headers, redirect: 'manual', signal });
    } catch (error) {
      if (signal.aborted) throw error;
      const code = errorCode(error);
      const words = code !== null && networkCodes.has(code) ? 'no network connection to it' : 'the connection failed';
      throw new DownloadFailure(
        {
          code: 'download_failed',
          message: `No network: ${current.host} could not be reached (${words}${code ? `, ${code}` : ''}).`,
          retryable: true,
        },
        true,
      );
    }
    linkedSha256 ??= sha256Pattern.exec(response.headers.get('x-linked-etag') ?? '')?.[1] ?? null;
    const location = response.headers.get('location');
    if (redirects.has(response.status) && location) {
      await response.body?.cancel();
      current = new URL(location, current);
      continue;
    }
    if (response.status >= 400 && !(response.status === 416 && from > 0)) {
      await response.body?.cancel();
      const retryable = response.status >= 500 || response.status === 429;
      throw new DownloadFailure(
        {
          code: 'download_failed',
          message: `The server answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''} for ${current.host}${current.pathname}.`,
          retryable,
        },
        retryable,
      );
    }
    if (/\btext\/html\b/i.test(response.headers.get('content-type') ?? '')) {
      await response.body?.cancel();
      throw webPage();
    }
    const range = response.status === 206 ? contentRangeSchema.safeParse(response.headers.get('content-range') ?? '') : null;
    const length = lengthSchema.safeParse(response.headers.get('content-length') ?? '');
    const start = range?.success ? range.data.start : 0;
    const total = range?.success ? range.data.total : length.success ? length.data : null;
    const tag = response.headers.get('etag');
    return { response, start, total, linkedSha256, etag: tag && !tag.startsWith('W/') ? tag : null };
  }
  throw new DownloadFailure({ code: 'download_failed', message: `Too many redirects from ${new URL(url).host}.` }, false);
}

/** The refusal of a server that sent a web page (a sign-in page, an error page) where the model file should be. */
export function webPage(): DownloadFailure {
  return new DownloadFailure(
    { code: 'download_failed', message: 'The server sent a web page, not the model file: the address may be wrong or need a sign-in.' },
    false,
  );
}
