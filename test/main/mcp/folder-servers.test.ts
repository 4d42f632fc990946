import { getEventListeners } from 'node:events';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { McpServerStatus } from '../../../src/shared/domain';
import { defineTool, ToolRegistry, type Tool } from '../../../src/main/agent/ports/tools';
import { FolderServers, type FolderServersOptions } from '../../../src/main/mcp/folder-servers';
import { McpManager, type FolderServer } from '../../../src/main/mcp/mcp-manager';
import { alive, slowMcpServerArgs, temporaryFolder, waitFor } from '../../helpers';
import { z } from 'zod';

const everything = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
const everythingEntry = { command: process.execPath, args: [everything, 'stdio'] };

const call = (tool: Tool | undefined, input: unknown) => {
  if (!tool) throw new Error('no such tool');
  return tool.execute(input, {
    signal: new AbortController().signal,
    sessionId: 's',
    toolCallId: 'c',
    workspacePath: null,
    emitOutput: () => undefined,
  });
};

function writeJson(folder: string, path: string, value: unknown): void {
  mkdirSync(join(folder, path, '..'), { recursive: true });
  writeFileSync(join(folder, path), typeof value === 'string' ? value : JSON.stringify(value));
}

describe("a trusted folder's own MCP servers", () => {
  let registry: ToolRegistry;
  let manager: McpManager;
  let servers: FolderServers;
  let trusted: Set<string>;
  /** The folders sessions work in: every folder unless a test says otherwise. */
  let deleted: Set<string>;
  let root: ReturnType<typeof temporaryFolder>;
  let project: string;
  let other: string;
  const signal = new AbortController().signal;
  const statuses = (): McpServerStatus[] => manager.statuses();

  beforeEach(() => {
    root = temporaryFolder('workbench-folder-mcp-');
    project = join(root.path, 'project');
    other = join(root.path, 'other');
    mkdirSync(project);
    mkdirSync(other);
    registry = new ToolRegistry();
    manager = new McpManager({
      registry,
      onChanged: () => undefined,
      backoff: { firstMs: 100, maxMs: 1000 },
      baseEnv: { PATH: process.env['PATH'] ?? '' },
    });
    trusted = new Set();
    deleted = new Set();
    servers = new FolderServers({
      mcp: manager,
      trust: { stateOf: (path) => ({ path, trusted: trusted.has(path), decided: true, by: null, parent: null }) },
      inUse: (folder) => !deleted.has(folder),
      protectedRoots: [join(root.path, 'data')],
    });
  });
  afterEach(async () => {
    await servers.dispose();
    await manager.dispose();
    root.remove();
  });

  it('closes at once while a server is still starting, and leaves its process behind no more', async () => {
    // A server that takes five seconds to answer its first message, and says its pid (in the folder) as it starts.
    writeJson(project, '.mcp.json', { mcpServers: { slow: { command: process.execPath, args: slowMcpServerArgs('pid', 5_000) } } });
    trusted.add(project);
    const preparing = servers.prepare(project, signal);
    await waitFor(() => existsSync(join(project, 'pid')), 10_000, 'the server to start');
    const pid = Number(readFileSync(join(project, 'pid'), 'utf8'));
    const started = Date.now();
    await servers.dispose();
    expect(Date.now() - started).toBeLessThan(2_500);
    await preparing;
    await waitFor(() => !alive(pid), 2_000, 'the server process to end');
    expect(statuses()).toEqual([]);
    expect(registry.list()).toEqual([]);
  });

  it("starts a trusted folder's server, says where it comes from, and offers its tools to that folder's sessions only", async () => {
    // The file's own word that its marks are to be trusted counts for nothing.
    writeJson(project, '.mcp.json', { mcpServers: { everything: { ...everythingEntry, trusted: true } } });
    trusted.add(project);
    await servers.prepare(project, signal);
    expect(statuses()).toEqual([
      expect.objectContaining({ name: 'everything', state: 'running', source: { folder: project, file: '.mcp.json' } }),
    ]);
    expect(registry.list(project).map((tool) => tool.name)).toContain('everything__echo');
    expect(registry.list(other).map((tool) => tool.name)).not.toContain('everything__echo');
    expect(registry.list(null)).toEqual([]);
    expect(registry.specs([], other)).toEqual([]);
    expect(registry.get('everything__echo', other)).toBeUndefined();
    expect(registry.get('everything__echo')).toBeUndefined();
    const echo = registry.get('everything__echo', project);
    expect(echo?.baseRisk).toBe('write_low');
    expect(echo?.description).toContain("this folder's .mcp.json");
    expect(await call(echo, { message: 'from the folder' })).toEqual({ output: 'Echo: from the folder', isError: false });
  });

  it('starts nothing of a folder the person does not trust', async () => {
    const marker = (folder: string) => join(folder, 'started');
    const starter = { command: process.execPath, args: ['-e', "require('fs').writeFileSync('started', '')"] };
    writeJson(project, '.mcp.json', { mcpServers: { starter } });
    writeJson(other, '.mcp.json', { mcpServers: { starter } });
    await servers.prepare(project, signal);
    await servers.refresh();
    expect(statuses()).toEqual([]);
    // The same file in a trusted folder does start its program (which is no server, so it fails): the test can tell.
    trusted.add(other);
    await servers.prepare(other, signal);
    await waitFor(() => existsSync(marker(other)), 10_000, 'the trusted folder to start its program');
    expect(statuses()[0]).toMatchObject({ name: 'starter', state: expect.stringMatching(/failed|restarting|starting/) });
    expect(existsSync(marker(project))).toBe(false);
  });

  it('stops the servers once trust is taken back, and follows the file as it changes and goes', async () => {
    writeJson(project, '.mcp.json', { mcpServers: { everything: everythingEntry } });
    trusted.add(project);
    await servers.prepare(project, signal);
    const pid = manager.connection('everything', project)?.pid;
    expect(pid).toBeGreaterThan(0);

    trusted.delete(project);
    await servers.refresh();
    expect(statuses()).toEqual([]);
    expect(registry.list(project)).toEqual([]);
    await waitFor(() => !alive(pid as number), 5_000, 'the server process to end');

    trusted.add(project);
    await servers.prepare(project, signal);
    expect(registry.get('everything__echo', project)).toBeDefined();
    writeJson(project, '.mcp.json', { mcpServers: { renamed: everythingEntry } });
    await servers.refresh();
    expect(statuses().map((status) => status.name)).toEqual(['renamed']);
    expect(registry.get('everything__echo', project)).toBeUndefined();
    expect(await call(registry.get('renamed__echo', project), { message: 'new name' })).toMatchObject({ output: 'Echo: new name' });

    rmSync(join(project, '.mcp.json'));
    await servers.refresh();
    expect(statuses()).toEqual([]);
    expect(registry.list(project)).toEqual([]);
  });

  it("stops a folder's servers once no session works in it, and starts them again when a new one's turn asks", async () => {
    writeJson(project, '.mcp.json', { mcpServers: { everything: everythingEntry } });
    writeJson(other, '.mcp.json', { mcpServers: { everything: everythingEntry } });
    trusted.add(project);
    trusted.add(other);
    await Promise.all([servers.prepare(project, signal), servers.prepare(other, signal)]);
    const pid = manager.connection('everything', project)?.pid;
    expect(pid).toBeGreaterThan(0);

    // The project's last session is deleted: its server ends, and the other folder's runs on.
    deleted.add(project);
    await servers.refresh();
    expect(statuses().map((status) => status.source?.folder)).toEqual([other]);
    expect(registry.list(project).map((tool) => tool.name)).not.toContain('everything__echo');
    await waitFor(() => !alive(pid as number), 5_000, 'the server process to end');
    // Later looks start nothing there.
    await servers.refresh();
    expect(manager.connection('everything', project)).toBeNull();

    deleted.delete(project);
    await servers.prepare(project, signal);
    expect(await call(registry.get('everything__echo', project), { message: 'back' })).toMatchObject({ output: 'Echo: back' });
  });

  it('says what is wrong with a bad file or entry, and starts the good ones all the same', async () => {
    writeJson(project, '.mcp.json', '{ "mcpServers": { nope');
    writeJson(project, '.cursor/mcp.json', {
      mcpServers: {
        neither: { args: ['x'] },
        missing: { command: join(project, 'no-such-program') },
        local: { url: 'file:///etc/passwd' },
      },
    });
    writeJson(project, '.vscode/mcp.json', { servers: { everything: everythingEntry } });
    trusted.add(project);
    await servers.prepare(project, signal);
    // The missing program is tried again and again with backoff: it is looked at between two tries.
    await waitFor(() => statuses().find((status) => status.name === 'missing')?.state === 'failed', 5_000, 'the missing program to fail');
    // In the order of the files and of their entries.
    expect(statuses().map((status) => status.name)).toEqual(['.mcp.json', 'neither', 'missing', 'local', 'everything']);
    const byName = new Map(statuses().map((status) => [status.name, status]));
    expect(byName.get('.mcp.json')).toMatchObject({ state: 'failed', error: '.mcp.json is not valid JSON.' });
    expect(byName.get('neither')).toMatchObject({ state: 'failed', error: expect.stringContaining('needs a command or a url') });
    // Shown as the kind of server its entry names: a url is reached over HTTP, not started.
    expect(byName.get('local')).toMatchObject({ state: 'failed', transport: 'http', error: expect.stringContaining('not http(s)') });
    expect(byName.get('missing')).toMatchObject({ transport: 'stdio' });
    expect(byName.get('missing')).toMatchObject({ state: 'failed', error: expect.stringMatching(/ENOENT|spawn/) });
    expect(byName.get('missing')?.source).toEqual({ folder: project, file: '.cursor/mcp.json' });
    expect(byName.get('everything')).toMatchObject({ state: 'running', source: { folder: project, file: '.vscode/mcp.json' } });
    expect(await call(registry.get('everything__echo', project), { message: 'still here' })).toMatchObject({ output: 'Echo: still here' });
  });

  it("never replaces a tool of the person's own of the same name: the folder's takes another", async () => {
    const own = defineTool({
      name: 'everything__echo',
      description: "the person's own echo",
      input: z.object({}),
      risk: 'read_only',
      execute: async () => ({ output: 'mine' }),
    });
    registry.register(own);
    writeJson(project, '.mcp.json', { mcpServers: { everything: everythingEntry } });
    trusted.add(project);
    await servers.prepare(project, signal);
    expect(registry.get('everything__echo', project)).toBe(own);
    expect(registry.list(project).filter((tool) => tool.name === 'everything__echo')).toEqual([own]);
    expect(await call(registry.get('folder_everything__echo', project), { message: 'renamed' })).toMatchObject({ output: 'Echo: renamed' });
    expect(statuses()[0]?.notes).toContain(
      "everything__echo is the name of one of your own tools: this folder's is named folder_everything__echo.",
    );
  });

  it('keeps two folders with a server of the same name apart, each in its own sessions', async () => {
    writeJson(project, '.mcp.json', { mcpServers: { everything: everythingEntry } });
    writeJson(other, '.mcp.json', { mcpServers: { everything: everythingEntry } });
    trusted.add(project);
    trusted.add(other);
    await Promise.all([servers.prepare(project, signal), servers.prepare(other, signal), servers.prepare(project, signal)]);
    expect(statuses()).toHaveLength(2);
    const first = registry.get('everything__echo', project);
    const second = registry.get('everything__echo', other);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(first).not.toBe(second);
    expect(manager.connection('everything', project)?.pid).not.toBe(manager.connection('everything', other)?.pid);
    await servers.dispose();
    expect(statuses()).toEqual([]);
    expect(registry.list(project)).toEqual([]);
  });
});

describe("a folder's servers as the manager is asked for them", () => {
  let root: ReturnType<typeof temporaryFolder>;
  let project: string;
  /** What the manager was asked to run, folder by folder, in order. */
  let asked: Array<{ folder: string; servers: readonly FolderServer[] }>;
  /** What the manager's next changes wait for before they end: nothing, unless a test holds them. */
  let held: Promise<void>;
  const owned: FolderServers[] = [];

  beforeEach(() => {
    root = temporaryFolder('workbench-folder-mcp-');
    project = join(root.path, 'project');
    mkdirSync(project);
    writeJson(project, '.mcp.json', { mcpServers: { tool: { command: 'some-tool', args: [] } } });
    asked = [];
    held = Promise.resolve();
  });
  afterEach(async () => {
    held = Promise.resolve();
    await Promise.all(owned.splice(0).map((servers) => servers.dispose()));
    root.remove();
  });

  function folderServers(options: Partial<FolderServersOptions> = {}): FolderServers {
    const servers = new FolderServers({
      mcp: {
        configureFolder: async (folder, wanted) => {
          asked.push({ folder, servers: wanted });
          await held;
        },
        folders: () => [],
      },
      trust: null,
      inUse: () => true,
      protectedRoots: [join(root.path, 'data')],
      ...options,
    });
    owned.push(servers);
    return servers;
  }

  it("fills a folder's ${...} from the environment it was given, never from the process's own", async () => {
    writeJson(project, '.mcp.json', {
      mcpServers: {
        greeter: { command: 'greet', args: ['${WORKBENCH_TEST_GREETING}', '${userHome}'] },
        pathed: { command: 'walk', args: ['${PATH}'] },
      },
    });
    const servers = folderServers({ expansion: { env: { WORKBENCH_TEST_GREETING: 'hello' }, home: '/home/ada' } });
    await servers.prepare(project, new AbortController().signal);
    const [greeter, pathed] = asked[0]?.servers ?? [];
    expect(greeter?.config).toMatchObject({ command: 'greet', args: ['hello', '/home/ada'] });
    // PATH is in the test's environment, not in the one given: the server does not start, and says why.
    expect(process.env['PATH']).toBeDefined();
    expect(pathed).toMatchObject({ config: null, problem: expect.stringContaining('${PATH}') });
  });

  it("leaves nothing on the turn's signal, whether the servers start, take too long, or the turn is stopped", async () => {
    const servers = folderServers({ waitMs: 50 });
    const turn = new AbortController();
    const listeners = (): number => getEventListeners(turn.signal, 'abort').length;
    await servers.prepare(project, turn.signal);
    expect(asked).toHaveLength(1);
    expect(listeners()).toBe(0);

    // The manager takes its time: each turn goes on without it after the wait.
    let release = (): void => undefined;
    held = new Promise((resolve) => (release = resolve));
    const started = Date.now();
    await servers.prepare(project, turn.signal);
    await servers.prepare(project, turn.signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(listeners()).toBe(0);

    // Stopped while it waits: it ends at once.
    const waiting = servers.prepare(project, turn.signal);
    expect(listeners()).toBe(1);
    turn.abort();
    await waiting;
    expect(listeners()).toBe(0);

    // Stopped before it began: it does not wait for the servers either (here they would be waited for a minute).
    const patient = folderServers({ waitMs: 60_000 });
    const late = Date.now();
    await patient.prepare(project, turn.signal);
    expect(Date.now() - late).toBeLessThan(2_000);
    expect(listeners()).toBe(0);
    release();
  });

  it('asks nothing more once its database is closed, and says nothing of it; other failures are still said', async () => {
    let open = true;
    let failure: Error | null = null;
    const servers = folderServers({
      inUse: () => {
        if (!open) throw new TypeError('The database connection is not open');
        if (failure) throw failure;
        return true;
      },
      storeOpen: () => open,
    });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await servers.prepare(project, new AbortController().signal);
      expect(asked).toHaveLength(1);

      // Closed as a crash leaves it: the looks every few seconds, and a turn, change nothing and log nothing.
      open = false;
      await servers.refresh();
      await servers.refresh();
      await servers.prepare(project, new AbortController().signal);
      expect(asked).toHaveLength(1);
      expect(errors).not.toHaveBeenCalled();

      open = true;
      failure = new Error('disk I/O error');
      await servers.refresh();
      expect(errors).toHaveBeenCalledWith(`Could not apply the MCP servers of ${project}:`, 'disk I/O error');
    } finally {
      errors.mockRestore();
    }
  });
});
