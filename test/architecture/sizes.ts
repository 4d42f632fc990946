/*
 * The size limits of the source: no file over 400 lines and no function over 150, found with the TypeScript parser.
 */

import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './layers';

export const maxFileLines = 400;
export const maxFunctionLines = 150;

/** A file or a function over its limit, with where it starts. */
export interface Oversized {
  readonly file: string;
  /** The function's name as it is written (or how it is bound); null for the file itself. */
  readonly name: string | null;
  readonly line: number;
  readonly lines: number;
}

/** The name a function goes by: its own, or the variable, property or export it is bound to. */
function nameOf(node: ts.SignatureDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  if (ts.isExportAssignment(parent)) return 'default';
  return '(anonymous)';
}

/** The files and functions of one source text over the limits. */
export function oversizedIn(file: string, source: string): Oversized[] {
  const found: Oversized[] = [];
  // Lines as `wc -l` counts them: a last line ending in a newline is not followed by another.
  const lines = source.split('\n').length - (source.endsWith('\n') ? 1 : 0);
  if (lines > maxFileLines) found.push({ file, name: null, line: 1, lines });
  const tree = ts.createSourceFile(
    file,
    source,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = tree.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = tree.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (last - first + 1 > maxFunctionLines) found.push({ file, name: nameOf(node), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

/** Every file and function of `src/` over the limits. */
export function oversized(projectRoot: string): Oversized[] {
  return sourceFiles(join(projectRoot, 'src'))
    .filter((path) => /\.tsx?$/.test(path) && !path.endsWith('.d.ts'))
    .flatMap((path) => oversizedIn(relative(projectRoot, path), readFileSync(path, 'utf8')));
}
