/*
 * The files a sed script writes and the commands it runs, read the way GNU sed splits a script into commands.
 */

/** What a sed script does beyond editing its input: files it writes, and commands it runs (null: the pattern space). */
export interface SedEffects {
  readonly writes: readonly string[];
  readonly runs: readonly (string | null)[];
}

/** Reads sed scripts in one pass, the way GNU sed splits them into commands, for the ones that write or run. */
class SedScanner {
  private index = 0;
  readonly writes: string[] = [];
  readonly runs: (string | null)[] = [];

  constructor(private readonly script: string) {}

  private get char(): string {
    return this.script[this.index] ?? '';
  }

  /** To the end of the line: a file name, a label, the text of `a`, `i`, `c`. */
  private restOfLine(): string {
    const end = this.script.indexOf('\n', this.index);
    const text = this.script.slice(this.index, end === -1 ? undefined : end);
    this.index = end === -1 ? this.script.length : end + 1;
    return text.trim();
  }

  /** Past a regular expression or replacement ending at `delimiter`, backslash escapes included. */
  private skipDelimited(delimiter: string): void {
    while (this.index < this.script.length) {
      const char = this.char;
      this.index += char === '\\' ? 2 : 1;
      if (char === delimiter) return;
    }
  }

  private skipAddress(): void {
    for (;;) {
      const char = this.char;
      if (/[0-9$~+!,\s]/.test(char) && char !== '\n') this.index += 1;
      else if (char === '/') {
        this.index += 1;
        this.skipDelimited('/');
        while (this.char === 'I' || this.char === 'M') this.index += 1;
      } else if (char === '\\' && this.index + 1 < this.script.length) {
        const delimiter = this.script[this.index + 1] as string;
        this.index += 2;
        this.skipDelimited(delimiter);
      } else return;
    }
  }

  private substitute(): void {
    const delimiter = this.char;
    if (delimiter === '' || delimiter === '\n' || delimiter === '\\') return;
    this.index += 1;
    this.skipDelimited(delimiter);
    this.skipDelimited(delimiter);
    while (this.index < this.script.length) {
      const flag = this.char;
      if (flag === 'w') {
        this.index += 1;
        this.writes.push(this.restOfLine());
        return;
      }
      if (flag === 'e') this.runs.push(null);
      if (!/[A-Za-z0-9]/.test(flag)) return;
      this.index += 1;
    }
  }

  scan(): SedEffects {
    while (this.index < this.script.length) {
      const start = this.index;
      this.skipAddress();
      const command = this.char;
      this.index += 1;
      switch (command) {
        case 'w':
        case 'W':
          this.writes.push(this.restOfLine());
          break;
        case 'e': {
          // `e` alone (before `;`, a newline or the end) runs the pattern space; `e command` runs the command.
          while (this.char === ' ' || this.char === '\t') this.index += 1;
          if (this.char === ';' || this.char === '\n' || this.char === '' || this.char === '}') this.runs.push(null);
          else this.runs.push(this.restOfLine());
          break;
        }
        case 's':
          this.substitute();
          break;
        case 'y':
          if (this.char !== '' && this.char !== '\\') {
            const delimiter = this.char;
            this.index += 1;
            this.skipDelimited(delimiter);
            this.skipDelimited(delimiter);
          }
          break;
        case 'a':
        case 'i':
        case 'c':
        case 'r':
        case 'R':
          this.restOfLine();
          break;
        case ':':
        case 'b':
        case 't':
        case 'T':
          // A label ends at `;` or the end of the line.
          while (this.index < this.script.length && this.char !== ';' && this.char !== '\n') this.index += 1;
          break;
        default:
          break;
      }
      if (this.index === start) this.index += 1;
    }
    return { writes: this.writes, runs: this.runs };
  }
}

/** The files a sed script writes (`w`, `W`, `s///w`) and the commands it runs (`e`, `s///e`). */
export function sedEffects(script: string): SedEffects {
  return new SedScanner(script).scan();
}
