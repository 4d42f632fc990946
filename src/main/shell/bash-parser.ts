/*
 * Bash syntax trees from tree-sitter's bash grammar; a command line with a syntax error is refused, never judged safe.
 */

import { createRequire } from 'node:module';
import { Language, Parser, type Node } from 'web-tree-sitter';
import { WorkbenchError } from '../../shared/errors';

export type { Node as SyntaxNode } from 'web-tree-sitter';

/** A command line that is not valid bash (or that the grammar cannot read): it is never judged safe. */
export class ShellSyntaxError extends WorkbenchError {
  constructor(reason: string) {
    super('invalid_input', reason);
  }
}

/** Longest command line parsed; longer ones are refused rather than parsed slowly. */
const maxSourceLength = 20_000;

/**
 * Bash syntax trees from tree-sitter's bash grammar (WebAssembly, so no native build). Loading is
 * asynchronous and done once; parsing is synchronous and takes tens of microseconds for a command line.
 */
export class BashParser {
  private constructor(private readonly parser: Parser) {}

  static async load(): Promise<BashParser> {
    const require = createRequire(import.meta.url);
    await Parser.init();
    const bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
    const parser = new Parser();
    parser.setLanguage(bash);
    return new BashParser(parser);
  }

  /**
   * Parses a command line and hands its root to `use`; the tree is freed afterwards, so nodes must not
   * escape `use`. A line with a syntax error anywhere is refused with where it is.
   */
  parse<T>(source: string, use: (root: Node) => T): T {
    if (source.length > maxSourceLength) throw new ShellSyntaxError(`it is longer than ${maxSourceLength} characters`);
    const tree = this.parser.parse(source);
    if (!tree) throw new ShellSyntaxError('it could not be parsed');
    try {
      const root = tree.rootNode;
      if (root.hasError) throw new ShellSyntaxError(syntaxErrorAt(root, source));
      return use(root);
    } finally {
      tree.delete();
    }
  }
}

/** Where the first error or missing token is, in words. */
function syntaxErrorAt(root: Node, source: string): string {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.isMissing) return `it is not complete: "${node.type}" is missing at column ${node.startPosition.column + 1}`;
    if (node.type === 'ERROR') {
      const near = source.slice(node.startIndex, Math.min(node.endIndex, node.startIndex + 30));
      return `it is not valid shell near ${JSON.stringify(near)} (line ${node.startPosition.row + 1})`;
    }
    for (let index = node.childCount - 1; index >= 0; index -= 1) {
      const child = node.child(index);
      if (child?.hasError) stack.push(child);
    }
  }
  return 'it is not valid shell';
}
