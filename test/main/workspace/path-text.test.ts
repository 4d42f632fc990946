import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkSegments, windowsNameProblem, workspaceSegments, type NamingPlatform } from '../../../src/main/workspace/path-text';
import { WorkspaceFiles } from '../../../src/main/workspace/workspace-files';
import { temporaryFolder } from '../../helpers';
import { needs, symlinks } from '../../platform';

const root = '/home/me/project';
const segments = (path: string, platform: NamingPlatform = 'posix') => workspaceSegments(path, [root], platform);

describe('path text', () => {
  /** Texts that name another place than the workspace path they seem to be, with a word of the reason given. */
  const elsewhere: Array<[string, RegExp]> = [
    ['~user/x', /~ is not expanded/],
    ['~/notes.md', /~ is not expanded/],
    ['~', /~ is not expanded/],
    ['$HOME/x', /not expanded/],
    ['${HOME}/x', /not expanded/],
    ['$(pwd)/x', /not expanded/],
    ['src/$TMPDIR', /not expanded/],
    ['`pwd`/x', /backticks/],
    ['file:///etc/passwd', /URL/],
    ['https://example.com/x', /URL/],
    ['smb://server/share/x', /URL/],
    ['C:/Windows/x', /Windows drive/],
    ['c:x', /Windows drive/],
    ['//server/share/x', /network share/],
    ['%2e%2e/x', /percent-encodings/],
    ['a%2fb', /percent-encodings/],
    ['x%00.txt', /percent-encodings/],
    ['a\u0000b', /NUL or control/],
    ['a\u0085b', /NUL or control/],
    ['src/name./x', /ends with a dot or a space/],
    ['src/name /x', /ends with a dot or a space/],
    [' leading', /starts with a space/],
    ['.../x', /ends with a dot/],
    ['\u2024\u2024/x', /only looks like a dot or a slash/],
    ['\uFF0E\uFF0E/x', /only looks like/],
    ['src\u2215..\u2215x', /only looks like/],
    ['a\u0338b', /only looks like/],
    ['.g\u200Cit/config', /cannot be seen/],
    ['a\u2488b', /Unicode-normalized/],
    ['\uFF04HOME/x', /Unicode-normalized/],
    ['C\uFF1A/x', /Unicode-normalized/],
    ['file.txt::$DATA', /alternate data stream/],
    ['file.txt:$DATA', /alternate data stream/],
    ['../x', /outside the workspace/],
    ['a/../../x', /outside the workspace/],
    ['/etc/passwd', /outside the workspace/],
    ['/home/me/project-other/x', /outside the workspace/],
  ];

  it.each(elsewhere)('refuses %j, saying why', (path, reason) => {
    expect(() => segments(path)).toThrow(reason);
  });

  it('tells the model that paths are relative to the workspace', () => {
    expect(() => segments('~/x')).toThrow(/paths are relative to the workspace folder/);
    expect(() => segments('$HOME/x')).toThrow(/paths are relative to the workspace folder/);
    expect(() => segments('file:///etc/x')).toThrow(/paths are relative to the workspace folder/);
  });

  it('on Windows also refuses device names, short names and any data stream', () => {
    for (const path of ['CON', 'nul.txt', 'src/aux', 'COM1.log', 'lpt9', 'GIT~1/config', 'PROGRA~1', 'notes:stream'])
      expect(() => segments(path, 'win32'), path).toThrow(/device|short|data stream/);
    expect(segments('CON', 'posix')).toEqual(['CON']);
    expect(segments('notes:2024.txt', 'posix')).toEqual(['notes:2024.txt']);
  });

  it('on Windows refuses the characters Windows does not allow in a name, which elsewhere are names like any', () => {
    for (const path of ['a<b', 'a>b', 'say"hi"', 'a|b', 'what?', 'all*.ts'])
      expect(() => segments(path, 'win32'), path).toThrow(/does not allow/);
    expect(segments('what?', 'posix')).toEqual(['what?']);
  });

  it('on Windows refuses every spelling that reaches .git or a device under another name', () => {
    for (const path of [
      '.git./config',
      '.git /config',
      '.git::$INDEX_ALLOCATION/config',
      'GIT~1/config',
      'CON .txt',
      'conin$',
      'COM\u00B9',
    ])
      expect(() => segments(path, 'win32'), path).toThrow(/dot or a space|data stream|short|device/);
  });

  it("names what Windows would read as another name in a link's target", () => {
    expect(windowsNameProblem('GIT~1')).toMatch(/short/);
    expect(windowsNameProblem('NUL.txt')).toMatch(/device/);
    expect(windowsNameProblem('file.txt:secret')).toMatch(/data stream/);
    expect(windowsNameProblem('.git.')).toMatch(/dot or a space/);
    expect(windowsNameProblem('src')).toBeNull();
    expect(windowsNameProblem('.git')).toBeNull();
  });

  it('accepts ordinary names, including absolute paths inside the workspace', () => {
    expect(segments('src/index.ts')).toEqual(['src', 'index.ts']);
    expect(segments('./src/../README.md')).toEqual(['README.md']);
    expect(segments('.')).toEqual([]);
    expect(segments(`${root}/src/a.ts`)).toEqual(['src', 'a.ts']);
    expect(segments(root)).toEqual([]);
    expect(segments('a/~b/$5.txt')).toEqual(['a', '~b', '$5.txt']);
    expect(segments('résumé.txt')).toEqual(['résumé.txt']);
    expect(segments('日本語/ファイル.txt')).toEqual(['日本語', 'ファイル.txt']);
    expect(segments('with space/50% done.txt')).toEqual(['with space', '50% done.txt']);
    expect(workspaceSegments('c:/users/me/ws/a.txt', ['C:\\Users\\me\\ws'], 'win32')).toEqual(['a.txt']);
  });
});

describe("a link's target under Windows' naming rules", needs(symlinks), () => {
  it('refuses a link whose target reaches .git by its short name, and follows the same link elsewhere', () => {
    const folder = temporaryFolder('workbench-short-name-');
    try {
      const ws = join(folder.path, 'ws');
      // Here GIT~1 is a folder of its own; on NTFS it would be the short name of .git.
      mkdirSync(join(ws, 'GIT~1'), { recursive: true });
      writeFileSync(join(ws, 'GIT~1', 'config'), '[core]\n');
      symlinkSync('GIT~1', join(ws, 'alias'));
      const windows = new WorkspaceFiles(ws, { platform: 'win32' });
      expect(() => windows.replace('alias/config', () => 'changed\n')).toThrow(/short \(8\.3\) name/);
      expect(new WorkspaceFiles(ws, { platform: 'posix' }).placeOf('alias/config', 'write')).toBe('GIT~1/config');
    } finally {
      folder.remove();
    }
  });
});

describe("an absolute path under the workspace, by its file system's case rules", () => {
  const root = '/Users/me/Proj';

  it('is inside when written in another case on a file system that ignores it (macOS by default)', () => {
    expect(workspaceSegments('/Users/Me/proj/src/a.ts', [root], 'posix', true)).toEqual(['src', 'a.ts']);
    expect(workspaceSegments('/USERS/ME/PROJ', [root], 'posix', true)).toEqual([]);
    expect(linkSegments('/users/me/proj/lib', ['src'], [root], 'posix', true)).toEqual(['lib']);
    // Another folder is still another folder, whatever its case.
    expect(() => workspaceSegments('/Users/Me/Project/a.ts', [root], 'posix', true)).toThrow(/outside the workspace/);
  });

  it('is outside when written in another case where case is kept (Linux), as it names another folder there', () => {
    expect(() => workspaceSegments('/Users/Me/proj/src/a.ts', [root], 'posix', false)).toThrow(/outside the workspace/);
    expect(() => workspaceSegments('/Users/Me/proj/src/a.ts', [root], 'posix')).toThrow(/outside the workspace/);
    expect(linkSegments('/users/me/proj/lib', ['src'], [root], 'posix', false)).toBeNull();
  });

  it("follows Windows' rule there unless told otherwise", () => {
    expect(workspaceSegments('c:\\users\\me\\proj\\a.ts', ['C:\\Users\\me\\Proj'], 'win32')).toEqual(['a.ts']);
  });
});
