import { join } from 'node:path';
import { WorkbenchError, type ErrorInfo } from '../shared/errors';
import type { AppInfo } from '../shared/ipc/contract';
import { systemClock, type Clock } from './agent/clock';
import { newId } from './agent/ids';
import type { RuntimeListener } from './agent/ports';
import { SessionRuntime } from './agent/session-runtime';
import type { SecretStore, SettingsStore } from './agent/settings';
import { EventBatcher } from './ipc/event-batcher';
import { createHandlers, createUnavailableHandlers, type FolderPicker } from './ipc/handlers';
import { EventSender, registerHandlers, type Disposable, type IpcTransport, type SenderInfo } from './ipc/router';
import type { RetryPolicy } from './agent/retry';
import type { DiscoveryCandidate } from './providers/discovery';
import { ProviderRegistry } from './providers/provider-registry';
import { openDatabase, startCheckpointer, type OpenedDatabase } from './store/database';
import { SqliteSessionStore } from './store/sqlite-session-store';
import { SqliteAccountingStore } from './store/sqlite-accounting-store';
import { SqliteTrustStore } from './store/sqlite-trust-store';
import { SqliteCheckpointStore } from './store/sqlite-checkpoint-store';
import { ToolRegistry, type Tool } from './agent/tools';
import type { SandboxStatus } from './tools/sandbox';
import { McpManager } from './mcp/mcp-manager';
import { Trash } from './tools/trash';
import { scrubbedEnvironment } from './tools/run-command';
import { FolderInspector } from './workspace/folder-inspector';
import { SqliteFileHistory } from './workspace/file-history';
import { SessionTransfer } from './agent/session-transfer';

export interface WorkbenchCoreOptions {
  readonly dataDir: string;
  readonly appVersion: string;
  readonly transport: IpcTransport;
  readonly isTrustedSender: (sender: SenderInfo) => boolean;
  readonly settings: SettingsStore;
  readonly secrets: SecretStore;
  readonly folderPicker: FolderPicker;
  readonly clock?: Clock;
  readonly frameMs?: number;
  readonly retryPolicy?: RetryPolicy;
  readonly idleTimeoutMs?: number;
  readonly discoveryCandidates?: readonly DiscoveryCandidate[];
  readonly environmentAnthropicKey?: string | null;
  readonly validateOutputs?: boolean;
  /** Tools offered to the model. */
  readonly tools?: readonly Tool[];
  /** The OS sandbox commands run in, if any. */
  readonly sandbox?: SandboxStatus;
}

export interface WorkbenchCore extends Disposable {
  readonly info: AppInfo;
  readonly runtime: SessionRuntime | null;
  readonly mcp: McpManager | null;
  readonly batcher: EventBatcher;
  /** Resolves when every running turn has ended and the database is closed. */
  close(): Promise<void>;
}

/**
 * Builds everything of the main process that is not Electron: store, providers, runtime and the
 * IPC handlers on the given transport. The app and the test host both start here.
 */
export function createWorkbenchCore(options: WorkbenchCoreOptions): WorkbenchCore {
  const clock = options.clock ?? systemClock;
  const databasePath = join(options.dataDir, 'workbench.sqlite');
  const sender = new EventSender(options.transport);
  const batcher = new EventBatcher(sender, options.frameMs ?? 16);
  const sandbox = options.sandbox?.available
    ? {
        available: true,
        description: `Commands run in a ${options.sandbox.kind === 'seatbelt' ? 'Seatbelt' : 'bubblewrap'} sandbox: writes only inside the workspace, no network unless you approve it.`,
      }
    : {
        available: false,
        description: `Commands run without an OS sandbox (${options.sandbox && !options.sandbox.available ? options.sandbox.reason : 'none was found'}), so every command asks at L0 to L2.`,
      };
  const baseInfo = {
    version: options.appVersion,
    dataDir: options.dataDir,
    databasePath,
    secretsEncrypted: options.secrets.encrypted,
    sandbox,
  };
  const routerOptions = { isTrustedSender: options.isTrustedSender, validateOutputs: options.validateOutputs ?? false };

  let opened: OpenedDatabase;
  try {
    opened = openDatabase(databasePath);
  } catch (error) {
    const info: ErrorInfo = error instanceof WorkbenchError ? error.toInfo() : { code: 'store_unavailable', message: String(error) };
    const appInfo: AppInfo = { ...baseInfo, startupError: info };
    const registration = registerHandlers(options.transport, createUnavailableHandlers(appInfo), routerOptions);
    return {
      info: appInfo,
      runtime: null,
      mcp: null,
      batcher,
      dispose: () => registration.dispose(),
      close: async () => registration.dispose(),
    };
  }

  let runtimeRef: SessionRuntime | null = null;
  const checkpoints = new SqliteCheckpointStore(opened.db, () => clock.now());
  // Checkpoint segments are written while no turn runs, so they never add to a step.
  const checkpointer = startCheckpointer(opened.db, databasePath, {
    isBusy: () => runtimeRef?.anyBusy() ?? false,
    onIdle: () => checkpoints.compact(),
  });
  const store = new SqliteSessionStore(opened.db);
  const providers = new ProviderRegistry({
    settings: options.settings,
    secrets: options.secrets,
    clock,
    ...(options.retryPolicy ? { retryPolicy: options.retryPolicy } : {}),
    ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
    ...(options.discoveryCandidates ? { discoveryCandidates: options.discoveryCandidates } : {}),
    environmentAnthropicKey: options.environmentAnthropicKey ?? null,
  });
  const registry = new ToolRegistry(options.tools ?? []);
  const mcp = new McpManager({ registry, onChanged: (servers) => sender.send('mcp:changed', { servers }), baseEnv: scrubbedEnvironment() });
  const trust = new SqliteTrustStore(opened.db);
  const accounting = new SqliteAccountingStore(opened.db);
  const announceTrust = (): void => sender.send('trust:changed', { grants: trust.listActive(clock.now()) });
  const listener: RuntimeListener = {
    onEntries: (sessionId, entries) => {
      batcher.push(sessionId, entries);
      // The grant row is written right after its event is journalled; announce it once it is there.
      if (entries.some((entry) => entry.event.type === 'trust_grant_created')) queueMicrotask(announceTrust);
    },
    onSessionChanged: (change) => {
      if ('deletedSessionId' in change) batcher.flush(change.deletedSessionId);
      sender.send('session:changed', change);
    },
  };
  const files = new SqliteFileHistory(opened.db, undefined, [options.dataDir]);
  const runtime = new SessionRuntime({
    store,
    providers,
    tools: registry,
    trust,
    accounting,
    checkpoints,
    files,
    clock,
    listener,
    limits: () => {
      const current = options.settings.get();
      return { planThreshold: current.planThreshold, maxIterations: current.maxIterations, deniedTools: current.deniedTools };
    },
    frameMs: options.frameMs ?? 16,
    newId: () => newId(clock.now()),
  });
  runtimeRef = runtime;
  runtime.recoverInterrupted();
  const appInfo: AppInfo = { ...baseInfo, startupError: null };
  const handlers = createHandlers({
    appInfo,
    store,
    runtime,
    providers,
    settings: options.settings,
    workspaces: new FolderInspector(),
    folderPicker: options.folderPicker,
    clock,
    listener,
    trust,
    accounting,
    onTrustChanged: announceTrust,
    mcp,
    trash: new Trash(join(options.dataDir, 'trash')),
    checkpoints,
    transfer: new SessionTransfer({
      store,
      checkpoints,
      clock,
      newId: () => newId(clock.now()),
      appVersion: options.appVersion,
      providerExists: (id) => providers.list().some((provider) => provider.id === id),
    }),
  });
  const registration = registerHandlers(options.transport, handlers, routerOptions);
  // Servers start with the app; a slow or broken one does not hold the window up.
  void mcp.configure(options.settings.get().mcpServers);

  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    registration.dispose();
    await runtime.dispose();
    await mcp.dispose();
    batcher.dispose();
    checkpointer.dispose();
    opened.db.close();
  };
  return { info: appInfo, runtime, mcp, batcher, dispose: () => void close(), close };
}
