/*
 * The core of the main process (`createCore`): builds the stores, providers, tools, MCP servers and session runtime
 * from options, and owns them.
 *
 * Everything here is free of Electron and of IPC, so the app, the terminal runner and the test host all build the same
 * core.
 */

import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { DisposableStore, toDisposable } from '../../shared/lifecycle';
import type { LocalModels } from '../../shared/local-models';
import { defaultCatalogue } from '../../shared/model-catalogue';
import { systemClock, type Clock } from '../agent/ports/clock';
import { newId } from '../agent/ports/ids';
import { SessionTransfer } from '../agent/history/session-transfer';
import { SessionArchive } from '../agent/session/archive';
import type { SessionRuntime } from '../agent/session/session-runtime';
import { openDatabase, startCheckpointer } from '../store/database';
import { holdDatabase } from '../store/database-lock';
import { SqliteModelCheckStore } from '../store/sqlite-model-checks';
import { collectFileContents } from '../workspace/file-contents-collection';
import { SqliteFileHistory } from '../workspace/file-history';
import { FolderInspector } from '../workspace/folder-inspector';
import { isRestricted } from '../agent/ports/folder-trust';
import { GitProgram } from '../git/git-program';
import { Repositories } from '../git/repositories';
import { RepositoryMaps } from '../code-map/repository-map';
import { scrubbedEnvironment } from '../tools/run-command';
import { detectCommandShell } from '../tools/command-shell';
import { detectSandbox } from '../tools/sandbox';
import { LocalModelManager } from '../models/local-model-manager';
import type { SessionStore } from '../agent/ports/stores';
import type { ToolRegistry } from '../agent/ports/tools';
import type { FolderTrustStore } from '../workspace/folder-trust-store';
import { FolderServers } from '../mcp/folder-servers';
import { McpManager } from '../mcp/mcp-manager';
import { nodeMachineInfo } from '../models/machine';
import { defaultModelFolders } from '../models/model-sources';
import { ProviderRegistry } from '../providers/provider-registry';
import { LocalRuntimeProvider } from '../runtime/local-runtime-provider';

import { coreDiagnostics } from './core-diagnostics';
import { openFolderTrust } from './core-folder-trust';
import type { Core, CoreOptions } from './core-options';
import { sessionRuntime } from './core-session-runtime';
import { openStores } from './core-stores';
import { codeMapsKept, coreTools, loadShellParser } from './core-tools';

export type { Core, CoreOptions } from './core-options';

/**
 * The one composition root of the main process: builds the store, providers, tools, MCP servers and
 * runtime from options, with plain constructor arguments, and owns them. The app, the terminal
 * runner and the test host all start here. Throws a `StoreError` when the database cannot be opened
 * (the caller says why). On creation, turns the app stopped in the middle of are recovered.
 */
export async function createCore(options: CoreOptions): Promise<Core> {
  const clock = options.clock ?? systemClock;
  // The shell's parser is loaded before the database opens: nothing is held while it loads.
  const shell = options.builtinTools ? await loadShellParser() : null;
  const sandbox = options.sandbox ?? (options.builtinTools ? detectSandbox() : undefined);
  const commandShell = options.commandShell ?? (options.builtinTools ? detectCommandShell() : undefined);
  const repositories = new Repositories(new GitProgram('git', options.gitEnvironment ?? process.env), () => clock.now());
  // The git tools are offered where git is: without it the model would only be told, call after call, that it is missing.
  const gitAvailable = shell ? (await repositories.availability()).available : false;
  const databasePath = join(options.dataDir, 'workbench.sqlite');
  // Held for as long as the database is open: a restore or a conversion in another process waits for it to close.
  const holder = options.holderName ?? 'Agent Workbench';
  const hold = holdDatabase(databasePath, holder, options.lockSystem);
  let opened: ReturnType<typeof openDatabase>;
  try {
    opened = openDatabase(databasePath, {
      holder,
      ...(options.databaseKeys ? { keys: options.databaseKeys } : {}),
      ...(options.lockSystem ? { lockSystem: options.lockSystem } : {}),
    });
  } catch (error) {
    hold.release();
    throw error;
  }
  const { db, encryption } = opened;
  const owned = new DisposableStore();
  // Released last, once the database is closed.
  owned.add(toDisposable(() => hold.release()));
  owned.add(toDisposable(() => void db.close()));
  try {
    const stores = openStores(db, clock, options.monotonic);
    const folderTrust = openFolderTrust(options, clock, stores.store);
    const restricted = (workspacePath: string): boolean => isRestricted(folderTrust ?? undefined, workspacePath);
    // Where steady time stands is kept at close (the database closes after), so a restart goes on from it; and every
    // few seconds while a timed grant is there (reading the grants moves and keeps it), so that after a crash a clock set
    // back meanwhile gives no grant back the time the app sat idle.
    owned.add(toDisposable(() => stores.steady.save()));
    owned.interval(() => {
      // A database closed under it (a crash, as the harness plays one) has no grants to read.
      if (db.open) stores.trust.listActive(clock.now());
      // The trust file edited by hand (or by the terminal runner on the same data folder) is shown as it now is.
      if (folderTrust?.refresh()) options.onFolderTrustChanged?.();
    }, 2_000);
    let busyRuntime: SessionRuntime | null = null;
    const { models, registry, local } = modelsAndProviders(options, db, clock, owned, () => busyRuntime?.anyBusy() ?? false);
    // A commit that names no paths commits the session's changes; the runtime is made below, and only asked once it exists.
    const agentChanges = async (sessionId: string): Promise<string[]> => {
      if (!busyRuntime) return [];
      const changes = await busyRuntime.listChanges(sessionId, null);
      return changes.files.filter((file) => file.kind === 'file' && file.reverted !== 'whole').map((file) => file.path);
    };
    const { tools, codeMaps, checks, trash } = coreTools({
      options,
      clock,
      owned,
      shell,
      sandbox,
      commandShell,
      repositories: gitAvailable ? repositories : null,
      memory: stores.memory,
      restricted,
      agentChanges,
      codeMapsKept: codeMapsKept(encryption.encrypted, options),
      encrypted: encryption.encrypted,
    });
    // Entries left plain (deleted before the database was encrypted, or a sealing that stopped) are sealed meanwhile.
    void trash.sealPending();
    const { mcp, folderServers } = mcpServers(options, tools, { trust: folderTrust, sessions: stores.store, open: () => db.open }, owned);
    const files = options.fileHistory === false ? null : new SqliteFileHistory(db, undefined, [options.dataDir]);
    const codeMap = codeMaps ? new RepositoryMaps({ maps: codeMaps }) : null;
    const { diagnostics, listener } = coreDiagnostics({ options, owned, sandbox, restricted, store: stores.store });
    const runtime = sessionRuntime({
      options: { ...options, listener },
      clock,
      stores,
      registry,
      tools,
      files,
      sandbox,
      commandShell,
      codeMap,
      diagnostics,
      checks,
      repositories: gitAvailable ? repositories : null,
      folderTrust,
      workspaceTools: folderServers,
    });
    // Disposed newest first: turns end, then MCP servers stop, then the log is folded back, then the database closes.
    busyRuntime = runtime;
    owned.add(startCheckpointer(db, databasePath, { isBusy: () => runtime.anyBusy(), onIdle: () => stores.checkpoints.compact() }));
    owned.add(toDisposable(() => folderServers.dispose().then(() => mcp.dispose())));
    owned.add(toDisposable(() => runtime.dispose()));
    const transfer = new SessionTransfer({
      store: stores.store,
      checkpoints: stores.checkpoints,
      clock,
      newId: () => newId(clock.now()),
      appVersion: options.appVersion ?? '0.0.0',
      providerExists: (id) => registry.list().some((provider) => provider.id === id),
      defaultAutonomy: () => options.settings.get().defaultAutonomy,
      workspaces: new FolderInspector(),
    });
    if (options.recoverInterrupted !== false) runtime.recoverInterrupted();
    const archive = new SessionArchive({
      store: stores.store,
      checkpoints: stores.checkpoints,
      trust: stores.trust,
      runtime,
      listener,
      clock,
      retention: () => options.settings.get().archiveRetentionDays,
      collectFileContents: () => {
        stores.prompts.collect();
        return collectFileContents(db, () => files?.capturing ?? false);
      },
      ...(options.onTrustChanged ? { onTrustChanged: options.onTrustChanged } : {}),
      // The folder of a session deleted may have no session left: its own MCP servers stop.
      onArchived: () => void folderServers.refresh(),
    });
    owned.add(archive.start());
    // Servers start with the app; a slow or broken one does not hold anything up.
    void mcp.configure(options.settings.get().mcpServers);
    return {
      databasePath,
      db,
      encryption,
      ...stores,
      providers: registry,
      tools,
      mcp,
      folderServers,
      runtime,
      transfer,
      archive,
      trash,
      models,
      clock,
      local,
      sandbox,
      commandShell,
      repositories,
      folderTrust,
      close: () => owned.dispose(),
    };
  } catch (error) {
    owned.dispose().catch((failure: unknown) => console.error('Could not release what the core held:', failure));
    throw error;
  }
}

/**
 * The person's MCP servers, and those of trusted folders: a folder's start with a turn in it, and trust taken back or its
 * files changed are looked at every few seconds.
 */
function mcpServers(
  options: CoreOptions,
  tools: ToolRegistry,
  folders: { trust: FolderTrustStore | null; sessions: Pick<SessionStore, 'worksIn'>; open: () => boolean },
  owned: DisposableStore,
) {
  const mcp = new McpManager({ registry: tools, onChanged: options.onMcpChanged ?? (() => undefined), baseEnv: scrubbedEnvironment() });
  const folderServers = new FolderServers({
    mcp,
    trust: folders.trust,
    inUse: (folder) => folders.sessions.worksIn(folder),
    protectedRoots: [options.dataDir],
    // A database closed under it (a crash, as the harness plays one) has no sessions to ask about.
    storeOpen: folders.open,
  });
  owned.interval(() => void folderServers.refresh(), 2_000);
  return { mcp, folderServers };
}

/**
 * The models of this computer and the provider registry. The manager asks the built-in runtime for the machine's
 * figures, and the runtime serves the manager's models: the runtime is made just after, and only asked once the
 * manager is used.
 */
function modelsAndProviders(options: CoreOptions, db: Database, clock: Clock, owned: DisposableStore, busy: () => boolean) {
  let local: LocalRuntimeProvider | null = null;
  const models = new LocalModelManager({
    dataDir: options.dataDir,
    catalogue: options.modelCatalogue ?? defaultCatalogue,
    modelFolders: options.modelFolders ?? defaultModelFolders(),
    now: () => clock.now(),
    // The runtime's figures (its GPU and that GPU's memory) when it starts; Node's when it cannot.
    machine: options.machineInfo ?? (() => (local ? local.machine().catch(() => nodeMachineInfo()) : nodeMachineInfo())),
    ...(options.freeDiskBytes ? { freeBytes: options.freeDiskBytes } : {}),
    ...(options.onModelDownload ? { onDownload: options.onModelDownload } : {}),
    // A model on this computer is served by the "This computer" endpoint; the first one becomes the default model.
    onAdded: (model) => {
      const endpoint = registry.ensureLocalEndpoint();
      const settings = options.settings.get();
      const current = settings.defaultModel;
      if (current === null || !settings.providers.some((provider) => provider.id === current.providerId))
        options.settings.set({ ...settings, defaultModel: { providerId: endpoint.id, model: model.id } });
    },
  });
  owned.add(toDisposable(() => models.dispose()));
  const localModels: LocalModels = options.localModels ?? models.library;
  const runtimeProvider = options.launchRuntime ? new LocalRuntimeProvider({ launch: options.launchRuntime, models: localModels }) : null;
  local = runtimeProvider;
  if (runtimeProvider) owned.add(toDisposable(() => runtimeProvider.dispose()));
  const registry = new ProviderRegistry({
    settings: options.settings,
    secrets: options.secrets,
    clock,
    ...(options.retryPolicy ? { retryPolicy: options.retryPolicy } : {}),
    ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
    ...(options.discoveryCandidates ? { discoveryCandidates: options.discoveryCandidates } : {}),
    environmentAnthropicKey: options.environmentAnthropicKey ?? null,
    checks: new SqliteModelCheckStore(db),
    // The runtime is made after the registry; checks only ask once it exists.
    busy,
    ...(options.onModelChecked ? { onChecked: options.onModelChecked } : {}),
    ...(runtimeProvider ? { local: runtimeProvider } : {}),
  });
  owned.add(toDisposable(() => registry.dispose()));
  return { models, registry, local: runtimeProvider };
}
