import { execFileSync } from 'node:child_process';
import { getPriority } from 'node:os';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/main/agent/ports/tools';
import { runCommandTool } from '../../../src/main/tools/run-command';
import { detectSandbox, seatbeltProfile, type SandboxStatus } from '../../../src/main/tools/sandbox';
import { temporaryFolder } from '../../helpers';
import { BashParser } from '../../../src/main/shell/bash-parser';
import { bubblewrap, needs, osSandbox, pgrep } from '../../platform';

const shell = await BashParser.load();

describe('the OS sandbox', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let workspace: string;
  let dataDir: string;
  let sandbox: SandboxStatus;
  let tool: Tool;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    folder = temporaryFolder('workbench-sandbox-');
    workspace = join(folder.path, 'ws');
    dataDir = join(workspace, '.appdata');
    mkdirSync(join(workspace, '.git'), { recursive: true });
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(workspace, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    sandbox = detectSandbox();
    tool = runCommandTool({ shell, sandbox, protectedFolders: [dataDir] });
    server = createServer((socket) => socket.end('hello from outside\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    folder.remove();
  });

  const run = async (command: string, mode: 'workspace' | 'network' | 'none' = 'workspace', timeoutSeconds?: number) => {
    const parsed = tool.parse({ command, sandbox: mode, ...(timeoutSeconds ? { timeoutSeconds } : {}) });
    if (!parsed.ok) throw new Error(parsed.message);
    return tool.execute(parsed.input, {
      signal: new AbortController().signal,
      sessionId: 's',
      toolCallId: 'c',
      workspacePath: workspace,
      emitOutput: () => undefined,
    });
  };

  it('is available on this machine (bubblewrap)', needs(bubblewrap), () => {
    expect(sandbox).toMatchObject({ available: true, kind: 'bubblewrap' });
  });

  it('runs commands at a lower CPU priority inside the sandbox too', needs(bubblewrap), async () => {
    expect(await run('nice')).toMatchObject({ output: `${Math.min(19, getPriority() + 10)}\n[exit code 0]` });
  });

  it('lets a command write inside the workspace and in its own /tmp', needs(bubblewrap), async () => {
    expect(await run('echo made > inside.txt && echo t > /tmp/scratch && cat /tmp/scratch')).toMatchObject({ isError: false });
    expect(readFileSync(join(workspace, 'inside.txt'), 'utf8')).toBe('made\n');
  });

  it('blocks writes outside the workspace, into .git and into the app data, and says so', needs(bubblewrap), async () => {
    const target = `/var/tmp/workbench-escape-${process.pid}.txt`;
    const outside = await run(`echo escaped > ${target}`);
    expect(outside.isError).toBe(true);
    expect(outside.output).toContain('Read-only file system');
    expect(outside.output).toContain('blocked by the sandbox');
    expect(outside.output).toContain('sandbox: "none"');
    expect(existsSync(target)).toBe(false);
    // The sandbox's /tmp is its own: a write there never reaches the real one.
    await run(`echo escaped > ${join(folder.path, 'outside.txt')}`);
    expect(existsSync(join(folder.path, 'outside.txt'))).toBe(false);
    expect((await run('echo x > .git/HEAD')).isError).toBe(true);
    expect(readFileSync(join(workspace, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    expect((await run('echo x > .appdata/settings.json')).isError).toBe(true);
  });

  it('ends every process of a stopped command, one that left its process group included', needs(bubblewrap, pgrep), async () => {
    const alive = (pattern: string): boolean => {
      try {
        execFileSync('pgrep', ['-f', pattern]);
        return true;
      } catch {
        return false;
      }
    };
    const result = await run('setsid sleep 46.25 & (trap "" TERM; sleep 47.25) & sleep 48.25', 'workspace', 1);
    expect(result.output).toContain('timed out');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(alive('sleep 4[678].25')).toBe(false);
  });

  it('blocks the network unless granted', needs(bubblewrap), async () => {
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`;
    const blocked = await run(connect);
    expect(blocked.isError).toBe(true);
    expect(blocked.output).not.toContain('hello from outside');
    const allowed = await run(connect, 'network');
    expect(allowed).toMatchObject({ isError: false, output: expect.stringContaining('hello from outside') });
  });

  it('asks before widening: network is at least write_high, no sandbox is destructive and never granted', needs(osSandbox), () => {
    const assess = (command: string, mode: string) => {
      const parsed = tool.parse({ command, sandbox: mode });
      if (!parsed.ok) throw new Error(parsed.message);
      return tool.assess(parsed.input, { workspacePath: workspace }).level;
    };
    expect(assess('ls', 'workspace')).toBe('read_only');
    expect(assess('ls', 'network')).toBe('write_high');
    expect(assess('ls', 'none')).toBe('destructive');
    const parsed = tool.parse({ command: 'ls', sandbox: 'none' });
    if (!parsed.ok) throw new Error(parsed.message);
    expect(tool.covers(tool.trustPattern(parsed.input), parsed.input, { workspacePath: null })).toBe(false);
  });

  it('says plainly when there is no sandbox', () => {
    expect(detectSandbox('darwin', () => false)).toMatchObject({ available: false, reason: expect.stringContaining('no sandbox') });
    expect(detectSandbox('win32')).toMatchObject({ available: false, reason: expect.stringContaining('no sandbox') });
  });

  it('on macOS, writes a Seatbelt profile with the same rules (checked as text: no macOS here)', () => {
    expect(detectSandbox('darwin', (path) => path === '/usr/bin/sandbox-exec')).toEqual({
      available: true,
      kind: 'seatbelt',
      path: '/usr/bin/sandbox-exec',
    });
    const profile = seatbeltProfile({
      workspace: '/Users/me/project "x"',
      protectedFolders: ['/Users/me/project "x"/.data', '/elsewhere'],
      mode: 'workspace',
    });
    expect(profile.split('\n')).toEqual([
      '(version 1)',
      '(allow default)',
      '(deny file-write*)',
      '(allow file-write* (subpath "/Users/me/project \\"x\\"") (subpath "/private/tmp") (subpath "/private/var/folders") (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/ttys[0-9]+$"))',
      '(deny file-write* (subpath "/Users/me/project \\"x\\"/.git"))',
      '(deny file-write* (subpath "/Users/me/project \\"x\\"/.data"))',
      '(deny network*)',
      '(allow network* (local unix-socket))',
    ]);
    expect(seatbeltProfile({ workspace: '/w', protectedFolders: [], mode: 'network' })).not.toContain('deny network');
  });

  it("denies writes to the app's data in the workspace written in another case where case is ignored, and only there", () => {
    const profile = (caseIgnored: boolean) =>
      seatbeltProfile({ workspace: '/Users/me/Project', protectedFolders: ['/users/ME/project/.data'], mode: 'workspace', caseIgnored });
    expect(profile(true)).toContain('(deny file-write* (subpath "/users/ME/project/.data"))');
    expect(profile(false)).not.toContain('.data');
  });

  it('counts a folder whose name starts with two dots as inside the workspace', () => {
    const profile = seatbeltProfile({ workspace: '/w', protectedFolders: ['/w/..data'], mode: 'workspace', caseIgnored: false });
    expect(profile).toContain('(deny file-write* (subpath "/w/..data"))');
  });
});
