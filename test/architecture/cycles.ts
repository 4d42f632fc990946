import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { importsOf, sourceFiles } from './layers';

/** Files as paths from the project root (`src/...`, `test/...`), each with the files it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

const toProjectPath = (projectRoot: string, absolute: string): string => relative(projectRoot, absolute).split(sep).join('/');

/** The file a relative specifier names, the way the bundler finds it: `./x` is x.ts, x.tsx, x/index.ts or x/index.tsx. */
function resolveImport(known: ReadonlySet<string>, from: string, specifier: string): string | undefined {
  const base = join(dirname(from), specifier).split(sep).join('/');
  const stem = base.replace(/\.js$/, '');
  return [base, `${stem}.ts`, `${stem}.tsx`, `${base}/index.ts`, `${base}/index.tsx`].find((candidate) => known.has(candidate));
}

/**
 * The folders checked: the app, and its tests and benchmarks, whose helpers are shared code too (a cycle among them
 * is as hard to follow as one in the app). One graph of all three, so a cycle through two of them is found as well.
 */
export const checkedFolders: readonly string[] = ['src', 'test', 'bench'];

/**
 * Every relative import between the .ts and .tsx files in the given folders under a project root (those that exist).
 * Type-only imports count: two modules that need each other's types still cannot be understood, moved or tested apart.
 */
export function importGraph(projectRoot: string, folders: readonly string[] = checkedFolders): ImportGraph {
  const files = folders
    .map((folder) => resolve(projectRoot, folder))
    .filter((folder) => existsSync(folder))
    .flatMap((folder) => sourceFiles(folder));
  const known = new Set(files.map((file) => toProjectPath(projectRoot, file)));
  const graph = new Map<string, string[]>();
  for (const absolute of files) {
    const file = toProjectPath(projectRoot, absolute);
    const targets = importsOf(readFileSync(absolute, 'utf8'))
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => resolveImport(known, file, specifier))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * The import cycles of a graph: its strongly connected components (Tarjan) of more than one file, or of one file
 * that imports itself. Each is its files in order, and the cycles are sorted, so a report reads the same every run.
 */
export function cyclesIn(graph: ImportGraph): string[][] {
  // Each visited file's discovery number and the lowest number it reaches through files still on the stack.
  const marks = new Map<string, { readonly index: number; lowest: number }>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];

  const visit = (file: string): void => {
    const mark = { index: marks.size, lowest: marks.size };
    marks.set(file, mark);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      const seen = marks.get(target);
      if (seen === undefined) {
        visit(target);
        mark.lowest = Math.min(mark.lowest, marks.get(target)?.lowest ?? mark.lowest);
      } else if (onStack.has(target)) {
        mark.lowest = Math.min(mark.lowest, seen.index);
      }
    }
    if (mark.lowest !== mark.index) return;
    const component = stack.splice(stack.indexOf(file));
    for (const member of component) onStack.delete(member);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort());
  };

  for (const file of [...graph.keys()].sort()) if (!marks.has(file)) visit(file);
  return cycles.sort((left, right) => (left[0] ?? '').localeCompare(right[0] ?? ''));
}

/** Every import cycle among the files in the checked folders (`src`, `test`, `bench`) under a project root. */
export function findCycles(projectRoot: string, folders: readonly string[] = checkedFolders): string[][] {
  return cyclesIn(importGraph(projectRoot, folders));
}
