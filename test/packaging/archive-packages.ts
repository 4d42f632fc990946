/**
 * The packages in a packed app and how they hang together, for test/packaging/package-contents.test.ts: which
 * packages the archive's node_modules holds and where, which the built main process and preload load, what each of
 * those needs (resolved as Node resolves it, inside the archive), and which packages Vite bundles into the renderer.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { join } from 'node:path';
import { extractFile } from '@electron/asar';
import { build } from 'vite';
import viteConfig from '../../electron.vite.config';

/** One copy of a package in the archive: where it is, and what its package.json says. */
export interface ArchivedPackage {
  /** Its folder in the archive, e.g. `node_modules/a/node_modules/b`. */
  readonly path: string;
  readonly name: string;
  readonly version: string;
  /** Its dependencies, optional and peer ones included, with the versions they ask for. */
  readonly needs: Readonly<Record<string, string>>;
}

interface Manifest {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** The packages in an archive listed by @electron/asar's listPackage (paths without the leading slash), by folder. */
export function archivedPackages(archive: string, files: readonly string[]): Map<string, ArchivedPackage> {
  const packages = new Map<string, ArchivedPackage>();
  for (const file of files) {
    const folder = /^((?:.*\/)?node_modules\/(?:@[^/]+\/)?[^/@][^/]*)\/package\.json$/.exec(file)?.[1];
    if (folder === undefined) continue;
    const manifest = JSON.parse(extractFile(archive, file).toString('utf8')) as Manifest;
    packages.set(folder, {
      path: folder,
      name: folder.slice(folder.lastIndexOf('node_modules/') + 'node_modules/'.length),
      version: manifest.version ?? '',
      needs: { ...manifest.peerDependencies, ...manifest.optionalDependencies, ...manifest.dependencies },
    });
  }
  return packages;
}

/** The folders Node looks in for `name` from code in `folder` (a package's, or the app's own at the top), nearest first. */
function lookups(folder: string, name: string): string[] {
  const found: string[] = [];
  for (let at = folder; at !== '';) {
    found.push(`${at}/node_modules/${name}`);
    const cut = at.lastIndexOf('/node_modules/');
    at = cut < 0 ? '' : at.slice(0, cut);
  }
  found.push(`node_modules/${name}`);
  return found;
}

/** The copy of `name` that code in `folder` loads, as Node resolves it; undefined when the archive has none. */
export function resolveIn(packages: ReadonlyMap<string, ArchivedPackage>, folder: string, name: string): ArchivedPackage | undefined {
  for (const path of lookups(folder, name)) {
    const found = packages.get(path);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The copies loaded, directly or through what they need, when the app's own code loads `names`. */
export function reachableFrom(packages: ReadonlyMap<string, ArchivedPackage>, names: Iterable<string>): Set<string> {
  const reached = new Set<string>();
  const queue = [...names].flatMap((name) => resolveIn(packages, '', name) ?? []);
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    if (reached.has(next.path)) continue;
    reached.add(next.path);
    for (const name of Object.keys(next.needs)) {
      const needed = resolveIn(packages, next.path, name);
      if (needed !== undefined) queue.push(needed);
    }
  }
  return reached;
}

/** The package a module specifier names (`@scope/name/sub/path` gives `@scope/name`), or null for a relative path or Node's own. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || isBuiltin(specifier)) return null;
  const name = specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
  return /^(@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*$/.test(name) ? name : null;
}

/**
 * The packages built code loads at run time: what it imports (`from '…'`, `import('…')`) and what it requires or
 * resolves (`require('…')`, `require.resolve('…')`, `createRequire(…)('…')`, a template's fixed start included).
 */
export function packagesLoadedBy(code: string): Set<string> {
  const loads = [
    /(?:\bfrom|\bimport)\s*\(?\s*(['"])([^'"\s]+?)\1/g,
    /\b(?:require|createRequire\([^)]*\))(?:\.resolve)?\s*\(\s*(['"`])([^'"`\s]+?)\1/g,
  ];
  const names = new Set<string>();
  for (const pattern of loads) for (const match of code.matchAll(pattern)) names.add(packageOf(match[2] ?? '') ?? '');
  names.delete('');
  return names;
}

/** The packages whose modules Vite bundles into the renderer: its production build, made in memory. */
export async function packagesBundledIntoRenderer(): Promise<Set<string>> {
  // electron-vite's config is Vite's, one per process; the renderer's is a plain Vite config.
  const renderer = (viteConfig as { renderer: { build: object } }).renderer;
  const result = await build({ ...renderer, configFile: false, logLevel: 'silent', build: { ...renderer.build, write: false } });
  const names = new Set<string>();
  for (const { output } of [result].flat() as Array<{ output: Array<{ type: string; moduleIds?: string[] }> }>)
    for (const chunk of output)
      for (const id of chunk.moduleIds ?? []) {
        const name = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(id)?.[1];
        if (name !== undefined) names.add(name);
      }
  return names;
}

// semver ships without types here; satisfies() is all that is used, as npm itself decides with it.
const { satisfies } = createRequire(import.meta.url)('semver') as { satisfies: (version: string, range: string) => boolean };

/** A second copy of a package, and whether the version its users ask for rules out the copy they would get otherwise. */
export interface SecondCopy {
  readonly copy: ArchivedPackage;
  /** The copy its users would load without it, if any. */
  readonly outer: ArchivedPackage | undefined;
  /** The packages that load this copy, with the versions they ask for. */
  readonly users: ReadonlyArray<{ readonly path: string; readonly range: string }>;
  /** Whether some user asks for a version the outer copy is not (or there is no outer copy). */
  readonly needed: boolean;
}

/** Every copy of a package nested below another package, when a copy of the same name sits elsewhere too. */
export function secondCopies(packages: ReadonlyMap<string, ArchivedPackage>): SecondCopy[] {
  const copiesOf = new Map<string, number>();
  for (const { name } of packages.values()) copiesOf.set(name, (copiesOf.get(name) ?? 0) + 1);
  const result: SecondCopy[] = [];
  for (const copy of packages.values()) {
    const cut = copy.path.lastIndexOf('/node_modules/');
    if ((copiesOf.get(copy.name) ?? 0) < 2 || cut < 0) continue;
    const owner = copy.path.slice(0, cut);
    const outer = resolveIn(
      packages,
      owner.includes('/node_modules/') ? owner.slice(0, owner.lastIndexOf('/node_modules/')) : '',
      copy.name,
    );
    const users = [...packages.values()]
      .filter((user) => copy.name in user.needs && resolveIn(packages, user.path, copy.name) === copy)
      .map((user) => ({ path: user.path, range: user.needs[copy.name] ?? '' }));
    const needed = outer === undefined || users.some((user) => !satisfies(outer.version, user.range));
    result.push({ copy, outer, users, needed });
  }
  return result;
}

/** The size in bytes of a file, or of a folder with everything in it. */
export function sizeOf(path: string): number {
  const stats = lstatSync(path);
  if (!stats.isDirectory()) return stats.size;
  return readdirSync(path).reduce((total, entry) => total + sizeOf(join(path, entry)), 0);
}
