import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkspaceFiles } from '../../../src/main/workspace/workspace-files';
import { temporaryFolder } from '../../helpers';
import { modelPathText, workspaceRelativeText } from '../../../src/main/workspace/model-path';
import { workspaceSegments } from '../../../src/main/workspace/path-text';

const root = 'C:\\Users\\me\\proj';
const onWindows = (path: string) => workspaceSegments(path, [root], 'win32');

describe('paths as a model writes them on Windows', () => {
  it.each([
    ['C:\\Users\\me\\proj\\src\\a.ts', 'backslashes and a drive letter'],
    ['C:/Users/me/proj/src/a.ts', 'slashes and a drive letter'],
    ['c:\\users\\ME\\Proj\\src\\a.ts', 'another case, as Windows names are'],
    ['src\\a.ts', 'relative with backslashes'],
    ['.\\src\\..\\src\\a.ts', 'relative with . and ..'],
    ['/c/Users/me/proj/src/a.ts', "Git bash's drive form"],
    ['/cygdrive/c/Users/me/proj/src/a.ts', "Cygwin's drive form"],
    ['\\\\?\\C:\\Users\\me\\proj\\src\\a.ts', 'the long-path prefix'],
  ])('reads %j (%s) as src/a.ts in the workspace', (path) => {
    expect(onWindows(path)).toEqual(['src', 'a.ts']);
  });

  it('reads the workspace folder itself in each form', () => {
    for (const path of [root, 'C:/Users/me/proj/', '/c/Users/me/proj', '.']) expect(onWindows(path), path).toEqual([]);
  });

  it('still refuses what lies elsewhere, quoting the path as it was written', () => {
    expect(() => onWindows('D:\\other\\a.ts')).toThrow('Refused "D:\\\\other\\\\a.ts": it is outside the workspace.');
    expect(() => onWindows('/d/other/a.ts')).toThrow(/outside the workspace/);
    expect(() => onWindows('C:\\Users\\me\\proj\\..\\other\\a.ts')).toThrow(/outside the workspace/);
    expect(() => onWindows('..\\a.ts')).toThrow(/outside the workspace/);
    expect(() => onWindows('\\\\server\\share\\a.ts')).toThrow(/network share/);
    expect(() => onWindows('\\\\.\\C:\\Users\\me\\proj\\a.ts')).toThrow(/network share/);
    expect(() => onWindows('C:src\\a.ts')).toThrow(/Windows drive/);
    expect(() => onWindows('src\\CON')).toThrow(/device/);
  });

  it('leaves every text as it is elsewhere, where a backslash is part of a name and is refused', () => {
    for (const path of ['src\\a.ts', '/c/Users/me', 'C:\\x']) expect(modelPathText(path, 'posix')).toBe(path);
    expect(() => workspaceSegments('src\\a.ts', ['/home/me/proj'], 'posix')).toThrow(/use \/ as the separator/);
    expect(workspaceSegments('/c/a.ts', ['/c'], 'posix')).toEqual(['a.ts']);
  });

  it('makes an absolute path in the workspace relative for programs that take paths, and leaves others to be checked', () => {
    expect(workspaceRelativeText('C:\\Users\\me\\proj\\src\\a.ts', root, 'win32')).toBe('src/a.ts');
    expect(workspaceRelativeText('/c/users/me/proj', root, 'win32')).toBe('.');
    expect(workspaceRelativeText('src\\a.ts', root, 'win32')).toBe('src/a.ts');
    expect(workspaceRelativeText('D:\\a.ts', root, 'win32')).toBe('D:/a.ts');
    expect(workspaceRelativeText('C:\\Users\\me\\project-two\\a.ts', root, 'win32')).toBe('C:/Users/me/project-two/a.ts');
    expect(workspaceRelativeText('/home/me/proj/src/a.ts', '/home/me/proj', 'posix')).toBe('src/a.ts');
    expect(workspaceRelativeText('/home/me/other/a.ts', '/home/me/proj', 'posix')).toBe('/home/me/other/a.ts');
  });
});

describe('the file tools on Windows paths', () => {
  it('find and write the same file through each form, with the Windows rules injected', () => {
    const folder = temporaryFolder('workbench-windows-paths-');
    try {
      mkdirSync(join(folder.path, 'src'));
      writeFileSync(join(folder.path, 'src', 'a.ts'), 'export {};\n');
      const files = new WorkspaceFiles(folder.path, { platform: 'win32' });
      expect(files.inspect('src\\a.ts')).toEqual({ relative: 'src/a.ts', kind: 'file' });
      expect(files.inspect(`${folder.path}\\src\\a.ts`)).toEqual({ relative: 'src/a.ts', kind: 'file' });
      expect(files.put('src\\b.ts', Buffer.from('b\n'), 0o644)).toMatchObject({ relative: 'src/b.ts' });
      expect(readFileSync(join(folder.path, 'src', 'b.ts'), 'utf8')).toBe('b\n');
      expect(() => files.inspect('..\\outside.ts')).toThrow(/outside the workspace/);
    } finally {
      folder.remove();
    }
  });
});
