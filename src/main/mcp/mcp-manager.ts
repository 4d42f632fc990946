/*
 * The MCP servers the person configured: started with the app, their tools in the registry, restarted after a crash,
 * stopped when disabled.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerConfig, McpServerStatus } from '../../shared/domain';
import { DisposableStore, toDisposable, type Disposable } from '../../shared/lifecycle';
import type { ToolRegistry } from '../agent/ports/tools';
import { mcpTool } from './mcp-tool';

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

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly options: McpManagerOptions,
    private readonly announce: () => void,
  ) {
    this.status = {
      name,
      transport: 'command' in config ? 'stdio' : 'http',
      state: config.disabled ? 'disabled' : 'stopped',
      tools: [],
      error: null,
      restarts: 0,
    };
  }

  /** The pid of a stdio server, for tests that crash it. */
  pid: number | null = null;

  async start(): Promise<void> {
    if (this.config.disabled) return;
    this.stopping = false;
    this.set({ state: this.status.restarts > 0 ? 'restarting' : 'starting', error: null });
    const client = new Client({ name: 'agent-workbench', version: '0.1.0' });
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
      this.client = client;
      this.attempt = 0;
      this.clearTools();
      const tools = listed.tools.map((tool) =>
        mcpTool(
          this.name,
          {
            name: tool.name,
            description: tool.description,
            inputSchema: tool.inputSchema as Record<string, unknown>,
            annotations: tool.annotations,
          },
          () => this.client,
          this.config.trusted,
        ),
      );
      for (const tool of tools) this.tools.add(toDisposable(this.options.registry.register(tool)));
      this.set({ state: 'running', tools: tools.map((tool) => tool.name) });
    } catch (error) {
      this.client = null;
      await client.close().catch(() => undefined);
      this.set({ state: 'failed', error: error instanceof Error ? error.message : String(error) });
      this.scheduleRestart();
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    void this.restart?.dispose();
    this.restart = null;
    this.clearTools();
    const client = this.client;
    this.client = null;
    await client?.close().catch(() => undefined);
    this.set({ state: this.config.disabled ? 'disabled' : 'stopped', tools: [] });
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
 * (namespaced by server), restarted with backoff after a crash, and stopped when disabled.
 */
export class McpManager {
  private readonly connections = new Map<string, Connection>();

  constructor(private readonly options: McpManagerOptions) {}

  statuses(): McpServerStatus[] {
    return [...this.connections.values()].map((connection) => connection.status);
  }

  connection(name: string): { pid: number | null; status: McpServerStatus } | null {
    const found = this.connections.get(name);
    return found ? { pid: found.pid, status: found.status } : null;
  }

  /** Applies a configuration: servers that changed or went away are stopped, new ones started. */
  async configure(servers: Readonly<Record<string, McpServerConfig>>): Promise<void> {
    const starts: Array<Promise<void>> = [];
    for (const [name, connection] of [...this.connections]) {
      if (JSON.stringify(servers[name]) !== JSON.stringify(connection.config)) {
        await connection.stop();
        this.connections.delete(name);
      }
    }
    for (const [name, config] of Object.entries(servers)) {
      if (this.connections.has(name)) continue;
      const connection = new Connection(name, config, this.options, () => this.options.onChanged(this.statuses()));
      this.connections.set(name, connection);
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
