/*
 * A trusted folder's own MCP servers (`.mcp.json` and the files other tools read): started when a turn begins in one of
 * its sessions, stopped when its trust is taken back or its last session is deleted, restarted when its files change.
 */

import { homedir } from 'node:os';
import type { FolderTrustSource } from '../agent/ports/folder-trust';
import type { WorkspaceToolSource } from '../agent/ports/tools';
import { scrubbedEnvironment } from '../tools/run-command';
import { WorkspaceFiles } from '../workspace/workspace-files';
import type { FolderServer, McpManager } from './mcp-manager';
import { readFolderServers, type ExpansionContext } from './project-servers';

export interface FolderServersOptions {
  readonly mcp: Pick<McpManager, 'configureFolder' | 'folders'>;
  /** The person's trust in folders; none: every folder is trusted (as the rest of the app then has it). */
  readonly trust: Pick<FolderTrustSource, 'stateOf'> | null;
  /** Whether a session (not deleted) still works in the folder: one none does has its servers stopped. */
  readonly inUse: (folder: string) => boolean;
  /** Folders never read as part of a workspace (the app's data). */
  readonly protectedRoots: readonly string[];
  /** How long a turn waits for a folder's servers to start before it asks the model without them. */
  readonly waitMs?: number;
  /**
   * What a folder's `${...}` are filled in from, besides the folder itself; none: the app's scrubbed environment and the
   * person's home, taken once when the servers are made (the app's environment is settled, its login shell's read, before then).
   */
  readonly expansion?: Omit<ExpansionContext, 'folder'>;
  /**
   * Whether the database `inUse` and `trust` read is still open; once it is closed (as a crash leaves it), the folders'
   * servers are left as they are until `dispose`, and a refresh changes nothing and says nothing.
   */
  readonly storeOpen?: () => boolean;
}

/**
 * The servers of the folders sessions work in. A folder the person does not trust has none started, and nothing of it
 * is read for them; nor does a folder no session works in any more (its last one was deleted) until a turn in a new one
 * asks for them again. Each folder's changes are made one after the other, so a turn and a refresh never start a server
 * twice.
 */
export class FolderServers implements WorkspaceToolSource {
  /** The folders a turn asked for, by the path its session names. */
  private readonly used = new Set<string>();
  private readonly queues = new Map<string, Promise<void>>();
  private closed = false;
  private readonly expansion: Omit<ExpansionContext, 'folder'>;

  constructor(private readonly options: FolderServersOptions) {
    this.expansion = options.expansion ?? { env: scrubbedEnvironment(), home: homedir(), namesIgnoreCase: process.platform === 'win32' };
  }

  /** Starts the folder's servers (or finds them running as its files say) when the person trusts it; never throws. */
  async prepare(workspacePath: string, signal: AbortSignal): Promise<void> {
    if (this.closed || !this.storeOpen() || !this.trusted(workspacePath)) return;
    this.used.add(workspacePath);
    const applied = this.apply(workspacePath);
    const waitMs = this.options.waitMs ?? 20_000;
    // A slow server does not hold the turn up for long: it goes on without it, and the server's tools come when it is up.
    let timer: NodeJS.Timeout | undefined;
    let stopWaiting = (): void => undefined;
    const waited = new Promise<void>((resolve) => {
      stopWaiting = () => resolve();
      // A turn stopped before it got here does not wait at all.
      if (signal.aborted) return resolve();
      timer = setTimeout(stopWaiting, waitMs);
      timer.unref?.();
      signal.addEventListener('abort', stopWaiting, { once: true });
    });
    try {
      await Promise.race([applied, waited]);
    } finally {
      // The turn's signal lives on after this: nothing of this wait is left on it.
      clearTimeout(timer);
      signal.removeEventListener('abort', stopWaiting);
    }
  }

  /**
   * Looks again at every folder whose servers are kept: one no longer trusted, or that no session works in any more, has
   * them stopped; one whose files changed has those that changed restarted. Asked whenever the person's trust decisions
   * change (so trust taken back stops a folder's servers at once), when a session is deleted, and every few seconds.
   */
  async refresh(): Promise<void> {
    if (!this.storeOpen()) return;
    const folders = new Set([...this.used, ...this.options.mcp.folders()]);
    await Promise.all([...folders].map((folder) => this.apply(folder)));
  }

  /** Stops every folder's servers. */
  async dispose(): Promise<void> {
    this.closed = true;
    const folders = new Set([...this.used, ...this.options.mcp.folders()]);
    this.used.clear();
    // Not behind the folder's other changes: a server still starting is closed at once, rather than waited for.
    await Promise.all([...folders].map((folder) => this.options.mcp.configureFolder(folder, [])));
  }

  private storeOpen(): boolean {
    return this.options.storeOpen?.() ?? true;
  }

  private trusted(folder: string): boolean {
    const { trust } = this.options;
    return trust === null || trust.stateOf(folder).trusted;
  }

  /**
   * The folder's servers made what its files say now, or none when it is not trusted, no session works in it (or the
   * files cannot be read). Whether a session does is read when the change is made, after the changes before it: a turn
   * in a session made meanwhile keeps what it started.
   */
  private apply(folder: string): Promise<void> {
    return this.queued(folder, async () => {
      if (this.closed || !this.storeOpen()) return;
      if (!this.trusted(folder) || !this.options.inUse(folder)) {
        this.used.delete(folder);
        await this.options.mcp.configureFolder(folder, []);
        return;
      }
      await this.options.mcp.configureFolder(folder, await this.read(folder));
    });
  }

  private async read(folder: string): Promise<FolderServer[]> {
    let reader: ReturnType<WorkspaceFiles['reader']> | null = null;
    try {
      reader = new WorkspaceFiles(folder, { protectedRoots: this.options.protectedRoots }).reader();
      return await readFolderServers(reader, { folder: reader.root, ...this.expansion });
    } catch (error) {
      // A folder gone or not readable brings no servers.
      console.error(`Could not read the MCP servers of ${folder}:`, error instanceof Error ? error.message : String(error));
      return [];
    } finally {
      reader?.close();
    }
  }

  private queued(folder: string, change: () => Promise<void>): Promise<void> {
    const before = this.queues.get(folder) ?? Promise.resolve();
    const next = before.then(change).catch((error: unknown) => {
      console.error(`Could not apply the MCP servers of ${folder}:`, error instanceof Error ? error.message : String(error));
    });
    this.queues.set(folder, next);
    void next.then(() => {
      if (this.queues.get(folder) === next) this.queues.delete(folder);
    });
    return next;
  }
}
