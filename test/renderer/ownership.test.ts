import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const rendererSource = join(import.meta.dirname, '../../src/renderer/src');
/** The one file that calls the browser's scheduling functions, to wrap each as a disposable. */
const wrappers = 'disposables.ts';

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** What makes a resource nobody owns unless it goes through a `DisposableStore` or the wrappers. */
const unowned: ReadonlyArray<[string, RegExp]> = [
  ['a timer', /\b(setTimeout|setInterval)\s*\(/],
  ['an animation frame', /\brequestAnimationFrame\s*\(/],
  ['an idle callback', /\brequestIdleCallback\s*\(/],
  ['a listener', /\.addEventListener\s*\(/],
  ['an observer', /\bnew\s+\w*Observer\s*\(/],
];

describe('resources in the renderer', () => {
  it('every timer, frame, idle callback, listener and observer is made through a disposable store', () => {
    const found: string[] = [];
    for (const file of sourceFiles(rendererSource)) {
      const name = relative(rendererSource, file);
      if (name === wrappers) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (/^\s*(\/\/|\*)/.test(line)) return;
          for (const [what, pattern] of unowned) if (pattern.test(line)) found.push(`${name}:${index + 1}: ${what}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('every subscription to main is made a disposable by `subscription`', () => {
    const found: string[] = [];
    for (const file of sourceFiles(rendererSource)) {
      const text = readFileSync(file, 'utf8');
      const subscriptions = text.match(/\.on\[/g)?.length ?? 0;
      const owned = text.match(/subscription\(\s*[\w.]+\.on\[/g)?.length ?? 0;
      if (subscriptions !== owned) found.push(`${relative(rendererSource, file)}: ${subscriptions - owned} of ${subscriptions} not owned`);
    }
    expect(found).toEqual([]);
  });
});
