import { closeSync, constants, mkdirSync, openSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultFolderAccess, noFollowAny, pathAccess } from '../../../src/main/workspace/folder-access';
import { temporaryFolder, thrownCode } from '../../helpers';
import { macos, macOsHeader, macOsHeaders, needs } from '../../platform';

it('picks O_NOFOLLOW_ANY for macOS', () => {
  expect(defaultFolderAccess('darwin').kind).toBe('nofollow-any');
});

it("uses the value of O_NOFOLLOW_ANY in the macOS SDK's sys/fcntl.h", needs(macOsHeaders), () => {
  const header = readFileSync(macOsHeader('sys/fcntl.h') ?? '', 'utf8');
  const defined = /^#define\s+O_NOFOLLOW_ANY\s+(0x[0-9a-fA-F]+)/m.exec(header)?.[1];
  expect(defined).toBeDefined();
  expect(Number(defined)).toBe(noFollowAny);
});

describe('O_NOFOLLOW_ANY on macOS', needs(macos), () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let base: string;
  beforeEach(() => {
    folder = temporaryFolder('workbench-nofollow-');
    // The temporary folder itself lies under /var, a link to /private/var: the walk starts from real paths.
    base = realpathSync.native(folder.path);
    mkdirSync(join(base, 'real', 'deep'), { recursive: true });
    writeFileSync(join(base, 'real', 'deep', 'file.txt'), 'text\n');
    symlinkSync(join(base, 'real'), join(base, 'link'));
    symlinkSync(join(base, 'real', 'deep', 'file.txt'), join(base, 'file-link'));
  });
  afterEach(() => folder.remove());

  const open = (path: string): string | undefined => thrownCode(() => closeSync(openSync(path, constants.O_RDONLY | noFollowAny)));

  it('opens a path with no link on it', () => {
    expect(open(join(base, 'real', 'deep', 'file.txt'))).toBeUndefined();
  });

  it('refuses a link at the last name', () => {
    expect(open(join(base, 'file-link'))).toBe('ELOOP');
  });

  it('refuses a link at a folder on the way, however deep the rest', () => {
    expect(open(join(base, 'link', 'deep', 'file.txt'))).toBe('ELOOP');
    expect(open(join(base, 'link', 'deep'))).toBe('ELOOP');
  });

  it('refuses, through the walk, a folder on the way that became a link after it was opened', () => {
    const access = pathAccess({ noFollowAny: true, holdFolders: true });
    const root = access.openRoot(base);
    const real = access.openFolder(root, 'real');
    const deep = access.openFolder(real, 'deep');
    try {
      // As a swap would leave it: the path the folders were opened by now goes through a link.
      const swapped = { ...deep, absolute: join(base, 'link', 'deep') };
      expect(thrownCode(() => closeSync(access.openEntry(swapped, 'file.txt', constants.O_RDONLY)))).toBe('ELOOP');
    } finally {
      for (const opened of [deep, real, root]) access.close(opened);
    }
  });
});
