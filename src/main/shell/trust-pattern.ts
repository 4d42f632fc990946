/*
 * The trust pattern made for a command the person approved, and whether a grant's pattern covers a command.
 */

import type { GrantPattern } from '../../shared/domain';
import type { BashParser, SyntaxNode } from './bash-parser';

/** A word that is the same text whenever it runs: no expansion, substitution, pattern, `~` or braces. */
function plainWord(node: SyntaxNode): string | null {
  switch (node.type) {
    case 'word':
    case 'number':
      // `~` expands at the start of a word and after `=` or `:`; inside one (`HEAD~2`) it is plain text.
      return /[*?[{\\$`]|(^|[=:])~/.test(node.text) ? null : node.text;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string':
      if (!node.namedChildren.every((child) => child?.type === 'string_content')) return null;
      return /[\\$`]/.test(node.text) ? null : node.text.slice(1, -1);
    case 'concatenation': {
      let text = '';
      for (const child of node.children) {
        const part = child ? plainWord(child) : null;
        if (part === null) return null;
        text += part;
      }
      return text;
    }
    default:
      return null;
  }
}

/** One plain simple command: no redirection, substitution, expansion, assignment, pipe, list or background. */
function plainWords(parser: BashParser, command: string): string[] | null {
  try {
    return parser.parse(command, (root) => {
      if (root.childCount !== 1) return null;
      const only = root.child(0);
      if (only?.type !== 'command') return null;
      const words: string[] = [];
      for (const child of only.namedChildren) {
        if (!child) return null;
        if (child.type === 'command_name') {
          const name = child.namedChildren[0];
          const text = name && child.namedChildren.length === 1 ? plainWord(name) : null;
          if (text === null) return null;
          words.push(text);
        } else {
          const text = plainWord(child);
          // Anything else in the command (an assignment, a redirection) is not a plain word.
          if (text === null || child.type === 'variable_assignment') return null;
          words.push(text);
        }
      }
      return words.length > 0 ? words : null;
    });
  } catch {
    return null;
  }
}

const subcommandPattern = /^[a-z][a-z0-9-]*$/;

/**
 * The trust pattern for a command someone approved. A plain simple command gives its program and,
 * when the second word is a subcommand (`git show`, `npm test`), that too; anything else is trusted
 * only as its exact text. A pattern never covers operators, redirections or substitutions.
 */
export function commandTrustPattern(parser: BashParser, command: string): GrantPattern {
  const words = plainWords(parser, command);
  if (!words) return { kind: 'exact', arguments: command };
  const [program, second] = words as [string, string | undefined];
  return { kind: 'command_prefix', words: second !== undefined && subcommandPattern.test(second) ? [program, second] : [program] };
}

/** Whether a grant's pattern covers a command: a plain simple command that starts with the same words. */
export function commandTrustCovers(parser: BashParser, pattern: GrantPattern, command: string): boolean {
  if (pattern.kind === 'exact') return pattern.arguments === command;
  if (pattern.kind !== 'command_prefix') return false;
  const words = plainWords(parser, command);
  return words !== null && pattern.words.every((word, index) => words[index] === word);
}
