import { describe, expect, it } from 'vitest';
import { nextChunk, type ScanState } from '../../../src/renderer/src/tool-calls/terminal-chunks';

const begin = '\x1b[?2026h';
const end = '\x1b[?2026l';

/**
 * Pieces of real terminal output as their atoms: an escape sequence or a character, which must
 * reach the terminal whole inside a wrapper. Text is cut anywhere between characters.
 */
const text = (value: string): string[] => Array.from(value);
const pieces: string[][] = [
  text('plain text '),
  text('line\r\n'),
  ['\x1b[32m'],
  ['\x1b[1;38;2;255;128;0m'],
  ['\x1b[0m'],
  ['\x1b[2K', '\r'],
  ['\x1b]8;;https://example.com/a\x07', ...text('link'), '\x1b]8;;\x1b\\'],
  ['\x1b]0;window title\x07'],
  ['\x1bP+q544e\x1b\\'],
  ['\x1b(B'],
  ['\x1b7'],
  ['😀'],
  text('é\t'),
];

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('terminal output in synchronized chunks', () => {
  it('never cuts an escape sequence or a character in two with its wrapper, and loses or adds nothing', () => {
    for (let seed = 1; seed <= 200; seed += 1) {
      const next = random(seed);
      const atoms = Array.from({ length: 300 }, () => pieces[Math.floor(next() * pieces.length)] as string[]).flat();
      const input = atoms.join('');
      // Where a wrapper may go: between two atoms.
      const boundaries = new Set<number>([0]);
      let offset = 0;
      for (const atom of atoms) boundaries.add((offset += atom.length));

      // The output arrives in arbitrary pieces, and is taken at most `limit` characters at a time.
      let queue = '';
      let state: ScanState = 'ground';
      let position = 0;
      let arrived = 0;
      let rebuilt = '';
      while (arrived < input.length || queue.length > 0) {
        if (arrived < input.length) {
          const size = 1 + Math.floor(next() * 40);
          queue += input.slice(arrived, arrived + size);
          arrived += size;
        }
        const chunk = nextChunk(queue, 1 + Math.floor(next() * 60), state);
        expect(chunk.write.length).toBeGreaterThan(0);
        if (chunk.write.startsWith(begin) && chunk.write.endsWith(end)) {
          const inner = chunk.write.slice(begin.length, -end.length);
          expect(boundaries.has(position), `seed ${seed}: a wrapper opens inside a sequence or character at ${position}`).toBe(true);
          expect(
            boundaries.has(position + inner.length),
            `seed ${seed}: a wrapper closes inside a sequence or character at ${position + inner.length}`,
          ).toBe(true);
          rebuilt += inner;
          position += inner.length;
        } else {
          rebuilt += chunk.write;
          position += chunk.write.length;
        }
        queue = chunk.rest;
        state = chunk.state;
      }
      expect(rebuilt).toBe(input);
    }
  });

  it('wraps plain output whole, and leaves output that synchronizes itself as it is', () => {
    expect(nextChunk('one\r\ntwo\r\n', 1_000, 'ground')).toEqual({ write: `${begin}one\r\ntwo\r\n${end}`, rest: '', state: 'ground' });
    expect(nextChunk('abcdef', 4, 'ground')).toEqual({ write: `${begin}abcd${end}`, rest: 'ef', state: 'ground' });
    const own = `${begin}frame${end}`;
    expect(nextChunk(own, 1_000, 'ground')).toEqual({ write: own, rest: '', state: 'ground' });
  });

  it('holds back a sequence still arriving, then passes it on unwrapped when it is all there is', () => {
    const first = nextChunk('text\x1b[3', 1_000, 'ground');
    expect(first).toEqual({ write: `${begin}text${end}`, rest: '\x1b[3', state: 'ground' });
    const second = nextChunk(first.rest, 1_000, first.state);
    expect(second).toEqual({ write: '\x1b[3', rest: '', state: 'csi' });
    // The rest of it arrives: only its end goes unwrapped, then wrapping resumes.
    const third = nextChunk('1mgreen', 1_000, second.state);
    expect(third).toEqual({ write: '1m', rest: 'green', state: 'ground' });
    expect(nextChunk(third.rest, 1_000, third.state).write).toBe(`${begin}green${end}`);
  });

  it('passes a sequence longer than a chunk unwrapped, piece by piece, and CAN ends any sequence', () => {
    const image = `\x1b]1337;File=inline=1:${'A'.repeat(100)}\x07after`;
    let chunk = nextChunk(image, 30, 'ground');
    expect(chunk).toMatchObject({ write: image.slice(0, 30), state: 'osc' });
    chunk = nextChunk(chunk.rest, 200, chunk.state);
    expect(chunk.write.endsWith('\x07')).toBe(true);
    expect(chunk.state).toBe('ground');
    expect(chunk.rest).toBe('after');
    expect(nextChunk('\x18plain', 1_000, 'osc')).toEqual({ write: '\x18', rest: 'plain', state: 'ground' });
  });
});
