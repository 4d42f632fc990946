/*
 * Encoded payloads: long base64 or hex blobs whose decoded text carries another sign. A blob that decodes to binary
 * (an image, a hash, a key) or to harmless text is not a sign: data files and lock files are full of those.
 */
import type { InjectionSign } from '../../../shared/guardrails';

/** Shorter runs are ids, hashes and words, not payloads. */
const minimumBlob = 40;
/** At most this many blobs are decoded per text, each at most this long: a text of nothing but base64 stays cheap. */
// More than a 16,000-character result can hold (blobs of 40 or more, apart): harmless blobs cannot hide a later one.
const maxDecodedBlobs = 500;
const maxBlobCharacters = 256 * 1024;
/** Blobs inside blobs are decoded twice at most. */
const maxDepth = 2;

type Found = Omit<InjectionSign, 'line'>;
export type CheckDecoded = (decoded: string, depth: number) => readonly Found[];

const isBase64Code = (code: number): boolean =>
  (code >= 65 && code <= 90) ||
  (code >= 97 && code <= 122) ||
  (code >= 48 && code <= 57) ||
  code === 43 ||
  code === 47 ||
  code === 45 ||
  code === 95;
const isHexCode = (code: number): boolean => (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);

/** Runs of base64 (or base64url) characters at least `minimumBlob` long; a run may wrap onto the next line, as MIME does. */
export function blobRuns(text: string): Array<{ offset: number; text: string }> {
  const runs: Array<{ offset: number; text: string }> = [];
  let start = -1;
  let index = 0;
  const close = (end: number): void => {
    if (start >= 0 && end - start >= minimumBlob) runs.push({ offset: start, text: text.slice(start, end) });
    start = -1;
  };
  for (; index < text.length && runs.length < maxDecodedBlobs; index += 1) {
    const code = text.charCodeAt(index);
    if (isBase64Code(code)) {
      if (start < 0) start = index;
      continue;
    }
    // Padding ends a run; a line break inside a long run continues it when base64 follows.
    if (code === 61) {
      while (text.charCodeAt(index + 1) === 61) index += 1;
      close(index + 1);
      continue;
    }
    const wraps = (code === 10 || code === 13) && start >= 0 && index - start >= minimumBlob && isBase64Code(text.charCodeAt(index + 1));
    if (!wraps) close(index);
  }
  close(index);
  return runs;
}

function decodeHex(blob: string): Uint8Array | null {
  if (blob.length % 2 !== 0) return null;
  const bytes = new Uint8Array(blob.length / 2);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = Number.parseInt(blob.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}

function decodeBase64(blob: string): Uint8Array | null {
  const normalized = blob
    .replace(/[\r\n=]/g, '')
    .replace(/-/g, '+')
    .replace(/_/g, '/');
  if (normalized.length % 4 === 1) return null;
  try {
    const binary = atob(normalized.padEnd(normalized.length + ((4 - (normalized.length % 4)) % 4), '='));
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
    return bytes;
  } catch {
    return null;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes as text when they are text: valid UTF-8, almost all of it printable. */
function asText(bytes: Uint8Array | null): string | null {
  if (bytes === null || bytes.length < 16) return null;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return null;
  }
  let printable = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 32 || code === 9 || code === 10 || code === 13) printable += 1;
  }
  return printable / text.length >= 0.95 ? text : null;
}

/** Signs carried by encoded blobs of `text`, found by decoding them and checking what they say with `check`. */
export function findEncoded(text: string, depth: number, position: (offset: number) => number, check: CheckDecoded): Found[] {
  if (depth >= maxDepth) return [];
  const found: Found[] = [];
  for (const run of blobRuns(text)) {
    const blob = run.text.slice(0, maxBlobCharacters).replace(/[\r\n]/g, '');
    let hex = blob.length % 2 === 0;
    for (let index = 0; hex && index < blob.length; index += 1) hex = isHexCode(blob.charCodeAt(index));
    const decoded = asText(hex ? decodeHex(blob) : decodeBase64(blob));
    if (decoded === null) continue;
    const inner = check(decoded, depth + 1);
    const first = inner[0];
    if (!first) continue;
    const kinds = [...new Set(inner.map((sign) => sign.kind.replace(/_/g, ' ')))].join(', ');
    found.push({
      kind: 'encoded_payload',
      explanation: `${hex ? 'Hex' : 'Base64'} text that decodes to text with signs of its own (${kinds}): ${first.explanation}`.slice(
        0,
        500,
      ),
      excerpt: `decodes to: ${first.excerpt}`.slice(0, 500),
      offset: position(run.offset),
    });
  }
  return found;
}
