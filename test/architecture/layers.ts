import { readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** The layer rule of the design (section 2), as data the test and the lint config share. */
export type Layer = 'shared' | 'agent' | 'adapter' | 'electron-edge' | 'preload' | 'renderer';

export function layerOf(file: string): Layer {
  const path = file.split(sep).join('/');
  if (path.startsWith('src/shared/')) return 'shared';
  if (path.startsWith('src/main/agent/')) return 'agent';
  if (path === 'src/main/index.ts' || path.startsWith('src/main/electron/')) return 'electron-edge';
  if (path.startsWith('src/main/')) return 'adapter';
  if (path.startsWith('src/preload/')) return 'preload';
  if (path.startsWith('src/renderer/')) return 'renderer';
  throw new Error(`${file} is in no layer`);
}

/** Which layers each layer may import from. */
const allowedLayers: Record<Layer, readonly Layer[]> = {
  shared: ['shared'],
  agent: ['shared', 'agent'],
  adapter: ['shared', 'agent', 'adapter'],
  'electron-edge': ['shared', 'agent', 'adapter', 'electron-edge'],
  preload: ['shared', 'preload'],
  renderer: ['shared', 'renderer'],
};

const nativeAndPlatform = ['electron', 'electron-store', 'better-sqlite3', 'node-pty', 'conf', 'openai', '@anthropic-ai/sdk', 'ws'];
const isBuiltin = (name: string): boolean => name.startsWith('node:') || builtinModules.includes(name);

/** Whether a layer may import a package (not a relative path). */
function packageAllowed(layer: Layer, name: string, file: string): boolean {
  const root = name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : (name.split('/')[0] ?? name);
  switch (layer) {
    case 'shared':
      return root === 'zod';
    case 'agent':
      return root === 'zod' || isBuiltin(name);
    case 'adapter':
      return root !== 'electron' && root !== 'electron-store';
    case 'electron-edge':
      // Only the composition root and the window/IPC adapter folder may touch Electron itself.
      return root !== 'electron' || file === 'src/main/index.ts' || file.startsWith('src/main/electron/');
    case 'preload':
      return root === 'electron' || root === 'zod';
    case 'renderer':
      return !isBuiltin(name) && !nativeAndPlatform.includes(root);
  }
}

export interface Violation {
  readonly file: string;
  readonly specifier: string;
  readonly reason: string;
}

const importPattern =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

export function importsOf(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(importPattern)) {
    const specifier = match[1] ?? match[2] ?? match[3] ?? match[4];
    if (specifier) found.push(specifier);
  }
  return found;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

/** Every import in `src` that breaks the layer rule. */
export function findViolations(projectRoot: string): Violation[] {
  const violations: Violation[] = [];
  for (const absolute of sourceFiles(join(projectRoot, 'src'))) {
    const file = relative(projectRoot, absolute).split(sep).join('/');
    const layer = layerOf(file);
    for (const specifier of importsOf(readFileSync(absolute, 'utf8'))) {
      if (specifier.startsWith('.')) {
        const target = relative(projectRoot, resolve(dirname(absolute), specifier))
          .split(sep)
          .join('/');
        let targetLayer: Layer;
        try {
          targetLayer = layerOf(target.startsWith('src/') ? `${target}` : target);
        } catch {
          violations.push({ file, specifier, reason: 'imports from outside src/' });
          continue;
        }
        if (!allowedLayers[layer].includes(targetLayer))
          violations.push({ file, specifier, reason: `${layer} may not import ${targetLayer}` });
      } else if (!packageAllowed(layer, specifier, file)) {
        violations.push({ file, specifier, reason: `${layer} may not import the package ${specifier}` });
      }
    }
  }
  return violations;
}
