import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyLoginEnvironment,
  loginShellArguments,
  mergeLoginEnvironment,
  parseEnvironmentOutput,
  readLoginEnvironment,
  startedFromTerminal,
} from '../../../src/main/tools/login-environment';
import { runInPty } from '../../../src/main/tools/pty-runner';
import { plainText, scrubbedEnvironment } from '../../../src/main/tools/run-command';
import { alive, temporaryFolder, waitFor } from '../../helpers';
import { bash, needs } from '../../platform';

/** An environment as a desktop launcher gives it: the system's PATH only, and a home of the test's own. */
const launcherEnv = (home: string, shell: string): NodeJS.ProcessEnv => ({
  PATH: '/usr/bin:/bin',
  HOME: home,
  SHELL: shell,
  USER: 'someone',
  ELECTRON_RUN_AS_NODE: '1',
});

describe("the login shell's environment", needs(bash), () => {
  let folder: ReturnType<typeof temporaryFolder>;
  beforeAll(() => {
    folder = temporaryFolder('workbench-login-');
  });
  afterAll(() => folder.remove());

  const script = (name: string, text: string): string => {
    const path = join(folder.path, name);
    writeFileSync(path, `#!/bin/sh\n${text}\n`);
    chmodSync(path, 0o755);
    return path;
  };

  it("gives the agent's commands the PATH the profile sets, so a program only there is found", async () => {
    const home = join(folder.path, 'home');
    mkdirSync(join(home, 'tools'), { recursive: true });
    writeFileSync(join(home, 'tools', 'only-in-profile'), '#!/bin/sh\necho found by the profile\n', { mode: 0o755 });
    writeFileSync(join(home, '.bash_profile'), 'echo "Welcome back"\nexport PATH="$HOME/tools:$PATH"\nexport FROM_PROFILE="two\nlines"\n');
    const env = launcherEnv(home, '/bin/bash');
    const login = await applyLoginEnvironment(env, { platform: 'linux', fromTerminal: false });
    expect(login).toMatchObject({ kind: 'read', shell: '/bin/bash' });
    expect(env['PATH']?.split(':')[0]).toBe(join(home, 'tools'));
    expect(env['FROM_PROFILE']).toBe('two\nlines');
    // What the app set for itself stays as it was; what the shell keeps for itself is not taken.
    expect(env['ELECTRON_RUN_AS_NODE']).toBe('1');
    expect(env).not.toHaveProperty('SHLVL');
    expect(env).not.toHaveProperty('WORKBENCH_RESOLVING_ENVIRONMENT');

    const before = await runInPty({
      command: 'only-in-profile',
      cwd: folder.path,
      env: scrubbedEnvironment(launcherEnv(home, '/bin/bash'), 'linux'),
      timeoutMs: 10_000,
      signal: new AbortController().signal,
    });
    expect(before.exitCode).toBe(127);
    const after = await runInPty({
      command: 'only-in-profile',
      cwd: folder.path,
      env: scrubbedEnvironment(env, 'linux'),
      timeoutMs: 10_000,
      signal: new AbortController().signal,
    });
    expect(plainText(after.output)).toBe('found by the profile\n');
    expect(after.exitCode).toBe(0);
  });

  it('reads the environment at once when the profile leaves a job running in the background, and leaves that job be', async () => {
    const home = join(folder.path, 'home-with-agent');
    mkdirSync(home, { recursive: true });
    const pidFile = join(folder.path, 'agent.pid');
    // As `eval $(ssh-agent)` or a daemon started from a profile does: the job keeps the shell's output open.
    writeFileSync(join(home, '.bash_profile'), `sleep 30 &\necho $! > '${pidFile}'\nexport FROM_PROFILE=yes\n`);
    const started = Date.now();
    const login = await readLoginEnvironment({
      platform: 'linux',
      env: launcherEnv(home, '/bin/bash'),
      fromTerminal: false,
      timeoutMs: 8_000,
    });
    expect(login).toMatchObject({ kind: 'read', variables: { FROM_PROFILE: 'yes' } });
    expect(Date.now() - started).toBeLessThan(4_000);
    // The person's job was not stopped with the shell.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    process.kill(pid, 'SIGKILL');
  });

  it('stops a shell that hangs at the timeout, with its whole group, and keeps the app going with its own environment', async () => {
    const pidFile = join(folder.path, 'hanging.pid');
    const hanging = script('hanging-shell', `sleep 30 &\necho $! > '${pidFile}'\nwait`);
    const env = launcherEnv(folder.path, hanging);
    const notes: string[] = [];
    const started = Date.now();
    const login = await applyLoginEnvironment(env, { platform: 'linux', fromTerminal: false, timeoutMs: 500 }, (text) => notes.push(text));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(login).toMatchObject({ kind: 'failed', note: expect.stringContaining('did not finish within 1 s') });
    expect(notes).toEqual([expect.stringContaining("the app's own environment is used")]);
    expect(env).toEqual(launcherEnv(folder.path, hanging));
    // The shell's own child too: a zombie until its new parent reaps it counts as ended.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !alive(pid), 3_000, 'the hanging shell to be stopped');
  });

  it('goes on with its own environment when the shell prints garbage, or too much', async () => {
    const garbage = script('garbage-shell', "head -c 20000 /dev/urandom; echo 'PATH=/evil'; exit 0");
    const noisy = launcherEnv(folder.path, garbage);
    expect(await readLoginEnvironment({ platform: 'linux', env: noisy, fromTerminal: false })).toMatchObject({
      kind: 'failed',
      note: expect.stringContaining('did not print its environment'),
    });
    const endless = script('endless-shell', 'yes');
    const flooded = await readLoginEnvironment({
      platform: 'linux',
      env: launcherEnv(folder.path, endless),
      fromTerminal: false,
      maxBytes: 64 * 1024,
    });
    expect(flooded).toMatchObject({ kind: 'failed', note: expect.stringContaining('printed more than 64 KB') });
    const missing = await readLoginEnvironment({
      platform: 'linux',
      env: launcherEnv(folder.path, join(folder.path, 'no-such-shell')),
      fromTerminal: false,
    });
    expect(missing).toMatchObject({ kind: 'failed', note: expect.stringContaining('could not start') });
  });
});

describe('when the login environment is read', () => {
  it('is not read on Windows, nor when the app was started from a terminal', async () => {
    const env = { PATH: '/usr/bin', SHELL: '/bin/false' };
    expect(await readLoginEnvironment({ platform: 'win32', env, fromTerminal: false })).toMatchObject({ kind: 'skipped' });
    expect(await readLoginEnvironment({ platform: 'darwin', env, fromTerminal: true })).toMatchObject({ kind: 'skipped' });
    expect(startedFromTerminal((fd) => fd === 0)).toBe(true);
    expect(startedFromTerminal((fd) => fd === 1)).toBe(false);
  });

  it('asks each kind of shell to be a login shell in the way it takes', () => {
    expect(loginShellArguments('/bin/zsh', 'x')).toEqual(['-i', '-l', '-c', 'x']);
    expect(loginShellArguments('/opt/homebrew/bin/fish', 'x')).toEqual(['-i', '-l', '-c', 'x']);
    expect(loginShellArguments('/bin/tcsh', 'x')).toEqual(['-ic', 'x']);
  });
});

describe('the printed environment', () => {
  const marker = '__m__';

  it('reads the NUL-separated form, dropping what is not a variable', () => {
    const output = `Welcome!\n${marker}0PATH=/a:/b\0MULTI=one\ntwo\0BASH_FUNC_f%%=() {  echo\n}\0=odd\0${marker}bye`;
    expect(parseEnvironmentOutput(output, marker)).toEqual({ PATH: '/a:/b', MULTI: 'one\ntwo' });
  });

  it("reads the newline form of macOS's older env, a line that starts no variable going on the one before", () => {
    const output = `${marker}nPATH=/a\nMULTI=one\n  two\nHOME=/h\n${marker}`;
    expect(parseEnvironmentOutput(output, marker)).toEqual({ PATH: '/a', MULTI: 'one\n  two', HOME: '/h' });
  });

  it('is nothing without both markers', () => {
    expect(parseEnvironmentOutput(`${marker}0PATH=/a`, marker)).toBeNull();
    expect(parseEnvironmentOutput('PATH=/a', marker)).toBeNull();
  });

  it('merges the PATH and the rest of the profile, never what the app or the shell set for themselves', () => {
    const current = { PATH: '/usr/bin', LANG: 'C', ELECTRON_NO_ATTACH_CONSOLE: '1', APPIMAGE: '/x.AppImage', KEEP: 'me' };
    const login = {
      PATH: '/opt/homebrew/bin:/usr/bin',
      LANG: 'en_GB.UTF-8',
      NVM_DIR: '/h/.nvm',
      ELECTRON_NO_ATTACH_CONSOLE: '0',
      APPIMAGE: '/y',
      PWD: '/h',
      SHLVL: '2',
      _: '/usr/bin/env',
    };
    expect(mergeLoginEnvironment(current, login)).toEqual({
      PATH: '/opt/homebrew/bin:/usr/bin',
      LANG: 'en_GB.UTF-8',
      NVM_DIR: '/h/.nvm',
      ELECTRON_NO_ATTACH_CONSOLE: '1',
      APPIMAGE: '/x.AppImage',
      KEEP: 'me',
    });
  });

  it("keeps a profile's relative PATH entries and loader variables out of what the app's processes start with", () => {
    const current = { PATH: '/usr/bin' };
    const login = {
      PATH: './node_modules/.bin:/opt/homebrew/bin::.:bin:/usr/bin',
      NODE_OPTIONS: '--require ./hook.js',
      LD_PRELOAD: '/h/lib.so',
      DYLD_INSERT_LIBRARIES: '/h/lib.dylib',
      GOPATH: '/h/go',
    };
    expect(mergeLoginEnvironment(current, login)).toEqual({ PATH: '/opt/homebrew/bin:/usr/bin', GOPATH: '/h/go' });
  });
});
