import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/main/agent/ports/tools';
import { newId } from '../../../src/main/agent/ports/ids';
import type { ConfSettingsStore } from '../../../src/main/settings/conf-settings-store';
import { BashParser } from '../../../src/main/shell/bash-parser';
import { builtinTools } from '../../../src/main/tools/builtin-tools';
import { limitNote } from '../../../src/main/tools/command-limits';
import { runCommandTool } from '../../../src/main/tools/run-command';
import { detectSandbox } from '../../../src/main/tools/sandbox';
import { defaultCommandLimits, type CommandLimits } from '../../../src/shared/domain';
import { temporaryFolder } from '../../helpers';
import { LoopbackTransport } from '../../host/loopback-transport';
import { createNodeCore } from '../../host/node-core';
import { bash, bubblewrap, needs, ordinaryUser, pgrep } from '../../platform';

const childPath = fileURLToPath(new URL('./limits-child.ts', import.meta.url));
const sandbox = detectSandbox();
const shell = await BashParser.load();
const node = JSON.stringify(process.execPath);
// The kernel never holds root to a process limit, so where the tests run as root the app's side runs as nobody.
const root = process.getuid?.() === 0;
const asUser = root ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];

/** Runs one command through run_command in a process of its own (as an ordinary user), as the app would. */
async function runAsApp(command: string, limits: Partial<CommandLimits>, timeoutSeconds: number, niceness = 10) {
  const request = JSON.stringify({ command, limits, timeoutSeconds, niceness });
  const [program, ...args] = [...asUser, process.execPath, '--import', 'tsx', childPath, request];
  const child = spawn(program as string, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, HOME: tmpdir() } });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  await new Promise((resolve) => child.on('exit', resolve));
  return JSON.parse(text) as { output: string; isError: boolean; longestPause: number };
}

const count = async (pattern: string): Promise<number> => {
  try {
    return Number((await promisify(execFile)('pgrep', ['-c', '-f', pattern])).stdout.trim());
  } catch {
    return 0;
  }
};
const alive = (pattern: string): boolean => {
  try {
    execFileSync('pgrep', ['-f', pattern]);
    return true;
  } catch {
    return false;
  }
};
const settle = () => new Promise((resolve) => setTimeout(resolve, 800));

describe('limits on what a command may use, in the sandbox', needs(bubblewrap, ordinaryUser, pgrep), () => {
  it('stops a fork bomb at the process limit and says so, the app staying responsive and nothing of it left', async () => {
    const marker = `fork-bomb-${randomBytes(6).toString('hex')}`;
    let most = 0;
    let last = Date.now();
    let longestPause = 0;
    const ticking = setInterval(() => {
      longestPause = Math.max(longestPause, Date.now() - last);
      last = Date.now();
      void count(marker).then((now) => (most = Math.max(most, now)));
    }, 100);
    const result = await runAsApp(`bash -c ':(){ :|:& };:; sleep 30' ${marker}`, { processes: 64 }, 3).finally(() =>
      clearInterval(ticking),
    );
    expect(result.isError).toBe(true);
    expect(result.output).toContain('[stopped after 3 s: the command timed out]');
    expect(result.output).toContain('the command reached the process limit (64 processes and threads at once in the sandbox)');
    expect(result.output).toContain('Settings → Command limits');
    expect(most).toBeGreaterThan(10);
    expect(most).toBeLessThanOrEqual(64);
    expect(result.longestPause).toBeLessThan(1000);
    expect(longestPause).toBeLessThan(1000);
    await settle();
    expect(await count(marker)).toBe(0);
  });

  it('lets a parallel build pass under the default limits', async () => {
    // Four processes at once, each with 200 MB of data and four threads of its own, like compilers or a test runner.
    const job = `const { Worker } = require('node:worker_threads'); const kept = Buffer.alloc(200 << 20, 1); const threads = Array.from({ length: 4 }, () => new Worker('let x = 0; for (let i = 0; i < 1e6; i++) x += i;', { eval: true })); Promise.all(threads.map((t) => new Promise((done) => t.on('exit', done)))).then(() => console.log('built', kept.length >> 20))`;
    // At the app's own priority, so that it takes no longer on a busy machine: the limits are what is tested.
    const result = await runAsApp(`for i in 1 2 3 4; do ${node} -e "${job}" & done; wait`, {}, 100, 0);
    expect(result.output.match(/built 200/g)).toHaveLength(4);
    expect(result).toMatchObject({ isError: false, output: expect.stringMatching(/\[exit code 0\]$/) });
  }, 120_000);
});

// The limits as set and enforced inside bubblewrap; under Seatbelt no process limit is set, so these are Linux's.
describe('limits on what a command may use', needs(bubblewrap), () => {
  let folder: ReturnType<typeof temporaryFolder>;
  beforeAll(() => {
    folder = temporaryFolder('workbench-limits-');
  });
  afterAll(() => folder.remove());

  const run = async (command: string, limits: Partial<CommandLimits> = {}, mode: 'workspace' | 'none' = 'workspace') => {
    // At the app's own priority: on a busy machine a nicer CPU hog would take long to use up even a second.
    const tool: Tool = runCommandTool({ shell, sandbox, niceness: () => 0, limits: () => ({ ...defaultCommandLimits, ...limits }) });
    const parsed = tool.parse({ command, sandbox: mode, timeoutSeconds: 50 });
    if (!parsed.ok) throw new Error(parsed.message);
    const started = Date.now();
    const result = await tool.execute(parsed.input, {
      signal: new AbortController().signal,
      sessionId: 's',
      toolCallId: 'c',
      workspacePath: folder.path,
      emitOutput: () => undefined,
    });
    return { ...result, took: Date.now() - started };
  };
  const allocate = (mb: number) =>
    `${node} -e "const kept = []; for (let i = 0; i < ${mb}; i++) kept.push(Buffer.alloc(1 << 20, 1)); console.log('allocated')"`;

  it('ends a process that takes more memory than the limit, and names the limit', async () => {
    const hog = await run(allocate(400), { memoryMb: 256 });
    expect(hog.isError).toBe(true);
    expect(hog.output).not.toMatch(/^allocated$/m);
    expect(hog.output).toContain('run out of memory: each may use at most 256 MB (the memory limit)');
    expect(hog.output).toContain('Settings → Command limits');
    expect(await run(allocate(200))).toMatchObject({ isError: false, output: 'allocated\n[exit code 0]' });
  });

  it('ends a process that uses up its CPU time, and names the limit', async () => {
    const busy = await run('echo busy; while :; do :; done', { cpuSeconds: 1 });
    expect(busy.output).toMatch(/^busy\n\[exit code 152\]\n\[a process used up its CPU time limit \(1 s per process\)/);
    expect(busy.output).not.toContain('WB_SCRIPT');
    // A process inside the command, the command going on after it.
    const inner = await run(`bash -c 'while :; do :; done'; echo went on`, { cpuSeconds: 1 });
    expect(inner.output).toContain('went on\n[exit code 0]\n[a process used up its CPU time limit (1 s per process)');
  }, 120_000);

  it('stops a command that floods its output at the output limit, and says so', needs(pgrep), async () => {
    const marker = `flood-${randomBytes(6).toString('hex')}`;
    const flood = await run(`yes ${marker}`, { outputMb: 1 });
    expect(flood.isError).toBe(true);
    expect(flood.output).toMatch(new RegExp(`^${marker}\n`));
    expect(flood.output).toMatch(/\[stopped: the command printed more than 1 MB, the output limit; .*Settings → Command limits\.\]$/);
    expect(flood.took).toBeLessThan(10_000);
    await settle();
    expect(alive(marker)).toBe(false);
  });

  it('counts processes only inside the sandbox: without it, the limit would count the whole desktop', async () => {
    const own = execFileSync('bash', ['-c', 'ulimit -u'], { encoding: 'utf8' }).trim();
    expect((await run('ulimit -u; ulimit -d; ulimit -t', { processes: 300 })).output).toBe(
      `300\n${4096 * 1024}\n${4 * 3600}\n[exit code 0]`,
    );
    expect((await run('ulimit -u; ulimit -d', { processes: 300 }, 'none')).output).toBe(`${own}\n${4096 * 1024}\n[exit code 0]`);
  });
});

describe('a limit saved in the settings', needs(bash), () => {
  it('holds for the next command, as the app wires them', async () => {
    const folder = temporaryFolder('workbench-limits-');
    const transport = new LoopbackTransport();
    let settings: ConfSettingsStore | null = null;
    const tools = builtinTools({
      dataDir: folder.path,
      newId: () => newId(),
      now: () => Date.now(),
      shell,
      sandbox,
      commandLimits: () => settings?.get().commandLimits ?? defaultCommandLimits,
    });
    const created = await createNodeCore({ dataDir: folder.path, transport, tools, sandbox });
    settings = created.settings;
    try {
      const saved = await transport.invoke('settings:update', { commandLimits: { ...defaultCommandLimits, outputMb: 1 } });
      expect(saved.ok).toBe(true);
      const tool = tools.find((candidate) => candidate.name === 'run_command');
      const parsed = tool?.parse({ command: 'yes saved-limit' });
      if (!tool || !parsed?.ok) throw new Error('run_command is missing');
      const result = await tool.execute(parsed.input, {
        signal: new AbortController().signal,
        sessionId: 's',
        toolCallId: 'c',
        workspacePath: folder.path,
        emitOutput: () => undefined,
      });
      expect(result.output).toContain('[stopped: the command printed more than 1 MB, the output limit;');
    } finally {
      await created.core.close();
      folder.remove();
    }
  });
});

describe('the note on a limit', () => {
  const limits = { memoryMb: 4096, processes: 1024, cpuSeconds: 14_400 };

  it('names the memory limit from what runtimes say when an allocation fails', () => {
    for (const said of [
      'Traceback (most recent call last):\nMemoryError',
      'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory',
      "terminate called after throwing an instance of 'std::bad_alloc'",
      'sort: memory exhausted',
      'cc1plus: out of memory allocating 65536 bytes: Cannot allocate memory',
      'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space',
      'memory allocation of 1073741824 bytes failed',
    ])
      expect(limitNote({ exitCode: 1, output: said }, limits)).toContain('each may use at most 4 GB (the memory limit)');
  });

  it('names the process limit from failed forks, in the sandbox only', () => {
    const forks = 'bash: fork: retry: Resource temporarily unavailable';
    expect(limitNote({ exitCode: 254, output: forks }, limits)).toContain('process limit (1024 processes and threads at once');
    expect(limitNote({ exitCode: 1, output: 'BlockingIOError: [Errno 11] Resource temporarily unavailable' }, limits)).toContain(
      'process limit',
    );
    // Outside the sandbox no process limit is set: a failed fork there is the person's own limit, not the app's.
    expect(limitNote({ exitCode: 254, output: forks }, { memoryMb: 4096, cpuSeconds: 60 })).toBeNull();
  });

  it('blames no limit for a command that succeeded or failed for its own reasons', () => {
    expect(limitNote({ exitCode: 0, output: 'grep found: std::bad_alloc, MemoryError' }, limits)).toBeNull();
    expect(limitNote({ exitCode: 2, output: 'make: *** [all] Error 2' }, limits)).toBeNull();
    expect(limitNote({ exitCode: 152, output: '' }, limits)).toContain('CPU time limit (4 h per process)');
  });
});
