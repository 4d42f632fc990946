import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { checkedFolders, cyclesIn, findCycles, importGraph } from './cycles';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('import cycles', () => {
  it('are none in src, test or bench', () => {
    const cycles = findCycles(projectRoot);
    const report = cycles.map((files) => `\n  ${files.join(', ')}`).join('');
    expect(cycles, `import cycles (the files on each line import one another):${report}`).toEqual([]);
  });

  it('are looked for in every checked folder', () => {
    const folders = new Set([...importGraph(projectRoot).keys()].map((file) => file.split('/')[0]));
    expect([...folders].sort()).toEqual([...checkedFolders].sort());
  });

  describe('over a small tree', () => {
    let folder: ReturnType<typeof temporaryFolder> | undefined;
    afterEach(() => folder?.remove());

    function tree(files: Record<string, string>): string {
      folder = temporaryFolder('workbench-cycles-');
      for (const [path, source] of Object.entries(files)) {
        mkdirSync(dirname(join(folder.path, path)), { recursive: true });
        writeFileSync(join(folder.path, path), source);
      }
      return folder.path;
    }

    it('finds a cycle of three files, through a .tsx file, a folder index and a type-only import', () => {
      const root = tree({
        'src/a.ts': "import { b } from './b';\nexport const a = b;\n",
        'src/b.tsx': "import { c } from './c';\nexport const b = c;\n",
        'src/c/index.ts': "import type { A } from '../a';\nexport const c: A | null = null;\nexport type A = number;\n",
        // Imports into the cycle, and out of it, are not part of it.
        'src/d.ts': "import { a } from './a';\nimport { e } from './e';\nexport const d = [a, e];\n",
        'src/e.ts': 'export const e = 1;\n',
      });
      expect(findCycles(root)).toEqual([['src/a.ts', 'src/b.tsx', 'src/c/index.ts']]);
    });

    it('finds a cycle in test code, and one that runs through test and bench code', () => {
      const root = tree({
        'src/app.ts': 'export const app = 1;\n',
        'test/server.ts': "import { route } from './route';\nimport { app } from '../src/app';\nexport const server = [route, app];\n",
        'test/route.ts': "import type { Recorded } from './server';\nexport const route = 1;\nexport type Recorded = number;\n",
        'test/helper.ts': "import { run } from '../bench/run';\nexport const helper = run;\n",
        'bench/run.ts': "import type { helper } from '../test/helper';\nexport const run: typeof helper | null = null;\n",
      });
      expect(findCycles(root)).toEqual([
        ['bench/run.ts', 'test/helper.ts'],
        ['test/route.ts', 'test/server.ts'],
      ]);
      // Where only src is looked at, neither is seen.
      expect(findCycles(root, ['src'])).toEqual([]);
    });

    it('finds nothing in a tree without cycles', () => {
      const root = tree({
        'src/a.ts': "import { b } from './b';\nimport { c } from './c';\nexport const a = [b, c];\n",
        'src/b.ts': "import { c } from './c';\nexport const b = c;\n",
        'src/c.ts': 'export const c = 1;\n',
      });
      expect(findCycles(root)).toEqual([]);
    });
  });

  it('reports each cycle apart, a file that imports itself included', () => {
    const graph = new Map([
      ['one.ts', ['two.ts']],
      ['two.ts', ['one.ts', 'three.ts']],
      ['three.ts', ['four.ts']],
      ['four.ts', ['three.ts']],
      ['five.ts', ['five.ts']],
      ['six.ts', ['one.ts']],
    ]);
    expect(cyclesIn(graph)).toEqual([['five.ts'], ['four.ts', 'three.ts'], ['one.ts', 'two.ts']]);
  });
});
