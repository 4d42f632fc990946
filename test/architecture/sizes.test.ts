import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { maxFileLines, maxFunctionLines, oversized, oversizedIn } from './sizes';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('the size of the source', () => {
  it(`has no file over ${maxFileLines} lines and no function over ${maxFunctionLines} in src`, () => {
    const report = oversized(projectRoot).map(
      (found) => `\n  ${found.file}:${found.line} ${found.name ?? '(the file)'}: ${found.lines} lines`,
    );
    expect(report, `split these into pieces of their own:${report.join('')}`).toEqual([]);
  });

  it('measures functions of every kind, by the name they are bound to, and the file itself', () => {
    const body = (lines: number): string => Array.from({ length: lines - 2 }, (_, index) => `  const v${index} = ${index};`).join('\n');
    const source = [
      `export function declared() {\n${body(151)}\n}`,
      `const arrow = () => {\n${body(151)}\n};`,
      `class Holder {\n  method() {\n${body(151)}\n  }\n}`,
      `export function short() {\n${body(150)}\n}`,
      `export const Component = () => (\n  <div>\n${body(150)}\n  </div>\n);`,
    ].join('\n');
    const found = oversizedIn('src/example.tsx', source);
    expect(found.map((item) => [item.name, item.lines])).toEqual([
      [null, source.split('\n').length],
      ['declared', 151],
      ['arrow', 151],
      ['method', 151],
      ['Component', 152],
    ]);
  });
});
