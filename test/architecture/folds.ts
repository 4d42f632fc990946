/*
 * The folds over the session's events, found by their types: every `switch` on the `type` of a value whose type is
 * the event union (`RuntimeEvent` in src/shared/events.ts) or a part of it, and whether it ends with a `never` check.
 */

import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import ts from 'typescript';

/** One switch over the session's events. */
export interface EventFold {
  /** Project-relative, with forward slashes. */
  readonly file: string;
  readonly line: number;
  /**
   * Whether its last clause is a `default` that assigns the switched value to a `never` (`const unhandled: never =
   * event`), so that an event type it does not list fails to compile.
   */
  readonly exhaustive: boolean;
}

/** A switch on `x.type` (or `x.y.type`) written in the source, before any type is known. */
const switchOnType = /switch\s*\(\s*[\w.]+\.type\s*\)/;

/** The files worth a type check: those with a switch on a `type` at all. */
function candidates(files: readonly string[]): string[] {
  return files.filter((file) => switchOnType.test(readFileSync(file, 'utf8')));
}

/** The members of the event union, as the checker knows them: a part of it (`Extract<…>`) has the same member types. */
function eventMembers(program: ts.Program, eventsFile: string): ReadonlySet<ts.Type> {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(eventsFile);
  const module = source && checker.getSymbolAtLocation(source);
  const symbol = module && checker.getExportsOfModule(module).find((exported) => exported.name === 'RuntimeEvent');
  if (!symbol) throw new Error(`${eventsFile} exports no RuntimeEvent`);
  const union = checker.getDeclaredTypeOfSymbol(symbol);
  return new Set(union.isUnion() ? union.types : [union]);
}

/** Whether a clause declares `const name: never = <the switched value>`. */
function assignsToNever(clause: ts.DefaultClause, switched: string, source: ts.SourceFile): boolean {
  return clause.statements.some((statement) => {
    const block = ts.isBlock(statement) ? statement.statements : [statement];
    return block.some(
      (inner) =>
        ts.isVariableStatement(inner) &&
        inner.declarationList.declarations.some(
          (declaration) => declaration.type?.kind === ts.SyntaxKind.NeverKeyword && declaration.initializer?.getText(source) === switched,
        ),
    );
  });
}

/**
 * Every switch over the session's events in `files` (absolute paths), with `eventsFile` the module that exports the
 * union. A switch over another union (a provider's stream events, a syntax tree's nodes) is not one, even where some of
 * its type names are the same.
 */
export function findEventFolds(projectRoot: string, files: readonly string[], eventsFile: string): EventFold[] {
  const program = ts.createProgram([...candidates(files), eventsFile], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const members = eventMembers(program, eventsFile);
  const folds: EventFold[] = [];
  for (const file of candidates(files)) {
    const source = program.getSourceFile(file);
    if (!source) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isSwitchStatement(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'type') {
        const switchedType = checker.getTypeAtLocation(node.expression.expression);
        const parts = switchedType.isUnion() ? switchedType.types : [switchedType];
        if (parts.every((part) => members.has(part))) {
          const last = node.caseBlock.clauses.at(-1);
          const switched = node.expression.expression.getText(source);
          folds.push({
            file: relative(projectRoot, file).split(sep).join('/'),
            line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
            exhaustive: last !== undefined && ts.isDefaultClause(last) && assignsToNever(last, switched, source),
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return folds;
}
