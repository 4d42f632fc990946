import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../electron-builder.config';
import { linuxTargets } from '../../build/linux-targets';
import { PackagingSetupError } from '../../build/packaging-error';

const projectRoot = resolve(import.meta.dirname, '../..');

describe('the Linux packages', () => {
  it('are an AppImage and a .tar.gz when package.json has no homepage', () => {
    expect(linuxTargets({ name: 'agent-workbench', version: '1.0.0' })).toEqual(['AppImage', 'tar.gz']);
  });

  it('add a .deb once package.json has a homepage, which the .deb names as the project address', () => {
    expect(linuxTargets({ name: 'agent-workbench', homepage: 'https://example.org/workbench' })).toEqual(['AppImage', 'tar.gz', 'deb']);
  });

  it('follow the project’s own package.json', () => {
    const manifest = JSON.parse(readFileSync(resolve(projectRoot, 'package.json'), 'utf8')) as { homepage?: string };
    expect(config.linux?.target).toEqual(manifest.homepage === undefined ? ['AppImage', 'tar.gz'] : ['AppImage', 'tar.gz', 'deb']);
  });

  it('refuse a homepage that is empty or not text, saying what is wrong', () => {
    expect(() => linuxTargets({ homepage: '  ' })).toThrow(PackagingSetupError);
    expect(() => linuxTargets({ homepage: '  ' })).toThrow(/homepage in package\.json is empty/);
    expect(() => linuxTargets({ homepage: 42 })).toThrow(/homepage in package\.json must be a string/);
    expect(() => linuxTargets(null)).toThrow(PackagingSetupError);
  });
});
