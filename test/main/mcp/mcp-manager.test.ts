import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mcpServersSchema, type McpServerStatus } from '../../../src/shared/domain';
import { ToolRegistry, type Tool } from '../../../src/main/agent/ports/tools';
import { McpManager } from '../../../src/main/mcp/mcp-manager';
import { alive, slowMcpServerArgs, temporaryFolder } from '../../helpers';

const everything = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
const config = { command: process.execPath, args: [everything, 'stdio'], env: {}, disabled: false, trusted: false };

async function until<T>(check: () => T | null | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const call = (tool: Tool, input: unknown) =>
  tool.execute(input, {
    signal: new AbortController().signal,
    sessionId: 's',
    toolCallId: 'c',
    workspacePath: null,
    emitOutput: () => undefined,
  });

describe('MCP servers', () => {
  let registry: ToolRegistry;
  let manager: McpManager;
  let changes: McpServerStatus[][];

  beforeEach(() => {
    registry = new ToolRegistry();
    changes = [];
    manager = new McpManager({
      registry,
      onChanged: (statuses) => changes.push(statuses),
      backoff: { firstMs: 100, maxMs: 1000 },
      baseEnv: { PATH: process.env['PATH'] ?? '' },
    });
  });
  afterEach(async () => manager.dispose());

  it('starts a stdio server and adds its tools, namespaced, with their risk', async () => {
    await manager.configure({ everything: config });
    expect(manager.statuses()[0]).toMatchObject({ name: 'everything', transport: 'stdio', state: 'running', error: null });
    const names = registry.list().map((tool) => tool.name);
    expect(names).toContain('everything__echo');
    expect(names).toContain('everything__get-sum');
    // The server marks echo read-only; its marks are not trusted yet, so echo is a low-risk write, asked for at L1.
    const echo = registry.get('everything__echo');
    expect(echo?.baseRisk).toBe('write_low');
    expect(echo?.assess({ message: 'x' }, { workspacePath: null }).reason).toContain('not trusted');
    expect(registry.get('everything__gzip-file-as-resource')?.baseRisk).toBe('write_high');
    expect(registry.specs().find((spec) => spec.name === 'everything__echo')?.inputSchema).toMatchObject({
      type: 'object',
      properties: { message: expect.any(Object) },
    });
    expect(changes.some((statuses) => statuses[0]?.state === 'starting')).toBe(true);
  });

  it("a server the person trusts has its read-only marks count; its other tools' risk is the same either way", async () => {
    await manager.configure({ everything: { ...config, trusted: true } });
    expect(registry.get('everything__echo')?.baseRisk).toBe('read_only');
    expect(registry.get('everything__gzip-file-as-resource')?.baseRisk).toBe('write_high');
    // Trust taken back: the server starts again with its tools at their untrusted risk.
    await manager.configure({ everything: config });
    await until(() => registry.get('everything__echo')?.baseRisk === 'write_low', 'echo to lose its read-only mark');
  });

  it('calls a tool, and reports a tool error as a failed result', async () => {
    await manager.configure({ everything: config });
    expect(await call(registry.get('everything__echo') as Tool, { message: 'hello' })).toEqual({ output: 'Echo: hello', isError: false });
    expect(await call(registry.get('everything__get-sum') as Tool, { a: 2, b: 3 })).toMatchObject({
      isError: false,
      output: expect.stringContaining('5'),
    });
    const failed = await call(registry.get('everything__get-sum') as Tool, { a: 'two' });
    expect(failed.isError).toBe(true);
    expect(failed.output).toMatch(/expected number/);
  });

  it('restarts a crashed server with backoff, and its tools come back', async () => {
    await manager.configure({ everything: config });
    const pid = manager.connection('everything')?.pid;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid as number, 'SIGKILL');
    await until(() => manager.statuses()[0]?.state === 'failed' || manager.statuses()[0]?.state === 'restarting', 'the crash to be seen');
    expect(registry.get('everything__echo')).toBeUndefined();
    await until(() => manager.statuses()[0]?.state === 'running', 'the restart');
    expect(manager.statuses()[0]?.restarts).toBeGreaterThanOrEqual(1);
    expect(manager.connection('everything')?.pid).not.toBe(pid);
    expect(await call(registry.get('everything__echo') as Tool, { message: 'again' })).toEqual({ output: 'Echo: again', isError: false });
  });

  it('does not start a disabled server, and stops one that is disabled later', async () => {
    await manager.configure({ everything: { ...config, disabled: true } });
    expect(manager.statuses()[0]?.state).toBe('disabled');
    expect(registry.list()).toEqual([]);
    await manager.configure({ everything: config });
    expect(registry.list().length).toBeGreaterThan(5);
    await manager.configure({ everything: { ...config, disabled: true } });
    expect(manager.statuses()[0]?.state).toBe('disabled');
    expect(registry.list()).toEqual([]);
  });

  it('a server turned off while it starts is closed at once, and leaves no process and no tools behind', async () => {
    const folder = temporaryFolder('workbench-mcp-slow-');
    try {
      // A server that takes two seconds to answer its first message, and says its pid as it starts.
      const pidFile = join(folder.path, 'pid');
      const slow = { ...config, args: slowMcpServerArgs(pidFile, 2_000) };
      const starting = manager.configure({ slow });
      const pid = Number(await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8'), 'the server to start'));
      expect(manager.statuses()[0]?.state).toBe('starting');
      await manager.configure({ slow: { ...slow, disabled: true } });
      await starting;
      await until(() => !alive(pid), 'the server process to end', 2_000);
      // Past the time it would have answered: it never joins the registry, nor says it runs.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(registry.list()).toEqual([]);
      expect(manager.statuses()).toEqual([expect.objectContaining({ name: 'slow', state: 'disabled', tools: [] })]);
    } finally {
      folder.remove();
    }
  });

  it('says why a server cannot start, and keeps trying', async () => {
    await manager.configure({ broken: { command: '/no/such/program', args: [], env: {}, disabled: false, trusted: false } });
    expect(manager.statuses()[0]).toMatchObject({ state: 'failed', error: expect.stringMatching(/ENOENT|spawn/) });
    await until(() => (manager.statuses()[0]?.restarts ?? 0) >= 1, 'a retry');
  });

  it('reads a configuration shaped like the common mcpServers JSON and refuses a bad one', () => {
    const parsed = mcpServersSchema.parse({
      files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
      remote: { url: 'https://mcp.example.com/mcp' },
    });
    expect(parsed['files']).toMatchObject({ command: 'npx', env: {}, disabled: false, trusted: false });
    expect(mcpServersSchema.safeParse({ 'bad name!': { command: 'x' } }).success).toBe(false);
    expect(mcpServersSchema.safeParse({ x: { command: 'x', url: 'http://a' } }).success).toBe(false);
    expect(mcpServersSchema.safeParse({ x: { url: 'file:///etc/passwd' } }).success).toBe(false);
  });
});

describe('an MCP server over streamable HTTP', () => {
  it('connects by URL, lists and calls its tools', async () => {
    const { spawn } = await import('node:child_process');
    const { closedPort } = await import('../../helpers');
    const port = await closedPort();
    const child = spawn(process.execPath, [everything, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve());
      child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
    });
    const registry = new ToolRegistry();
    const manager = new McpManager({ registry, onChanged: () => undefined, backoff: { firstMs: 100, maxMs: 1000 } });
    try {
      await manager.configure({ remote: { url: `http://127.0.0.1:${port}/mcp`, headers: {}, disabled: false, trusted: false } });
      expect(manager.statuses()[0]).toMatchObject({ name: 'remote', transport: 'http', state: 'running' });
      expect(await call(registry.get('remote__echo') as Tool, { message: 'over http' })).toEqual({
        output: 'Echo: over http',
        isError: false,
      });
    } finally {
      await manager.dispose();
      child.kill();
    }
  });
});
