/*
 * Cuts a command's output into chunks a terminal draws at once, wrapped in synchronized output, never splitting an
 * escape sequence or a character in two.
 */

/** Synchronized output (DEC mode 2026): what the terminal is given between these it shows at once. */
const syncMode = '\x1b[?2026';
const beginSync = `${syncMode}h`;
const endSync = `${syncMode}l`;

/** CAN: ends whatever sequence is under way, so what follows it is read from `ground`. */
export const cancelSequence = '\x18';

/**
 * Where the output stands between two characters: outside any sequence (`ground`), or inside an
 * escape sequence or a character still arriving. `escaped`: an ESC was just seen inside a string.
 */
export type ScanState =
  'ground' | 'escape' | 'csi' | 'intermediate' | 'osc' | 'string' | 'osc-escaped' | 'string-escaped' | 'high-surrogate';

const esc = 0x1b;

/** The state after one more character; `again` when that character must be looked at once more, in the new state. */
function step(state: ScanState, code: number): { state: ScanState; again: boolean } {
  // CAN and SUB cancel whatever sequence is under way.
  if ((code === 0x18 || code === 0x1a) && state !== 'high-surrogate') return { state: 'ground', again: false };
  switch (state) {
    case 'ground':
      if (code === esc) return { state: 'escape', again: false };
      return { state: code >= 0xd800 && code <= 0xdbff ? 'high-surrogate' : 'ground', again: false };
    case 'high-surrogate':
      return code >= 0xdc00 && code <= 0xdfff ? { state: 'ground', again: false } : { state: 'ground', again: true };
    case 'escape':
      if (code === 0x5b) return { state: 'csi', again: false }; // [
      if (code === 0x5d) return { state: 'osc', again: false }; // ]
      if (code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f) return { state: 'string', again: false }; // P X ^ _
      if (code >= 0x20 && code <= 0x2f) return { state: 'intermediate', again: false };
      if (code === esc) return { state: 'escape', again: false };
      return { state: 'ground', again: false };
    case 'csi':
      if (code >= 0x20 && code <= 0x3f) return { state: 'csi', again: false };
      return code === esc ? { state: 'escape', again: false } : { state: 'ground', again: false };
    case 'intermediate':
      if (code >= 0x20 && code <= 0x2f) return { state: 'intermediate', again: false };
      return code === esc ? { state: 'escape', again: false } : { state: 'ground', again: false };
    case 'osc':
      if (code === 0x07) return { state: 'ground', again: false };
      return { state: code === esc ? 'osc-escaped' : 'osc', again: false };
    case 'string':
      return { state: code === esc ? 'string-escaped' : 'string', again: false };
    case 'osc-escaped':
    case 'string-escaped':
      // ESC \ ends the string; an ESC followed by anything else ends it too and starts a new sequence.
      return code === 0x5c ? { state: 'ground', again: false } : { state: 'escape', again: true };
  }
}

/** One chunk for the terminal, and what is left. */
export interface Chunk {
  /** What to give the terminal now. */
  readonly write: string;
  /** What stays queued. */
  readonly rest: string;
  /** Where the terminal is left: anything but `ground` means inside a sequence, and the next chunk must not be wrapped. */
  readonly state: ScanState;
}

/**
 * The next at most `limit` characters of `queue` for the terminal, wrapped in synchronized output
 * so that it syncs its scroll bar and draws once per chunk, not once per line. The wrapper must
 * never cut a sequence or a character in two, so a chunk ends where the output is between
 * sequences; the end of a sequence begun in an earlier chunk, and a sequence longer than a chunk,
 * are passed on unwrapped, for the terminal to put back together.
 */
export function nextChunk(queue: string, limit: number, from: ScanState): Chunk {
  const end = Math.min(limit, queue.length);
  let state = from;
  let lastGround = from === 'ground' ? 0 : -1;
  for (let index = 0; index < end; index += 1) {
    const code = queue.charCodeAt(index);
    let next = step(state, code);
    if (next.again) next = step(next.state, code);
    state = next.state;
    if (state === 'ground') {
      lastGround = index + 1;
      // Inside a sequence from before: it ends here, and only that much goes unwrapped.
      if (from !== 'ground') return { write: queue.slice(0, lastGround), rest: queue.slice(lastGround), state };
    }
  }
  if (from !== 'ground' || lastGround <= 0) return { write: queue.slice(0, end), rest: queue.slice(end), state };
  const text = queue.slice(0, lastGround);
  // Output that uses synchronized output itself is passed on as it is.
  const write = text.includes(syncMode) ? text : `${beginSync}${text}${endSync}`;
  return { write, rest: queue.slice(lastGround), state: 'ground' };
}
