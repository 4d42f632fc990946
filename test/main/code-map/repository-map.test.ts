import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CodeMaps } from '../../../src/main/code-map/code-maps';
import { RepositoryMaps, identifiersOf } from '../../../src/main/code-map/repository-map';
import { mapBudget } from '../../../src/main/agent/context/recalled-memories';
import { CancelledError } from '../../../src/shared/errors';
import { WorkspaceFiles } from '../../../src/main/workspace/workspace-files';
import { temporaryFolder } from '../../helpers';

const opened: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const folder of opened.splice(0)) folder.remove();
});

/** A workspace of `count` small TypeScript files, each defining a function that calls the one before. */
function workspace(count: number): string {
  const folder = temporaryFolder('workbench-repository-map-');
  opened.push(folder);
  const root = join(folder.path, 'ws');
  mkdirSync(join(root, 'src'), { recursive: true });
  for (let index = 0; index < count; index += 1)
    writeFileSync(
      join(root, 'src', `step${index}.ts`),
      `export function step${index}(value: number): number {\n  return ${index === 0 ? 'value' : `step${index - 1}(value)`} + 1;\n}\n`,
    );
  return root;
}

const request = (workspacePath: string, message: string, signal = new AbortController().signal) => ({
  workspacePath,
  chatFiles: [],
  attachedFiles: [],
  message,
  budget: 400,
  tokens: (chars: number) => Math.ceil(chars / 4),
  signal,
});

const mapsOver = (waitMs?: number): RepositoryMaps =>
  new RepositoryMaps({
    maps: new CodeMaps({ dataDir: null, filesOf: (path) => new WorkspaceFiles(path) }),
    ...(waitMs === undefined ? {} : { waitMs }),
  });

describe('the repository map for a message', () => {
  it('renders the definitions within the budget, the named one first', async () => {
    const root = workspace(30);
    const result = await mapsOver().render(request(root, 'Why does step7 add one?'));
    expect(result.kind).toBe('map');
    if (result.kind !== 'map') return;
    expect(result.text.split('\n').slice(0, 2)).toEqual(['src/step7.ts:', '    1│ export function step7(value: number): number {']);
    expect(Math.ceil(result.text.length / 4)).toBeLessThanOrEqual(400);
    expect(result.indexed).toBe(30);
  });

  it('says the index is not ready when a first index outlasts the wait, and gives the map to a later message', async () => {
    const root = workspace(400);
    const maps = mapsOver(0);
    const first = await maps.render(request(root, 'step3'));
    expect(first.kind).toBe('indexing');
    let later = first;
    for (let attempt = 0; attempt < 200 && later.kind !== 'map'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      later = await maps.render(request(root, 'step3'));
    }
    expect(later.kind).toBe('map');
  });

  it('is empty with a note for a workspace that is gone, and stops with the turn', async () => {
    const root = workspace(2);
    const maps = mapsOver();
    rmSync(root, { recursive: true });
    const gone = await maps.render(request(root, 'anything'));
    expect(gone.kind).toBe('empty');
    if (gone.kind === 'empty') expect(gone.note).toMatch(/^No code map: /);

    const other = workspace(200);
    const stop = new AbortController();
    stop.abort();
    await expect(mapsOver(10_000).render(request(other, 'step1', stop.signal))).rejects.toBeInstanceOf(CancelledError);
  });

  it('takes no room on a window too small for it to be of use, and names only identifiers', () => {
    expect(mapBudget(1024, 0.06)).toBe(0);
    expect(mapBudget(8192, 0.06)).toBe(491);
    expect(mapBudget(1_000_000, 0.2)).toBe(4096);
    expect([...identifiersOf('Why does `parseArgs` fail in cli.ts? a b it')]).toEqual(['Why', 'does', 'parseArgs', 'fail', 'cli']);
  });
});
