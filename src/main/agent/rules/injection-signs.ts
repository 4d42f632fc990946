/*
 * Checks a tool result for the signs of a prompt injection. The signs: instructions aimed at the model, requests to send
 * data away or to ignore the person, text hidden from the person's eyes, and encoded text that carries any of these. It runs
 * on every result, so the work is linear and bounded: one pass for hidden characters, one per phrase rule, and a
 * bounded number of decodings.
 */
import type { InjectionSign, InjectionSignKind } from '../../../shared/guardrails';
import { findPhrases } from './injection-phrases';
import { findEncoded } from './injection-encoded';

/** Results longer than this are checked on their first part only (the model is given far less; see `truncate.ts`). */
export const maxCheckedCharacters = 4_000_000;
/** At most this many signs of one kind are listed; the first ones are enough to judge. */
const signsPerKind = 5;
const excerptCharacters = 160;

/** Zero-width and invisible characters that hide text or split words so they are not recognized. */
const alwaysInvisible = new Set([0x200b, 0x2060, 0x180e, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x034f]);
/** Joiners that are part of emoji sequences and of Persian or Indic writing: invisible text only between ASCII. */
const joiners = new Set([0x200c, 0x200d]);
/** Bidirectional controls that reorder how text is shown (https://trojansource.codes). */
const bidiControls = new Set([0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);
const waveFlagHigh = 0xd83c;
const waveFlagLow = 0xdff4;

const isAscii = (code: number | undefined): boolean => code !== undefined && code < 0x80;
const codeName = (code: number): string => `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;

interface Hidden {
  /** The text without its invisible characters, and where each of its characters was in the original. */
  readonly visible: string;
  readonly positions: Int32Array | null;
  readonly invisible: number[];
  readonly bidi: number[];
  /** Runs of Unicode tag characters (U+E0000–E007F), decoded to the ASCII they spell. */
  readonly tags: Array<{ offset: number; text: string }>;
}

/** One pass over the text: invisible characters, bidi controls and tag characters, and the text without them. */
function scanHidden(text: string): Hidden {
  const invisible: number[] = [];
  const bidi: number[] = [];
  const tags: Array<{ offset: number; text: string }> = [];
  const keep: number[] = [];
  let stripped = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0xdb40) {
      const low = text.charCodeAt(index + 1);
      if (low >= 0xdc00 && low <= 0xdc7f) {
        // A flag emoji (U+1F3F4 followed by tags and a cancel tag) is the one ordinary use of tag characters.
        const flag = text.charCodeAt(index - 2) === waveFlagHigh && text.charCodeAt(index - 1) === waveFlagLow;
        let end = index;
        let spelled = '';
        while (text.charCodeAt(end) === 0xdb40 && text.charCodeAt(end + 1) >= 0xdc00 && text.charCodeAt(end + 1) <= 0xdc7f) {
          const ascii = text.charCodeAt(end + 1) - 0xdc00;
          if (ascii >= 0x20 && ascii < 0x7f) spelled += String.fromCharCode(ascii);
          end += 2;
        }
        const cancelled = text.charCodeAt(end - 1) === 0xdc7f;
        if (!(flag && cancelled && end - index <= 14)) tags.push({ offset: index, text: spelled });
        stripped = true;
        index = end - 1;
        continue;
      }
    }
    if (alwaysInvisible.has(code) && !(code === 0xfeff && index === 0)) {
      invisible.push(index);
      stripped = true;
      continue;
    }
    if (joiners.has(code) && isAscii(text.charCodeAt(index - 1)) && isAscii(text.charCodeAt(index + 1))) {
      invisible.push(index);
      stripped = true;
      continue;
    }
    if (bidiControls.has(code)) {
      bidi.push(index);
      stripped = true;
      continue;
    }
    keep.push(index);
  }
  if (!stripped) return { visible: text, positions: null, invisible, bidi, tags };
  const positions = Int32Array.from(keep);
  let visible = '';
  // Joined in slices, not character by character: the kept text is mostly long runs.
  let start = 0;
  for (let index = 1; index <= positions.length; index += 1) {
    if (index === positions.length || positions[index] !== (positions[index - 1] as number) + 1) {
      visible += text.slice(positions[start], (positions[index - 1] as number) + 1);
      start = index;
    }
  }
  return { visible, positions, invisible, bidi, tags };
}

/** The text around `offset`, with hidden characters named so the person sees them. */
function excerptAt(text: string, offset: number, length = excerptCharacters): string {
  const raw = text.slice(offset, offset + length);
  let shown = '';
  for (const character of raw) {
    const code = character.codePointAt(0) ?? 0;
    if (alwaysInvisible.has(code) || joiners.has(code) || bidiControls.has(code) || (code >= 0xe0000 && code <= 0xe007f)) {
      shown += codeName(code);
    } else {
      shown += character;
    }
    if (shown.length >= length) break;
  }
  return shown.replace(/\s+/g, ' ').trim().slice(0, 500);
}

type Found = Omit<InjectionSign, 'line'>;

/** Signs in wording, with offsets in `source` mapped back to the checked text by `position`. */
export function phraseSigns(source: string, position: (offset: number) => number, depth = 0): Found[] {
  const signs: Found[] = findPhrases(source).map((match) => ({
    kind: match.rule.kind,
    explanation: match.rule.explanation,
    excerpt: excerptAt(match.text, 0, 500),
    offset: position(match.offset),
  }));
  return [...signs, ...findEncoded(source, depth, position, (decoded, inner) => phraseSigns(decoded, () => 0, inner))];
}

function hiddenSigns(text: string, hidden: Hidden): Found[] {
  const signs: Found[] = [];
  // One stray zero-width space is what copying from a web page leaves; several are text hidden or words split.
  if (hidden.invisible.length >= 2) {
    const first = hidden.invisible[0] as number;
    signs.push({
      kind: 'hidden_text',
      explanation: `${hidden.invisible.length} zero-width characters: invisible to you, read by the model.`,
      excerpt: excerptAt(text, Math.max(0, first - 40)),
      offset: first,
    });
  }
  if (hidden.bidi.length > 0) {
    const first = hidden.bidi[0] as number;
    signs.push({
      kind: 'hidden_text',
      explanation: `${hidden.bidi.length} bidirectional control characters: the text is shown in another order than the model reads it.`,
      excerpt: excerptAt(text, Math.max(0, first - 40)),
      offset: first,
    });
  }
  for (const tag of hidden.tags.slice(0, signsPerKind)) {
    signs.push({
      kind: 'hidden_text',
      explanation: 'Unicode tag characters: text no one sees, spelled in characters the model reads.',
      excerpt: `hidden text: ${tag.text}`.slice(0, 500),
      offset: tag.offset,
    });
  }
  return signs;
}

/** 1-based line numbers for offsets, counted in one pass. */
function withLines(text: string, signs: readonly Found[]): InjectionSign[] {
  const sorted = [...signs].sort((a, b) => a.offset - b.offset);
  let line = 1;
  let at = 0;
  return sorted.map((sign) => {
    for (; at < sign.offset && at < text.length; at += 1) if (text.charCodeAt(at) === 10) line += 1;
    return { ...sign, line };
  });
}

/**
 * The signs of a prompt injection in a tool result, in the order they appear, at most five of each kind. An empty list
 * means none was found, not that the text is safe: the signs are what such text usually looks like.
 */
export function detectInjectionSigns(result: string): InjectionSign[] {
  const text = result.length > maxCheckedCharacters ? result.slice(0, maxCheckedCharacters) : result;
  const hidden = scanHidden(text);
  const { positions } = hidden;
  const position = positions === null ? (offset: number) => offset : (offset: number) => positions[offset] ?? text.length;
  const found: Found[] = [...hiddenSigns(text, hidden), ...phraseSigns(hidden.visible, position)];
  // What tag characters spell is read as text of its own: it is where the instructions usually are.
  for (const tag of hidden.tags.slice(0, signsPerKind)) {
    for (const sign of phraseSigns(tag.text, () => tag.offset))
      found.push({ ...sign, explanation: `In hidden tag characters: ${sign.explanation}` });
  }
  const counts = new Map<InjectionSignKind, number>();
  const kept = found.filter((sign) => {
    const count = counts.get(sign.kind) ?? 0;
    counts.set(sign.kind, count + 1);
    return count < signsPerKind;
  });
  return withLines(text, kept);
}
