import { describe, expect, it } from 'vitest';
import { packagesLoadedBy, reachableFrom, resolveIn, secondCopies, type ArchivedPackage } from './archive-packages';

/** An archive's packages from `path@version` and what each needs. */
function archive(entries: Record<string, Record<string, string>>): Map<string, ArchivedPackage> {
  const packages = new Map<string, ArchivedPackage>();
  for (const [at, needs] of Object.entries(entries)) {
    const cut = at.lastIndexOf('@');
    const [path, version] = [at.slice(0, cut), at.slice(cut + 1)];
    packages.set(path, { path, name: path.slice(path.lastIndexOf('node_modules/') + 13), version, needs });
  }
  return packages;
}

describe("the package checks' reading of an archive", () => {
  const packages = archive({
    'node_modules/app-dep@1.0.0': { shared: '^2.0.0', 'needs-old': '1.0.0' },
    'node_modules/needs-old@1.0.0': { shared: '^1.0.0' },
    'node_modules/needs-old/node_modules/shared@1.4.0': {},
    'node_modules/shared@2.1.0': {},
    'node_modules/@scope/same@1.0.0': { shared: '^2.0.0' },
    'node_modules/stray@1.0.0': {},
  });

  it('resolves a package as Node does, nearest node_modules first', () => {
    expect(resolveIn(packages, 'node_modules/needs-old', 'shared')?.version).toBe('1.4.0');
    expect(resolveIn(packages, 'node_modules/app-dep', 'shared')?.version).toBe('2.1.0');
    expect(resolveIn(packages, '', 'missing')).toBeUndefined();
  });

  it('reaches what the loaded packages need, and not a package nothing needs', () => {
    expect([...reachableFrom(packages, ['app-dep'])].sort()).toEqual([
      'node_modules/app-dep',
      'node_modules/needs-old',
      'node_modules/needs-old/node_modules/shared',
      'node_modules/shared',
    ]);
  });

  it('accepts a second copy whose users ask for a version the outer copy is not, and flags one they could share', () => {
    expect(secondCopies(packages).map(({ copy, needed }) => [copy.path, needed])).toEqual([
      ['node_modules/needs-old/node_modules/shared', true],
    ]);
    const sharable = archive({
      'node_modules/needs-old@1.0.0': { shared: '^2.0.0' },
      'node_modules/needs-old/node_modules/shared@2.0.5': {},
      'node_modules/shared@2.1.0': {},
    });
    expect(secondCopies(sharable).map(({ copy, needed }) => [copy.path, needed])).toEqual([
      ['node_modules/needs-old/node_modules/shared', false],
    ]);
  });

  it('finds the packages built code loads, and not words in its text', () => {
    const code = [
      'import { z } from "zod";',
      'import Store from "electron-store";',
      'const pty = await import("node-pty");',
      'const wasm = require.resolve("tree-sitter-bash/tree-sitter-bash.wasm");',
      'const version = createRequire(import.meta.url)("@vscode/tree-sitter-wasm/package.json").version;',
      'const grammar = require.resolve(`@vscode/tree-sitter-wasm/wasm/${name}`);',
      'import { join } from "node:path"; import fs from "fs"; import local from "./chunks/x.js";',
      '// sizes, from `type_traits` in ggml; "import from 42" is prose',
    ].join('\n');
    expect([...packagesLoadedBy(code)].sort()).toEqual([
      '@vscode/tree-sitter-wasm',
      'electron-store',
      'node-pty',
      'tree-sitter-bash',
      'zod',
    ]);
  });
});
