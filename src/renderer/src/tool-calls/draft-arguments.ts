/*
 * Reads the arguments of a tool call still being written: JSON fields cut off anywhere, and what the drafting card
 * shows of them.
 */

/** One top-level field of a JSON object being written. */
export interface PartialField {
  readonly key: string;
  /** A string's text, decoded as far as it has arrived; any other value's JSON text so far. */
  readonly value: string;
  readonly kind: 'string' | 'other';
  /** The value has been written to its end. */
  readonly complete: boolean;
}

/** What a drafting tool card shows of the arguments so far. */
export type DraftDisplay =
  | { readonly kind: 'file'; readonly path: string | null; readonly content: string }
  | { readonly kind: 'command'; readonly command: string }
  | { readonly kind: 'raw'; readonly text: string };

const isSpace = (code: number): boolean => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
const escapes: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
/** A string not finished yet: a pair's first half alone at its end is not a character yet. */
const unfinished = (text: string): { value: string; end: null } => ({
  value: isHighSurrogate(text.charCodeAt(text.length - 1)) ? text.slice(0, -1) : text,
  end: null,
});

/**
 * Reads a JSON string from its opening quote at `start`. An escape cut off at the end (`\`, `\u00`)
 * and half of a surrogate pair are left out until the rest arrives. `end` is past the closing quote,
 * or null when the string is not finished; `value` is null when the text is not JSON.
 */
function readString(raw: string, start: number): { value: string | null; end: number | null } {
  let text = '';
  let index = start + 1;
  let run = index;
  while (index < raw.length) {
    const code = raw.charCodeAt(index);
    if (code === 0x22) return { value: text + raw.slice(run, index), end: index + 1 };
    if (code !== 0x5c) {
      index += 1;
      continue;
    }
    text += raw.slice(run, index);
    const letter = raw[index + 1];
    if (letter === undefined) return unfinished(text);
    if (letter === 'u') {
      const hex = raw.slice(index + 2, index + 6);
      if (hex.length < 4) return unfinished(text);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) return { value: null, end: null };
      text += String.fromCharCode(parseInt(hex, 16));
      index += 6;
    } else {
      const decoded = escapes[letter];
      if (decoded === undefined) return { value: null, end: null };
      text += decoded;
      index += 2;
    }
    run = index;
  }
  return unfinished(text + raw.slice(run));
}

/** Skips a value that is not a string (a number, a literal, an object, an array): where it ends at depth 0, or null. */
function skipValue(raw: string, start: number): number | null {
  let depth = 0;
  let index = start;
  while (index < raw.length) {
    const char = raw[index];
    if (char === '"') {
      const string = readString(raw, index);
      if (string.end === null) return null;
      index = string.end;
      continue;
    }
    if (char === '{' || char === '[') depth += 1;
    else if (char === '}' || char === ']') {
      if (depth === 0) return index;
      depth -= 1;
    } else if (char === ',' && depth === 0) return index;
    index += 1;
  }
  return null;
}

const skipSpace = (raw: string, start: number): number => {
  let index = start;
  while (index < raw.length && isSpace(raw.charCodeAt(index))) index += 1;
  return index;
};

/**
 * The top-level fields of a JSON object as far as it has been written: `{"path": "a.txt", "content": "li`
 * gives `path` (complete) and `content` ("li", not complete). A key cut off is left out; a key whose value
 * has not begun is given with an empty value. Null when the text is not the start of a JSON object.
 */
export function readPartialObject(raw: string): PartialField[] | null {
  let index = skipSpace(raw, 0);
  if (index === raw.length) return [];
  if (raw[index] !== '{') return null;
  index += 1;
  const fields: PartialField[] = [];
  for (;;) {
    index = skipSpace(raw, index);
    if (index === raw.length || raw[index] === '}') return fields;
    if (raw[index] === ',' && fields.length > 0) index = skipSpace(raw, index + 1);
    if (index === raw.length) return fields;
    if (raw[index] !== '"') return null;
    const key = readString(raw, index);
    if (key.value === null) return null;
    if (key.end === null) return fields;
    index = skipSpace(raw, key.end);
    if (index === raw.length) return fields;
    if (raw[index] !== ':') return null;
    index = skipSpace(raw, index + 1);
    if (index === raw.length) {
      fields.push({ key: key.value, value: '', kind: 'string', complete: false });
      return fields;
    }
    if (raw[index] === '"') {
      const value = readString(raw, index);
      if (value.value === null) return null;
      fields.push({ key: key.value, value: value.value, kind: 'string', complete: value.end !== null });
      if (value.end === null) return fields;
      index = value.end;
    } else {
      const end = skipValue(raw, index);
      fields.push({ key: key.value, value: raw.slice(index, end ?? raw.length).trim(), kind: 'other', complete: end !== null });
      if (end === null) return fields;
      index = end;
    }
  }
}

const stringField = (fields: readonly PartialField[], key: string): PartialField | undefined =>
  fields.find((field) => field.key === key && field.kind === 'string');

/**
 * What to show of a tool call's arguments while they stream: for `write_file` the path and the content
 * growing, for `run_command` the command growing, otherwise the partial JSON as it is.
 */
export function draftDisplay(tool: string, raw: string): DraftDisplay {
  if (tool === 'write_file' || tool === 'run_command') {
    const fields = readPartialObject(raw);
    if (fields !== null && tool === 'write_file') {
      const path = stringField(fields, 'path');
      return { kind: 'file', path: path?.value ?? null, content: stringField(fields, 'content')?.value ?? '' };
    }
    if (fields !== null) return { kind: 'command', command: stringField(fields, 'command')?.value ?? '' };
  }
  return { kind: 'raw', text: raw };
}

/** The last `lines` lines of a text being written, and how many lines come before them. */
export function tailOf(text: string, lines: number): { readonly shown: string; readonly earlierLines: number } {
  let cut = text.length;
  for (let count = 0; count < lines && cut > 0; count += 1) cut = text.lastIndexOf('\n', cut - 1);
  if (cut <= 0) return { shown: text, earlierLines: 0 };
  let earlierLines = 1;
  for (let index = text.indexOf('\n'); index >= 0 && index < cut; index = text.indexOf('\n', index + 1)) earlierLines += 1;
  return { shown: text.slice(cut + 1), earlierLines };
}
