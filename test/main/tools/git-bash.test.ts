import { describe, expect, it } from 'vitest';
import { findGitBash, gitBashVariable } from '../../../src/main/tools/git-bash';
import { detectCommandShell } from '../../../src/main/tools/command-shell';

/** A Windows machine's files, as a set of paths that exist (compared without case, as Windows does). */
const machine =
  (...paths: string[]) =>
  (path: string): boolean =>
    paths.some((existing) => existing.toLowerCase() === path.toLowerCase());

const windowsEnv = { SystemRoot: 'C:\\Windows', USERPROFILE: 'C:\\Users\\me', LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local' };

describe("finding Git for Windows' bash", () => {
  it('takes the bash of the git on the PATH, from its cmd, bin and mingw64\\bin folders', () => {
    const inCmd = machine('C:\\Program Files\\Git\\cmd\\git.exe', 'C:\\Program Files\\Git\\bin\\bash.exe');
    expect(findGitBash({ ...windowsEnv, Path: 'C:\\Windows\\System32;C:\\Program Files\\Git\\cmd' }, inCmd)).toEqual({
      found: true,
      path: 'C:\\Program Files\\Git\\bin\\bash.exe',
      source: 'path',
    });
    const inMingw = machine('D:\\Tools\\Git\\mingw64\\bin\\git.exe', 'D:\\Tools\\Git\\bin\\bash.exe');
    expect(findGitBash({ ...windowsEnv, PATH: '"D:\\Tools\\Git\\mingw64\\bin";C:\\Windows' }, inMingw)).toMatchObject({
      path: 'D:\\Tools\\Git\\bin\\bash.exe',
    });
    const inBin = machine('E:\\PortableGit\\bin\\git.exe', 'E:\\PortableGit\\bin\\bash.exe');
    expect(findGitBash({ ...windowsEnv, PATH: 'E:\\PortableGit\\bin' }, inBin)).toMatchObject({ path: 'E:\\PortableGit\\bin\\bash.exe' });
  });

  it('never takes a git from a relative PATH entry, which names a folder under the current one', () => {
    const planted = machine('tools\\cmd\\git.exe', 'tools\\bin\\bash.exe');
    expect(findGitBash({ ...windowsEnv, PATH: 'tools\\cmd' }, planted)).toMatchObject({ found: false });
  });

  it('looks in the usual install folders when git is not on the PATH, Scoop included', () => {
    const everyone = machine('C:\\Program Files\\Git\\bin\\bash.exe');
    expect(findGitBash({ ...windowsEnv, ProgramFiles: 'C:\\Program Files' }, everyone)).toEqual({
      found: true,
      path: 'C:\\Program Files\\Git\\bin\\bash.exe',
      source: 'install folder',
    });
    const x86 = machine('C:\\Program Files (x86)\\Git\\bin\\bash.exe');
    expect(findGitBash({ ...windowsEnv, 'ProgramFiles(x86)': 'C:\\Program Files (x86)' }, x86)).toMatchObject({ found: true });
    const oneUser = machine('C:\\Users\\me\\AppData\\Local\\Programs\\Git\\bin\\bash.exe');
    expect(findGitBash(windowsEnv, oneUser)).toMatchObject({ path: 'C:\\Users\\me\\AppData\\Local\\Programs\\Git\\bin\\bash.exe' });
    // Scoop's git on the PATH is a shim with no install folder around it: its own folder is found instead.
    const scoop = machine('C:\\Users\\me\\scoop\\shims\\git.exe', 'C:\\Users\\me\\scoop\\apps\\git\\current\\bin\\bash.exe');
    expect(findGitBash({ ...windowsEnv, PATH: 'C:\\Users\\me\\scoop\\shims' }, scoop)).toMatchObject({
      path: 'C:\\Users\\me\\scoop\\apps\\git\\current\\bin\\bash.exe',
    });
  });

  it("never takes WSL's bash, which runs in another system, and says how to get Git's", () => {
    const wslOnly = machine('C:\\Windows\\System32\\bash.exe', 'C:\\Windows\\System32\\git.exe');
    const result = findGitBash({ ...windowsEnv, PATH: 'C:\\Windows\\System32' }, wslOnly);
    expect(result).toMatchObject({ found: false, reason: expect.stringContaining('https://git-scm.com/download/win') });
    expect(result).toMatchObject({ reason: expect.stringContaining(gitBashVariable) });
    const named = findGitBash({ ...windowsEnv, [gitBashVariable]: 'c:\\windows\\system32\\bash.exe' }, wslOnly);
    expect(named).toMatchObject({ found: false, reason: expect.stringContaining("WSL's bash") });
  });

  it('uses the bash the person named, and says so when it is not there rather than taking another', () => {
    const custom = machine('F:\\git\\bin\\bash.exe', 'C:\\Program Files\\Git\\bin\\bash.exe');
    const env = { ...windowsEnv, ProgramFiles: 'C:\\Program Files' };
    expect(findGitBash({ ...env, [gitBashVariable]: '"F:\\git\\bin\\bash.exe"' }, custom)).toEqual({
      found: true,
      path: 'F:\\git\\bin\\bash.exe',
      source: 'setting',
    });
    expect(findGitBash({ ...env, [gitBashVariable]: 'G:\\gone\\bash.exe' }, custom)).toMatchObject({
      found: false,
      reason: expect.stringContaining('G:\\gone\\bash.exe, which is not there'),
    });
  });

  it('is the shell on Windows; elsewhere bash, from the PATH where /bin/bash is missing', () => {
    expect(detectCommandShell('win32', windowsEnv, machine())).toMatchObject({ available: false });
    expect(
      detectCommandShell('win32', { ...windowsEnv, ProgramFiles: 'C:\\Program Files' }, machine('C:\\Program Files\\Git\\bin\\bash.exe')),
    ).toEqual({
      available: true,
      kind: 'git-bash',
      path: 'C:\\Program Files\\Git\\bin\\bash.exe',
    });
    expect(detectCommandShell('linux', {}, (path) => path === '/bin/bash')).toEqual({ available: true, kind: 'bash', path: '/bin/bash' });
    const nix = (path: string) => path === '/run/current-system/sw/bin/bash';
    expect(detectCommandShell('linux', { PATH: 'relative:/run/current-system/sw/bin' }, nix)).toMatchObject({
      path: '/run/current-system/sw/bin/bash',
    });
    expect(detectCommandShell('darwin', { PATH: '/usr/bin' }, () => false)).toMatchObject({ available: false });
  });
});
