import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseDataFolder } from '../../../src/main/electron/data-folder';
import { temporaryFolder } from '../../helpers';

const development = { packaged: false, platform: 'linux' } as const;

describe('the data folder of a run', () => {
  const places = temporaryFolder('workbench-data-folder-');
  afterAll(() => places.remove());

  it("keeps the person's own folder when WORKBENCH_DATA_DIR is unset or empty", () => {
    expect(chooseDataFolder({}, development)).toEqual({ kind: 'default' });
    expect(chooseDataFolder({ WORKBENCH_DATA_DIR: '' }, development)).toEqual({ kind: 'default' });
  });

  it('moves a run from the electron binary to an existing folder named by its absolute path', () => {
    expect(chooseDataFolder({ WORKBENCH_DATA_DIR: places.path }, development)).toEqual({ kind: 'override', path: places.path });
    expect(chooseDataFolder({ WORKBENCH_DATA_DIR: `${places.path}/./` }, development)).toEqual({
      kind: 'override',
      path: `${places.path}/`,
    });
  });

  it('refuses a relative path, a missing folder, a file and a NUL, saying which and naming the value', () => {
    const file = join(places.path, 'a-file');
    writeFileSync(file, 'not a folder');
    const refusals = [
      ['data', 'it is not an absolute path'],
      [join(places.path, 'missing'), 'no folder is there'],
      [file, 'no folder is there'],
      [`${places.path}\0x`, 'it holds a NUL character'],
    ] as const;
    for (const [value, why] of refusals) {
      const choice = chooseDataFolder({ WORKBENCH_DATA_DIR: value }, development);
      expect(choice).toEqual({
        kind: 'refused',
        reason: `WORKBENCH_DATA_DIR must name an existing folder by its absolute path: ${why} (${JSON.stringify(value)}).`,
      });
    }
  });

  it('is ignored by the installed app, which says so and keeps its own folder', () => {
    const choice = chooseDataFolder({ WORKBENCH_DATA_DIR: places.path }, { ...development, packaged: true });
    expect(choice.kind).toBe('ignored');
    expect(choice.kind === 'ignored' && choice.reason).toContain('ignored by the installed app');
  });

  it("reads the path by the platform's rules: a drive path on Windows, a slash path elsewhere", () => {
    const folders = new Set(['C:\\Users\\ada\\smoke', '/tmp/smoke']);
    const isFolder = (path: string): boolean => folders.has(path);
    expect(chooseDataFolder({ WORKBENCH_DATA_DIR: 'C:\\Users\\ada\\smoke' }, { packaged: false, platform: 'win32', isFolder })).toEqual({
      kind: 'override',
      path: 'C:\\Users\\ada\\smoke',
    });
    expect(chooseDataFolder({ WORKBENCH_DATA_DIR: 'C:\\Users\\ada\\smoke' }, { packaged: false, platform: 'linux', isFolder }).kind).toBe(
      'refused',
    );
    expect(chooseDataFolder({ WORKBENCH_DATA_DIR: '/tmp/smoke' }, { packaged: false, platform: 'darwin', isFolder })).toEqual({
      kind: 'override',
      path: '/tmp/smoke',
    });
  });
});
