/*
 * Finds the bash of Git for Windows, the shell the agent's commands run in on Windows: a path the person set, the git on
 * the PATH, then the usual install folders. The environment and the file system are given, so every layout is tested
 * on any system.
 */

import { win32 } from 'node:path';

/** The variable a person sets to the bash.exe to use when it is installed somewhere of its own. */
export const gitBashVariable = 'WORKBENCH_GIT_BASH_PATH';

/** What the person is told to do when no bash is found. */
export const gitBashHelp = `Install Git for Windows from https://git-scm.com/download/win, or set ${gitBashVariable} to the bash.exe of an installed Git (for example C:\\Program Files\\Git\\bin\\bash.exe) and start the app again.`;

/** Where Git for Windows' bash is, or why none is used. */
export type GitBashSearch =
  | { readonly found: true; readonly path: string; readonly source: 'setting' | 'path' | 'install folder' }
  | { readonly found: false; readonly reason: string };

/** A variable of a Windows environment, whose names are not case-sensitive (`Path`, `PATH`). */
export function windowsVariable(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(env)) if (key.toLowerCase() === wanted && value) return value;
  return undefined;
}

/**
 * Whether a bash.exe is WSL's (`C:\Windows\System32\bash.exe`, or the app alias in WindowsApps). That one starts a
 * Linux system of its own: the workspace is not at its Windows path there (it is under /mnt/c), the person's Windows
 * programs and PATH are not what it runs, and its files are another system's. Commands would run somewhere else than
 * the workspace they are judged for, so it is never used, even when named.
 */
export function isWslBash(path: string, env: NodeJS.ProcessEnv): boolean {
  const normal = win32.normalize(path).toLowerCase();
  const windows = (windowsVariable(env, 'SystemRoot') ?? windowsVariable(env, 'windir') ?? 'C:\\Windows').toLowerCase();
  const systemFolders = ['system32', 'sysnative', 'syswow64'].map((folder) => win32.join(windows, folder, 'bash.exe'));
  return systemFolders.includes(normal) || /\\microsoft\\windowsapps\\bash\.exe$/.test(normal);
}

/**
 * The install folder of a git.exe: Git for Windows puts it in `cmd\`, `bin\` and `mingw64\bin\` (`mingw32\`,
 * `clangarm64\` on other machines), all under the folder that has `bin\bash.exe`.
 */
function installRootOf(gitExe: string): string | null {
  const folder = win32.dirname(gitExe);
  const name = win32.basename(folder).toLowerCase();
  if (name === 'cmd' || name === 'bin') {
    const parent = win32.dirname(folder);
    const parentName = win32.basename(parent).toLowerCase();
    // `mingw64\bin\git.exe`: the root is one more up.
    return name === 'bin' && /^(mingw64|mingw32|clangarm64|ucrt64)$/.test(parentName) ? win32.dirname(parent) : parent;
  }
  return null;
}

/** The folders of the PATH, unquoted, in order. */
function pathFolders(env: NodeJS.ProcessEnv): string[] {
  return (windowsVariable(env, 'PATH') ?? '')
    .split(';')
    .map((entry) => entry.trim().replace(/^"(.*)"$/, '$1'))
    .filter((entry) => entry.length > 0);
}

/** The usual install folders of Git for Windows: for every user, for one user, and Scoop's. */
function installFolders(env: NodeJS.ProcessEnv): string[] {
  const folders: string[] = [];
  // A 32-bit process sees ProgramFiles as the x86 folder; ProgramW6432 names the 64-bit one all the same.
  for (const name of ['ProgramW6432', 'ProgramFiles', 'ProgramFiles(x86)']) {
    const base = windowsVariable(env, name);
    if (base) folders.push(win32.join(base, 'Git'));
  }
  const local = windowsVariable(env, 'LOCALAPPDATA');
  if (local) folders.push(win32.join(local, 'Programs', 'Git'));
  const scoop = windowsVariable(env, 'SCOOP');
  if (scoop) folders.push(win32.join(scoop, 'apps', 'git', 'current'));
  const profile = windowsVariable(env, 'USERPROFILE');
  if (profile) folders.push(win32.join(profile, 'scoop', 'apps', 'git', 'current'));
  return [...new Set(folders.map((folder) => folder.toLowerCase()))].map(
    (lower) => folders.find((folder) => folder.toLowerCase() === lower) as string,
  );
}

/**
 * Finds Git for Windows' `bin\bash.exe`: the one `WORKBENCH_GIT_BASH_PATH` names (used as named, or refused with the
 * reason: a path the person chose is not swapped for another), else beside the first git.exe on the PATH, else in the
 * usual install folders. `bin\bash.exe` is Git's launcher, which puts Git's own programs (`usr\bin`, `mingw64\bin`) on
 * the PATH before it starts bash, so commands find `ls`, `grep` and `sed` without a login profile.
 */
export function findGitBash(env: NodeJS.ProcessEnv, exists: (path: string) => boolean): GitBashSearch {
  const chosen = windowsVariable(env, gitBashVariable)
    ?.trim()
    .replace(/^"(.*)"$/, '$1');
  if (chosen) {
    if (isWslBash(chosen, env))
      return { found: false, reason: `${gitBashVariable} names WSL's bash (${chosen}), which runs in another system. ${gitBashHelp}` };
    if (!win32.isAbsolute(chosen) || !exists(chosen))
      return { found: false, reason: `${gitBashVariable} names ${chosen}, which is not there. ${gitBashHelp}` };
    return { found: true, path: chosen, source: 'setting' };
  }
  for (const folder of pathFolders(env)) {
    // A relative entry names a folder under whatever the current one is (a workspace, perhaps): never a program's place.
    if (!win32.isAbsolute(folder)) continue;
    const gitExe = win32.join(folder, 'git.exe');
    if (!exists(gitExe)) continue;
    const root = installRootOf(gitExe);
    const bash = root ? win32.join(root, 'bin', 'bash.exe') : null;
    if (bash && exists(bash)) return { found: true, path: bash, source: 'path' };
  }
  for (const root of installFolders(env)) {
    const bash = win32.join(root, 'bin', 'bash.exe');
    if (exists(bash)) return { found: true, path: bash, source: 'install folder' };
  }
  return { found: false, reason: `Git for Windows' bash was not found, so the agent cannot run commands. ${gitBashHelp}` };
}
