import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { firstSentence, headerOf, mapEnd, mapStart, mappedFiles, moduleMap, withMap } from './module-map';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('the module map', () => {
  it('has a header for every source file, saying what the file is', () => {
    const missing = mappedFiles(projectRoot)
      .filter((file) => file.summary === null)
      .map((file) => file.path);
    expect(missing, 'open each of these files with a block comment saying what it is').toEqual([]);
  });

  it('is in the README as the layers and headers say (npm run docs writes it)', () => {
    const readme = readFileSync(`${projectRoot}README.md`, 'utf8');
    const start = readme.indexOf(mapStart);
    const end = readme.indexOf(mapEnd);
    expect(start, 'the README has the map').toBeGreaterThanOrEqual(0);
    expect(readme.slice(start, end + mapEnd.length)).toBe(moduleMap(projectRoot));
  });

  it('reads a header before the imports, in either comment style, and nothing else', () => {
    expect(headerOf('/*\n * The journal.\n * More.\n */\nimport x from "y";\n')).toBe('The journal. More.');
    expect(headerOf('/** Where a line stands. */\nexport const a = 1;\n')).toBe('Where a line stands.');
    expect(headerOf('#!/usr/bin/env node\n/* A script. */\n')).toBe('A script.');
    expect(headerOf('import x from "y";\n/* Not a header. */\n')).toBeNull();
    expect(headerOf('// A line comment is no header.\nexport {};\n')).toBeNull();
    expect(headerOf('/* */\n')).toBeNull();
  });

  it('takes the first sentence, not a full stop inside a name', () => {
    expect(firstSentence('Reads `a.ts` and `b.json`. Then more.')).toBe('Reads `a.ts` and `b.json`.');
    expect(firstSentence('No full stop at all')).toBe('No full stop at all');
  });

  it('replaces the map between its markers and refuses a README without them', () => {
    const readme = `# Title\n${mapStart}\nold\n${mapEnd}\nafter\n`;
    expect(withMap(readme, `${mapStart}\nnew\n${mapEnd}`)).toBe(`# Title\n${mapStart}\nnew\n${mapEnd}\nafter\n`);
    expect(() => withMap('# Title\n', 'map')).toThrow(/has no module map/);
  });
});
