/*
 * A parser for POSIX shell command lines, as far as judging their risk needs: lists (`;`, `&`,
 * newlines), and-or chains, pipelines, simple commands with assignments, words and redirections,
 * subshells and groups, command and process substitutions (parsed recursively), and the compound
 * keywords (if, for, while, case...) whose inner commands are parsed like any others. It quotes as
 * the shell does and never expands or runs anything.
 */

export interface Word {
  /** The word with quotes removed; substitutions are left as written. */
  readonly text: string;
  /** Command lines inside `$(...)`, backticks, `<(...)` and `>(...)`. */
  readonly substitutions: readonly Script[];
  /** Unquoted `$VAR`, `${...}`, `$((...))`, globs, `~` or braces: the value is known only when run. */
  readonly expands: boolean;
  readonly quoted: boolean;
}

export type RedirectOperator = '>' | '>>' | '>|' | '<' | '<<' | '<<-' | '<<<' | '<>' | '>&' | '<&' | '&>' | '&>>';

export interface Redirect {
  readonly operator: RedirectOperator;
  readonly fd: number | null;
  readonly target: Word;
}

export type Command =
  | {
      readonly kind: 'simple';
      readonly assignments: readonly Word[];
      readonly words: readonly Word[];
      readonly redirects: readonly Redirect[];
    }
  | { readonly kind: 'subshell' | 'group'; readonly body: Script; readonly redirects: readonly Redirect[] };

export interface Pipeline {
  readonly negated: boolean;
  readonly commands: readonly Command[];
}

export interface AndOr {
  readonly pipelines: readonly Pipeline[];
  readonly operators: ReadonlyArray<'&&' | '||'>;
}

export interface Script {
  readonly items: ReadonlyArray<{ readonly andOr: AndOr; readonly background: boolean }>;
}

export class ShellSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShellSyntaxError';
  }
}

type Token =
  | { readonly type: 'word'; readonly word: Word }
  | { readonly type: 'op'; readonly value: string; readonly fd: number | null }
  | { readonly type: 'newline' };

const operators = [
  '&>>',
  '<<<',
  '<<-',
  '&&',
  '||',
  ';;',
  '>>',
  '<<',
  '>|',
  '<>',
  '>&',
  '<&',
  '&>',
  '|&',
  ';',
  '&',
  '|',
  '(',
  ')',
  '<',
  '>',
];
const keywords = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'for',
  'in',
  'while',
  'until',
  'do',
  'done',
  'case',
  'esac',
  'function',
  'select',
  '!',
  '{',
  '}',
  '[[',
  ']]',
]);
const isRedirect = (value: string): value is RedirectOperator =>
  ['>', '>>', '>|', '<', '<<', '<<-', '<<<', '<>', '>&', '<&', '&>', '&>>'].includes(value);

/** Whether a command substitution starts here: `$(` (but not the arithmetic `$((`) or a backquote. */
const substitutionAt = (source: string, index: number): boolean =>
  source[index] === '`' || (source[index] === '$' && source[index + 1] === '(' && source[index + 2] !== '(');

/** Finds the end of a `$(`...`)` or `<(`...`)` body, honouring quotes and nesting. */
function matchParen(source: string, start: number): number {
  let depth = 1;
  for (let index = start; index < source.length; index += 1) {
    const char = source[index];
    if (char === '\\') index += 1;
    else if (char === "'") {
      const end = source.indexOf("'", index + 1);
      if (end === -1) throw new ShellSyntaxError('unterminated quote');
      index = end;
    } else if (char === '"') {
      for (index += 1; index < source.length && source[index] !== '"'; index += 1) if (source[index] === '\\') index += 1;
    } else if (char === '(') depth += 1;
    else if (char === ')') {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  throw new ShellSyntaxError('unterminated substitution');
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < source.length) {
    const char = source[index] as string;
    if (char === ' ' || char === '\t') {
      index += 1;
      continue;
    }
    if (char === '\\' && source[index + 1] === '\n') {
      index += 2;
      continue;
    }
    if (char === '\n' || char === '\r') {
      tokens.push({ type: 'newline' });
      index += 1;
      continue;
    }
    if (char === '#') {
      while (index < source.length && source[index] !== '\n') index += 1;
      continue;
    }
    const fdMatch = /^(\d+)(?=[<>])/.exec(source.slice(index));
    const opStart = fdMatch ? index + (fdMatch[1] as string).length : index;
    const op = operators.find((candidate) => source.startsWith(candidate, opStart));
    if (op && (fdMatch === null || isRedirect(op) || op === '>&' || op === '<&')) {
      if (!(op === '<' || op === '>') || source[opStart + 1] !== '(') {
        tokens.push({ type: 'op', value: op, fd: fdMatch ? Number(fdMatch[1]) : null });
        index = opStart + op.length;
        continue;
      }
    }
    // A word: runs until an unquoted blank or operator.
    let text = '';
    const substitutions: Script[] = [];
    let expands = false;
    let quoted = false;
    /** Parses `$(...)` or a backquoted command at `start`, keeps it in the word as written, and returns where it ends. */
    const takeSubstitution = (start: number): number => {
      const backquoted = source[start] === '`';
      const end = backquoted ? source.indexOf('`', start + 1) : matchParen(source, start + 2);
      if (end === -1) throw new ShellSyntaxError('unterminated backquote');
      substitutions.push(parseScript(source.slice(start + (backquoted ? 1 : 2), end)));
      text += source.slice(start, end + 1);
      return end + 1;
    };
    while (index < source.length) {
      const current = source[index] as string;
      if (current === ' ' || current === '\t' || current === '\n' || current === '\r') break;
      if ((current === '<' || current === '>') && source[index + 1] === '(') {
        const end = matchParen(source, index + 2);
        substitutions.push(parseScript(source.slice(index + 2, end)));
        text += source.slice(index, end + 1);
        index = end + 1;
        continue;
      }
      if (operators.some((candidate) => source.startsWith(candidate, index)) && current !== '{' && current !== '}') break;
      if (current === '\\') {
        text += source[index + 1] ?? '';
        quoted = true;
        index += 2;
      } else if (current === "'") {
        const end = source.indexOf("'", index + 1);
        if (end === -1) throw new ShellSyntaxError('unterminated single quote');
        text += source.slice(index + 1, end);
        quoted = true;
        index = end + 1;
      } else if (current === '"') {
        quoted = true;
        index += 1;
        while (index < source.length && source[index] !== '"') {
          const inner = source[index] as string;
          if (inner === '\\' && '"\\$`\n'.includes(source[index + 1] ?? '')) {
            text += source[index + 1];
            index += 2;
          } else if (substitutionAt(source, index)) {
            index = takeSubstitution(index);
          } else {
            if (inner === '$') expands = true;
            text += inner;
            index += 1;
          }
        }
        if (index >= source.length) throw new ShellSyntaxError('unterminated double quote');
        index += 1;
      } else if (substitutionAt(source, index)) {
        index = takeSubstitution(index);
      } else {
        if (current === '$' || current === '*' || current === '?' || current === '[' || (current === '~' && text === '') || current === '{')
          expands = true;
        text += current;
        index += 1;
      }
    }
    tokens.push({ type: 'word', word: { text, substitutions, expands, quoted } });
  }
  return tokens;
}

class Parser {
  private position = 0;
  private caseDepth = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token | undefined {
    return this.tokens[this.position];
  }

  private isOp(value: string): boolean {
    const token = this.peek();
    return token?.type === 'op' && token.value === value;
  }

  script(until?: string): Script {
    const items: Array<{ andOr: AndOr; background: boolean }> = [];
    for (;;) {
      while (this.peek()?.type === 'newline' || this.isOp(';') || this.isOp(';;')) this.position += 1;
      const token = this.peek();
      if (
        !token ||
        (until && token.type === 'op' && token.value === until) ||
        (until === '}' && token.type === 'word' && token.word.text === '}' && !token.word.quoted)
      )
        break;
      const andOr = this.andOr();
      const background = this.isOp('&');
      if (background) this.position += 1;
      items.push({ andOr, background });
    }
    return { items };
  }

  private andOr(): AndOr {
    const pipelines = [this.pipeline()];
    const ops: Array<'&&' | '||'> = [];
    while (this.isOp('&&') || this.isOp('||')) {
      ops.push((this.peek() as { value: '&&' | '||' }).value);
      this.position += 1;
      while (this.peek()?.type === 'newline') this.position += 1;
      pipelines.push(this.pipeline());
    }
    return { pipelines, operators: ops };
  }

  private pipeline(): Pipeline {
    let negated = false;
    const first = this.peek();
    if (first?.type === 'word' && first.word.text === '!' && !first.word.quoted) {
      negated = true;
      this.position += 1;
    }
    const commands = [this.command()];
    while (this.isOp('|') || this.isOp('|&')) {
      this.position += 1;
      while (this.peek()?.type === 'newline') this.position += 1;
      commands.push(this.command());
    }
    return { negated, commands };
  }

  private redirects(into: Redirect[]): void {
    for (let token = this.peek(); token?.type === 'op' && isRedirect(token.value); token = this.peek()) {
      this.position += 1;
      const target = this.peek();
      if (target?.type !== 'word') throw new ShellSyntaxError(`a redirection ${token.value} has no target`);
      this.position += 1;
      into.push({ operator: token.value as RedirectOperator, fd: token.fd, target: target.word });
    }
  }

  private command(): Command {
    if (this.isOp('(')) {
      this.position += 1;
      const body = this.script(')');
      if (!this.isOp(')')) throw new ShellSyntaxError('a subshell is not closed');
      this.position += 1;
      const redirects: Redirect[] = [];
      this.redirects(redirects);
      return { kind: 'subshell', body, redirects };
    }
    const start = this.peek();
    if (start?.type === 'word' && start.word.text === '{' && !start.word.quoted) {
      this.position += 1;
      const body = this.script('}');
      this.position += 1;
      const redirects: Redirect[] = [];
      this.redirects(redirects);
      return { kind: 'group', body, redirects };
    }
    const assignments: Word[] = [];
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    let keywordsSeen = 0;
    for (;;) {
      const token = this.peek();
      if (!token || token.type === 'newline') break;
      if (token.type === 'op') {
        if (isRedirect(token.value)) {
          this.redirects(redirects);
          continue;
        }
        const next = this.tokens[this.position + 1];
        // `name() { ...; }`: a function definition's parentheses.
        if (token.value === '(' && words.length === 1 && next?.type === 'op' && next.value === ')') {
          this.position += 2;
          words.length = 0;
          keywordsSeen += 1;
          continue;
        }
        // `pattern)` in a case: the pattern is not a command.
        if (token.value === ')' && this.caseDepth > 0 && words.length > 0) {
          this.position += 1;
          words.length = 0;
          keywordsSeen += 1;
          continue;
        }
        break;
      }
      this.position += 1;
      const text = token.word.text;
      if (words.length === 0 && !token.word.quoted && keywords.has(text)) {
        keywordsSeen += 1;
        if (text === 'case') {
          this.caseDepth += 1;
          this.skipHeader(['in']);
        } else if (text === 'esac') this.caseDepth = Math.max(0, this.caseDepth - 1);
        else if (text === 'for' || text === 'select') this.skipHeader([';', 'do']);
        continue;
      }
      if (words.length === 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) assignments.push(token.word);
      else words.push(token.word);
    }
    if (words.length === 0 && assignments.length === 0 && redirects.length === 0 && keywordsSeen === 0) {
      const next = this.peek();
      throw new ShellSyntaxError(`unexpected ${next ? (next.type === 'op' ? next.value : 'line break') : 'end of the command'}`);
    }
    return { kind: 'simple', assignments, words, redirects };
  }

  /** Skips a loop or case header (`for x in a b`, `case $x in`) up to its end. */
  private skipHeader(ends: readonly string[]): void {
    for (let token = this.peek(); token; token = this.peek()) {
      if (token.type === 'newline' || (token.type === 'op' && ends.includes(token.value))) return;
      this.position += 1;
      if (token.type === 'word' && ends.includes(token.word.text)) return;
    }
  }

  done(): boolean {
    return this.position >= this.tokens.length;
  }

  rest(): string {
    const token = this.peek();
    return token?.type === 'op' ? token.value : token?.type === 'word' ? token.word.text : 'line break';
  }
}

/** Parses a command line; throws `ShellSyntaxError` when it is not valid shell. */
export function parseScript(source: string): Script {
  const parser = new Parser(tokenize(source));
  const script = parser.script();
  if (!parser.done()) throw new ShellSyntaxError(`unexpected ${parser.rest()}`);
  return script;
}

/** Every simple command in a script, substitutions and nested scripts included. */
export function simpleCommands(script: Script): Array<Extract<Command, { kind: 'simple' }>> {
  const found: Array<Extract<Command, { kind: 'simple' }>> = [];
  const visitWord = (word: Word): void => word.substitutions.forEach((inner) => visit(inner));
  const visit = (current: Script): void => {
    for (const { andOr } of current.items) {
      for (const pipeline of andOr.pipelines) {
        for (const command of pipeline.commands) {
          command.redirects.forEach((redirect) => visitWord(redirect.target));
          if (command.kind === 'simple') {
            found.push(command);
            command.assignments.forEach(visitWord);
            command.words.forEach(visitWord);
          } else visit(command.body);
        }
      }
    }
  };
  visit(script);
  return found;
}
