import type { GrantPattern } from '../../shared/domain';

/** What a command line holds beyond plain words. Any of these makes it more than a simple command. */
export type ShellFeature = 'chain' | 'pipe' | 'redirect' | 'background' | 'substitution' | 'subshell' | 'newline' | 'glob' | 'variable' | 'unterminated';

export interface ShellWords {
  readonly words: readonly string[];
  readonly features: ReadonlySet<ShellFeature>;
}

/**
 * Splits a command line into words the way a POSIX shell quotes them, and notes every operator,
 * redirection, substitution and expansion it contains. It does not run or expand anything.
 */
export function shellWords(command: string): ShellWords {
  const words: string[] = [];
  const features = new Set<ShellFeature>();
  let current = '';
  let inWord = false;
  const push = (): void => {
    if (inWord) words.push(current);
    current = '';
    inWord = false;
  };
  for (let index = 0; index < command.length; index += 1) {
    const char = command[index] as string;
    const next = command[index + 1];
    if (char === "'") {
      const end = command.indexOf("'", index + 1);
      if (end === -1) {
        features.add('unterminated');
        current += command.slice(index + 1);
        inWord = true;
        break;
      }
      current += command.slice(index + 1, end);
      inWord = true;
      index = end;
    } else if (char === '"') {
      let end = index + 1;
      for (; end < command.length; end += 1) {
        const inner = command[end];
        if (inner === '\\') {
          end += 1;
          continue;
        }
        if (inner === '"') break;
        if (inner === '$') features.add(command[end + 1] === '(' ? 'substitution' : 'variable');
        if (inner === '`') features.add('substitution');
      }
      if (end >= command.length) features.add('unterminated');
      current += command.slice(index + 1, end).replace(/\\(["\\$`])/g, '$1');
      inWord = true;
      index = end;
    } else if (char === '\\') {
      if (next === '\n') features.add('newline');
      current += next ?? '';
      inWord = true;
      index += 1;
    } else if (char === ' ' || char === '\t') {
      push();
    } else if (char === '\n' || char === '\r') {
      features.add('newline');
      push();
    } else if (char === ';') {
      features.add('chain');
      push();
    } else if (char === '&') {
      if (next === '&') {
        features.add('chain');
        index += 1;
      } else if (next === '>') {
        features.add('redirect');
        index += 1;
      } else features.add('background');
      push();
    } else if (char === '|') {
      if (next === '|') {
        features.add('chain');
        index += 1;
      } else features.add('pipe');
      push();
    } else if (char === '>' || char === '<') {
      features.add('redirect');
      // `>&2`, `<&0`: a descriptor duplication is part of the redirection, not a background job.
      if (next === '&') index += 1;
      push();
    } else if (char === '$') {
      features.add(next === '(' ? 'substitution' : 'variable');
      current += char;
      inWord = true;
    } else if (char === '`') {
      features.add('substitution');
      current += char;
      inWord = true;
    } else if (char === '(' || char === ')' || char === '{' || char === '}') {
      features.add('subshell');
      push();
    } else {
      if (char === '*' || char === '?' || char === '[' || (char === '~' && !inWord)) features.add('glob');
      current += char;
      inWord = true;
    }
  }
  push();
  return { words, features };
}

/** A simple command: plain words only, nothing that chains, redirects, substitutes or expands. */
export function isSimpleCommand(parsed: ShellWords): boolean {
  return parsed.words.length > 0 && parsed.features.size === 0;
}

const subcommandPattern = /^[a-z][a-z0-9-]*$/;

/**
 * The trust pattern for a command someone approved. A simple command gives its program and, when
 * the second word is a subcommand (`git show`, `npm test`), that too; anything else is trusted only
 * as the exact text. A pattern never covers operators, redirections or substitutions.
 */
export function commandPattern(command: string): GrantPattern {
  const parsed = shellWords(command);
  if (!isSimpleCommand(parsed)) return { kind: 'exact', arguments: command };
  const [program, second] = parsed.words as [string, string | undefined];
  const words = second !== undefined && subcommandPattern.test(second) ? [program, second] : [program];
  return { kind: 'command_prefix', words };
}

/** Whether a grant's command pattern covers a command: it must be simple and start with the same words. */
export function commandCovered(pattern: GrantPattern, command: string): boolean {
  if (pattern.kind === 'exact') return pattern.arguments === command;
  const parsed = shellWords(command);
  if (!isSimpleCommand(parsed)) return false;
  return pattern.words.every((word, index) => parsed.words[index] === word);
}
