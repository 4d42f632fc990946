/*
 * `npm run docs`: writes the module map into the README from test/architecture/layers.ts and each file's header.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { moduleMap, withMap } from './module-map';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const path = `${projectRoot}README.md`;
const before = readFileSync(path, 'utf8');
const after = withMap(before, moduleMap(projectRoot));
if (after === before) console.log('README.md: the module map is up to date.');
else {
  writeFileSync(path, after);
  console.log('README.md: the module map was written.');
}
