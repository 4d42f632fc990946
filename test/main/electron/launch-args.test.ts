import { describe, expect, it } from 'vitest';
import { LaunchQueue, launchTarget, type LaunchTarget } from '../../../src/main/electron/launch-args';

const packaged = { workingDirectory: '/home/ada', defaultApp: false };
const development = { workingDirectory: '/home/ada', defaultApp: true };

describe('launchTarget', () => {
  it('opens nothing when the app is started without arguments', () => {
    expect(launchTarget(['/opt/Agent Workbench/agent-workbench'], packaged)).toBeNull();
    expect(launchTarget([], packaged)).toBeNull();
  });

  it('takes a folder given after the executable, absolute or relative to the working directory', () => {
    expect(launchTarget(['/usr/bin/agent-workbench', '/srv/project'], packaged)).toEqual({ kind: 'folder', path: '/srv/project' });
    expect(launchTarget(['agent-workbench', 'code/app'], packaged)).toEqual({ kind: 'folder', path: '/home/ada/code/app' });
    expect(launchTarget(['agent-workbench', '.'], { ...packaged, workingDirectory: '/tmp/here' })).toEqual({
      kind: 'folder',
      path: '/tmp/here',
    });
  });

  it("skips the app's own path in development, where the binary is electron", () => {
    expect(launchTarget(['/repo/node_modules/electron/dist/electron', '.'], development)).toBeNull();
    expect(launchTarget(['/repo/node_modules/electron/dist/electron', '/repo', '../notes'], development)).toEqual({
      kind: 'folder',
      path: '/home/notes',
    });
  });

  it("skips Electron's and Chromium's switches and the process serial number macOS adds", () => {
    const argv = ['agent-workbench', '--no-sandbox', '--inspect=9229', '-psn_0_1234567', '--enable-features=Foo', 'project'];
    expect(launchTarget(argv, packaged)).toEqual({ kind: 'folder', path: '/home/ada/project' });
    expect(launchTarget(['agent-workbench', '--allow-file-access-from-files', '--original-process-start-time=1'], packaged)).toBeNull();
  });

  it('takes every argument after -- as a path, even one that starts with a dash', () => {
    expect(launchTarget(['agent-workbench', '--', '-odd-name'], packaged)).toEqual({ kind: 'folder', path: '/home/ada/-odd-name' });
  });

  it('tells an exported session from a folder by its name', () => {
    expect(launchTarget(['agent-workbench', 'Fix the build.workbench-session.json'], packaged)).toEqual({
      kind: 'session-file',
      path: '/home/ada/Fix the build.workbench-session.json',
    });
    expect(launchTarget(['agent-workbench', '/tmp/EXPORT.Workbench-Session.JSON'], packaged)).toEqual({
      kind: 'session-file',
      path: '/tmp/EXPORT.Workbench-Session.JSON',
    });
  });

  it('turns the file URLs a desktop entry passes into paths and ignores other URLs', () => {
    expect(launchTarget(['agent-workbench', 'file:///home/ada/My%20Notes'], packaged)).toEqual({
      kind: 'folder',
      path: '/home/ada/My Notes',
    });
    expect(launchTarget(['agent-workbench', 'https://example.com/x', 'x-scheme:thing'], packaged)).toBeNull();
    expect(launchTarget(['agent-workbench', 'file://remote-host/share'], packaged)).toBeNull();
  });

  it('takes the first path when several are given', () => {
    expect(launchTarget(['agent-workbench', '/a', '/b'], packaged)).toEqual({ kind: 'folder', path: '/a' });
  });
});

describe('LaunchQueue', () => {
  it('holds what arrives before the app is ready and opens it, in order, once it is', () => {
    const queue = new LaunchQueue();
    const opened: LaunchTarget[] = [];
    queue.push({ kind: 'folder', path: '/one' });
    queue.push({ kind: 'session-file', path: '/two.workbench-session.json' });
    expect(opened).toEqual([]);
    queue.start((target) => opened.push(target));
    expect(opened.map((target) => target.path)).toEqual(['/one', '/two.workbench-session.json']);
    queue.push({ kind: 'folder', path: '/three' });
    expect(opened.map((target) => target.path)).toEqual(['/one', '/two.workbench-session.json', '/three']);
  });
});
