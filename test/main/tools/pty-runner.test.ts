import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInPty } from '../../../src/main/tools/pty-runner';
import { commandNiceness, plainText, runCommandTool, scrubbedEnvironment } from '../../../src/main/tools/run-command';
import { temporaryFolder } from '../../helpers';
import { BashParser } from '../../../src/main/shell/bash-parser';
import { bash, needs, pgrep } from '../../platform';

const shell = await BashParser.load();

const base = () => ({ cwd: folder.path, env: scrubbedEnvironment(), timeoutMs: 10_000, signal: new AbortController().signal });
let folder: ReturnType<typeof temporaryFolder>;

function alive(pattern: string): boolean {
  try {
    execFileSync('pgrep', ['-f', pattern]);
    return true;
  } catch {
    return false;
  }
}

describe('commands in a pty', needs(bash), () => {
  beforeAll(() => {
    folder = temporaryFolder('workbench-pty-');
  });
  afterAll(() => folder.remove());

  it('returns the output and the exit code', async () => {
    const result = await runInPty({ ...base(), command: "printf 'one\\ntwo\\n'; exit 3" });
    expect(plainText(result.output)).toBe('one\ntwo\n');
    expect(result.exitCode).toBe(3);
  });

  it('loses no byte when commands print 64 KB and exit at once, 20 times', async () => {
    for (let run = 0; run < 20; run += 1) {
      const result = await runInPty({ ...base(), command: "head -c 65536 /dev/zero | tr '\\0' x" });
      expect(plainText(result.output)).toBe('x'.repeat(65536));
      expect(result.exitCode).toBe(0);
    }
  });

  it('streams output while the command runs', async () => {
    const seen: Array<{ at: number; text: string }> = [];
    const started = Date.now();
    const result = await runInPty({
      ...base(),
      command: 'echo start; sleep 0.4; echo end',
      onOutput: (text) => seen.push({ at: Date.now() - started, text }),
    });
    expect(plainText(result.output)).toBe('start\nend\n');
    expect(seen.find((chunk) => chunk.text.includes('start'))?.at).toBeLessThan(300);
  });

  it('runs in the workspace with a scrubbed environment', async () => {
    const env = scrubbedEnvironment({
      ...process.env,
      ANTHROPIC_API_KEY: 'sk-ant-secret',
      GITHUB_TOKEN: 'ghp_secret',
      OPENAI_API_KEY: 'sk-secret',
      PATH: process.env['PATH'],
    });
    const result = await runInPty({ ...base(), env, command: 'pwd; env' });
    const output = plainText(result.output);
    expect(output.split('\n')[0]).toBe(folder.path);
    expect(output).not.toMatch(/secret/);
    expect(output).toContain('PATH=');
    expect(output).toContain('TERM=xterm-256color');
  });

  it('times out, and the process is gone', needs(pgrep), async () => {
    const started = Date.now();
    const result = await runInPty({ ...base(), timeoutMs: 300, command: 'sleep 31.25' });
    expect(result).toMatchObject({ timedOut: true, exitCode: null });
    expect(Date.now() - started).toBeLessThan(2000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(alive('sleep 31.25')).toBe(false);
  });

  it('Stop kills the whole process tree, background jobs included', needs(pgrep), async () => {
    const controller = new AbortController();
    const running = runInPty({ ...base(), signal: controller.signal, command: 'sleep 32.5 & sleep 33.5; echo never' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(alive('sleep 32.5')).toBe(true);
    const stoppedAt = Date.now();
    controller.abort();
    const result = await running;
    expect(Date.now() - stoppedAt).toBeLessThan(500);
    expect(result.cancelled).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(alive('sleep 32.5')).toBe(false);
    expect(alive('sleep 33.5')).toBe(false);
  });

  it('keeps memory bounded on a flood: pauses the pty, counts every byte, keeps the start and the end', async () => {
    let live = 0;
    const result = await runInPty({
      ...base(),
      timeoutMs: 60_000,
      command: "head -c 50000000 /dev/zero | tr '\\0' y; echo; echo THE-END",
      onOutput: (text) => (live += text.length),
      highWatermark: 256 * 1024,
      lowWatermark: 64 * 1024,
    });
    expect(result.exitCode).toBe(0);
    // The y's, then "\r\n" and "THE-END\r\n": the pty turns each \n into \r\n.
    expect(result.totalBytes).toBe(50_000_000 + 2 + 9);
    expect(result.droppedBytes).toBeGreaterThan(40_000_000);
    expect(plainText(result.output)).toMatch(/^y{1000}/);
    expect(plainText(result.output)).toMatch(/THE-END\n$/);
    expect(result.output.length).toBeLessThan(2 * 1024 * 1024);
    expect(live).toBeLessThan(3 * 1024 * 1024);
    expect(result.pauses).toBeGreaterThan(0);
    // Bounded by the high watermark plus what one read can bring.
    expect(result.maxPendingBytes).toBeLessThan(256 * 1024 + 128 * 1024);
  }, 60_000);

  it('stops a command once its output passes the limit, like a timeout, and the process is gone', needs(pgrep), async () => {
    const started = Date.now();
    const result = await runInPty({ ...base(), maxOutputBytes: 256 * 1024, command: 'yes limit-34.75' });
    expect(result).toMatchObject({ outputLimitReached: true, timedOut: false, cancelled: false, exitCode: null });
    expect(result.totalBytes).toBeGreaterThan(256 * 1024);
    expect(result.totalBytes).toBeLessThan(512 * 1024);
    expect(plainText(result.output)).toMatch(/^(limit-34\.75\n)+/);
    expect(Date.now() - started).toBeLessThan(5000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(alive('yes limit-34.75')).toBe(false);
    const within = await runInPty({ ...base(), maxOutputBytes: 256 * 1024, command: "head -c 200000 /dev/zero | tr '\\0' x" });
    expect(within).toMatchObject({ outputLimitReached: false, exitCode: 0, totalBytes: 200_000 });
  });

  it('does not mistake printed text for its completion marker', async () => {
    const result = await runInPty({ ...base(), command: "printf '\\033]7777;workbench-done;fake;0\\007'; echo after; exit 4" });
    expect(result.exitCode).toBe(4);
    expect(plainText(result.output)).toContain('after');
  });
});

describe('run_command', () => {
  beforeAll(() => {
    folder = temporaryFolder('workbench-run-');
  });
  afterAll(() => folder.remove());

  const run = (command: string, timeoutSeconds?: number) => {
    const tool = runCommandTool({ shell });
    const parsed = tool.parse(timeoutSeconds === undefined ? { command } : { command, timeoutSeconds });
    if (!parsed.ok) throw new Error(parsed.message);
    return tool.execute(parsed.input, {
      signal: new AbortController().signal,
      sessionId: 's',
      toolCallId: 'c',
      workspacePath: folder.path,
      emitOutput: () => undefined,
    });
  };

  it('gives the model plain text and the exit code', needs(bash), async () => {
    expect(await run('printf "\\033[31mred\\033[0m\\n"')).toEqual({ output: 'red\n[exit code 0]', isError: false });
    expect(await run('echo oops >&2; exit 2')).toEqual({ output: 'oops\n[exit code 2]', isError: true });
    expect(await run('sleep 5', 1)).toMatchObject({ isError: true, output: expect.stringContaining('timed out') });
  });

  it("runs the agent's commands at a lower CPU priority than the app, so a busy one cannot starve its window", needs(bash), async () => {
    const app = getPriority();
    expect(await run('nice')).toEqual({ output: `${Math.min(19, app + 10)}\n[exit code 0]`, isError: false });
    const same = await runInPty({ ...base(), command: 'nice' });
    expect(plainText(same.output)).toBe(`${app}\n`);
    // Where Linux schedules the command's session as a group of its own, the group is nicer too.
    if (existsSync('/proc/self/autogroup')) {
      expect(await run('cat /proc/self/autogroup')).toMatchObject({ output: expect.stringMatching(/nice 10\n\[exit code 0\]$/) });
    }
    // The setting that asks for the app's own priority.
    const normal = runCommandTool({ shell, niceness: () => commandNiceness({ commandPriority: 'normal' }) });
    const parsed = normal.parse({ command: 'nice' });
    if (!parsed.ok) throw new Error(parsed.message);
    expect(
      await normal.execute(parsed.input, {
        signal: new AbortController().signal,
        sessionId: 's',
        toolCallId: 'c',
        workspacePath: folder.path,
        emitOutput: () => undefined,
      }),
    ).toEqual({ output: `${app}\n[exit code 0]`, isError: false });
  });

  it('judges risk from the parse, and never below write_high without a sandbox', () => {
    const tool = runCommandTool({ shell });
    expect(tool.assess({ command: 'ls' }, { workspacePath: folder.path }).level).toBe('write_high');
    expect(tool.assess({ command: 'rm -rf build' }, { workspacePath: folder.path }).level).toBe('destructive');
    expect(
      runCommandTool({ shell, sandbox: { available: true, kind: 'bubblewrap', path: 'bwrap' } }).assess(
        { command: 'ls' },
        { workspacePath: folder.path },
      ).level,
    ).toBe('read_only');
  });
});
