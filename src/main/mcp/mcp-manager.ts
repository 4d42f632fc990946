/*
 * The MCP servers the person configured (started with the app) and those of trusted folders (started for their
 * sessions): their tools in the registry, restarted after a crash, stopped when disabled or gone.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerConfig, McpServerStatus } from '../../shared/domain';
import { DisposableStore, toDisposable, type Disposable } from '../../shared/lifecycle';
import type { ToolRegistry } from '../agent/ports/tools';
import { mcpTool, namespacedName } from './mcp-tool';

/** One server a folder configures: its config, or why it cannot start (a file not JSON, an entry that is neither kind). */
export interface FolderServer {
  readonly name: string;
  /** The file that names it, relative to the folder. */
  readonly file: string;
  readonly config: McpServerConfig | null;
  readonly problem?: string;
  /** How an entry that cannot start would have been reached, where it said (a `url` that is not http(s)). */
  readonly transport?: McpServerStatus['transport'];
}

/** A folder's server: where it comes from, and why it cannot start when it cannot. */
interface Origin {
  readonly folder: string;
  readonly file: string;
  readonly problem?: string;
  readonly transport?: McpServerStatus['transport'];
}

/** The key of a server: a person's by its name, a folder's by the folder and its name. */
const keyOf = (name: string, folder?: string): string => (folder === undefined ? name : `${folder}\u0000${name}`);

export interface McpManagerOptions {
  readonly registry: ToolRegistry;
  readonly onChanged: (statuses: McpServerStatus[]) => void;
  /** Restart delays: the first, doubling up to the last. */
  readonly backoff?: { readonly firstMs: number; readonly maxMs: number };
  /** Environment a stdio server starts with (scrubbed by the caller), before its own `env`. */
  readonly baseEnv?: Readonly<Record<string, string>>;
}

class Connection {
  status: McpServerStatus;
  client: Client | null = null;
  /** The server's tools in the registry, while it runs. */
  private tools = new DisposableStore();
  private stopping = false;
  private restart: Disposable | null = null;
  private attempt = 0;
  /** Counted up by each start and stop: a start that finds it changed after a wait was stopped meanwhile. */
  private generation = 0;
  /** The client a start is connecting, which a stop meanwhile closes at once rather than wait for it. */
  private connecting: Client | null = null;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly options: McpManagerOptions,
    private readonly announce: () => void,
    readonly origin?: Origin,
  ) {
    this.status = {
      name,
      transport: origin?.transport ?? ('command' in config ? 'stdio' : 'http'),
      state: config.disabled ? 'disabled' : 'stopped',
      tools: [],
      error: null,
      restarts: 0,
      ...(origin ? { source: { folder: origin.folder, file: origin.file } } : {}),
    };
  }

  /** The pid of a stdio server, for tests that crash it. */
  pid: number | null = null;

  async start(): Promise<void> {
    if (this.config.disabled) return;
    if (this.origin?.problem !== undefined) {
      // Nothing to start: the person sees why, and the folder's other servers start as usual.
      this.set({ state: 'failed', error: this.origin.problem });
      return;
    }
    this.stopping = false;
    const generation = ++this.generation;
    const stoppedMeanwhile = (): boolean => generation !== this.generation;
    this.set({ state: this.status.restarts > 0 ? 'restarting' : 'starting', error: null });
    const client = new Client({ name: 'agent-workbench', version: '0.1.0' });
    this.connecting = client;
    try {
      const transport =
        'command' in this.config
          ? new StdioClientTransport({
              command: this.config.command,
              args: this.config.args,
              env: { ...this.options.baseEnv, ...this.config.env },
              ...(this.config.cwd ? { cwd: this.config.cwd } : {}),
              stderr: 'pipe',
            })
          : new StreamableHTTPClientTransport(new URL(this.config.url), { requestInit: { headers: this.config.headers } });
      client.onclose = () => this.closed();
      await client.connect(transport);
      this.pid = transport instanceof StdioClientTransport ? transport.pid : null;
      const listed = await client.listTools();
      // Stopped while it started (removed, disabled, its folder's trust taken back, the app closing): nothing of it stays.
      if (stoppedMeanwhile()) {
        await client.close().catch(() => undefined);
        return;
      }
      this.client = client;
      this.attempt = 0;
      this.clearTools();
      const notes: string[] = [];
      const tools = listed.tools.flatMap((tool) => {
        const name = this.nameFor(tool.name, notes);
        if (name === null) return [];
        const description = {
          name: tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema as Record<string, unknown>,
          annotations: tool.annotations,
        };
        const origin = this.origin;
        return [
          origin
            ? // A folder's word makes no mark count: its tools are at least low-risk writes, whatever the file says.
              mcpTool(this.name, description, () => this.client, { folder: { path: origin.folder, file: origin.file }, name })
            : mcpTool(this.name, description, () => this.client, { trusted: this.config.trusted }),
        ];
      });
      for (const tool of tools) this.tools.add(toDisposable(this.options.registry.register(tool)));
      this.set({ state: 'running', tools: tools.map((tool) => tool.name), ...(notes.length > 0 ? { notes: notes.slice(0, 20) } : {}) });
    } catch (error) {
      await client.close().catch(() => undefined);
      if (stoppedMeanwhile()) return;
      this.client = null;
      this.set({ state: 'failed', error: error instanceof Error ? error.message : String(error) });
      this.scheduleRestart();
    } finally {
      if (this.connecting === client) this.connecting = null;
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.generation += 1;
    void this.restart?.dispose();
    this.restart = null;
    this.clearTools();
    const client = this.client;
    const connecting = this.connecting;
    this.client = null;
    this.connecting = null;
    await Promise.all([client?.close(), connecting?.close()].map((closing) => closing?.catch(() => undefined)));
    this.set({ state: this.config.disabled ? 'disabled' : 'stopped', tools: [] });
  }

  /**
   * The name a tool of this server has in the registry. A folder's tool whose name a tool of every session has (a
   * person's server's, a built-in) takes the name under `folder_`, or none when that is taken too: the person's stays.
   */
  private nameFor(tool: string, notes: string[]): string | null {
    const name = namespacedName(this.name, tool);
    if (!this.origin || !this.options.registry.takenEverywhere(name)) return name;
    const other = namespacedName(`folder_${this.name}`, tool);
    if (!this.options.registry.takenEverywhere(other)) {
      notes.push(`${name} is the name of one of your own tools: this folder's is named ${other}.`);
      return other;
    }
    notes.push(`${name} is the name of one of your own tools: this folder's is left out.`);
    return null;
  }

  private closed(): void {
    if (this.stopping || this.client === null) return;
    // The server went away on its own: a crash. Its tools leave the registry until it is back.
    this.client = null;
    this.clearTools();
    this.set({ state: 'failed', tools: [], error: 'The server stopped unexpectedly.' });
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    if (this.stopping || this.restart !== null) return;
    const { firstMs, maxMs } = this.options.backoff ?? { firstMs: 1_000, maxMs: 60_000 };
    const delay = Math.min(maxMs, firstMs * 2 ** this.attempt);
    this.attempt += 1;
    const timer = setTimeout(() => {
      this.restart = null;
      this.status = { ...this.status, restarts: this.status.restarts + 1 };
      void this.start();
    }, delay);
    timer.unref?.();
    this.restart = toDisposable(() => clearTimeout(timer));
  }

  private clearTools(): void {
    void this.tools.dispose();
    this.tools = new DisposableStore();
  }

  private set(patch: Partial<McpServerStatus>): void {
    this.status = { ...this.status, ...patch };
    this.announce();
  }
}

/**
 * The MCP servers the person configured: started with the app, their tools in the registry
 * (namespaced by server), restarted with backoff after a crash, and stopped when disabled. And those of folders
 * (`configureFolder`), the same way, their tools offered in that folder's sessions only.
 */
export class McpManager {
  private readonly connections = new Map<string, Connection>();

  constructor(private readonly options: McpManagerOptions) {}

  statuses(): McpServerStatus[] {
    return [...this.connections.values()].map((connection) => connection.status);
  }

  /** A server of the person's (by name), or of a folder's. */
  connection(name: string, folder?: string): { pid: number | null; status: McpServerStatus } | null {
    const found = this.connections.get(keyOf(name, folder));
    return found ? { pid: found.pid, status: found.status } : null;
  }

  /** Applies the person's configuration: servers that changed or went away are stopped, new ones started. */
  async configure(servers: Readonly<Record<string, McpServerConfig>>): Promise<void> {
    const wanted = new Map(Object.entries(servers).map(([name, config]) => [keyOf(name), { name, config }] as const));
    await this.apply((connection) => connection.origin === undefined, wanted);
  }

  /**
   * Applies what a folder configures (none: its servers all stop): those that changed or went away are stopped, new
   * ones started; the person's servers and other folders' are left as they are.
   */
  async configureFolder(folder: string, servers: readonly FolderServer[]): Promise<void> {
    const wanted = new Map(
      servers.map((server) => {
        // An entry that cannot start is kept as a failed server, so the person sees why.
        const config: McpServerConfig = server.config ?? { command: '', args: [], env: {}, disabled: false, trusted: false };
        const origin: Origin = {
          folder,
          file: server.file,
          ...(server.problem === undefined ? {} : { problem: server.problem }),
          ...(server.transport === undefined ? {} : { transport: server.transport }),
        };
        return [keyOf(server.name, folder), { name: server.name, config, origin }] as const;
      }),
    );
    await this.apply((connection) => connection.origin?.folder === folder, wanted);
  }

  /** The folders whose servers are kept now. */
  folders(): string[] {
    const folders = new Set<string>();
    for (const connection of this.connections.values()) if (connection.origin) folders.add(connection.origin.folder);
    return [...folders];
  }

  private async apply(
    mine: (connection: Connection) => boolean,
    wanted: ReadonlyMap<string, { name: string; config: McpServerConfig; origin?: Origin }>,
  ): Promise<void> {
    const starts: Array<Promise<void>> = [];
    for (const [key, connection] of [...this.connections]) {
      if (!mine(connection)) continue;
      const next = wanted.get(key);
      if (!next || JSON.stringify([next.config, next.origin]) !== JSON.stringify([connection.config, connection.origin])) {
        await connection.stop();
        this.connections.delete(key);
      }
    }
    for (const [key, { name, config, origin }] of wanted) {
      if (this.connections.has(key)) continue;
      const connection = new Connection(name, config, this.options, () => this.options.onChanged(this.statuses()), origin);
      this.connections.set(key, connection);
      starts.push(connection.start());
    }
    this.options.onChanged(this.statuses());
    await Promise.all(starts);
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.stop()));
    this.connections.clear();
  }
}
