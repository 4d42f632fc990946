import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { modelSettingOf, type McpServerStatus, type ModelCheck } from '../../shared/domain';
import { DisposableStore, toDisposable } from '../../shared/lifecycle';
import { systemClock, type Clock } from '../agent/ports/clock';
import { newId } from '../agent/ports/ids';
import type { ModelProvider } from '../agent/ports/model-provider';
import type { ProviderResolver, RuntimeListener } from '../agent/ports/ports';
import type { RetryPolicy } from '../agent/rules/retry';
import { SessionRuntime } from '../agent/session/session-runtime';
import { SessionTransfer } from '../agent/history/session-transfer';
import type { SecretStore, SettingsStore } from '../agent/ports/settings';
import { ToolRegistry, type Tool } from '../agent/ports/tools';
import { McpManager } from '../mcp/mcp-manager';
import type { DiscoveryCandidate } from '../providers/discovery';
import { ProviderRegistry } from '../providers/provider-registry';
import { openDatabase, startCheckpointer } from '../store/database';
import { SqliteAccountingStore } from '../store/sqlite-accounting-store';
import { SqliteCheckpointStore } from '../store/sqlite-checkpoint-store';
import { SqliteModelCheckStore } from '../store/sqlite-model-checks';
import { SqliteSessionStore } from '../store/sqlite-session-store';
import { SqliteTrustStore } from '../store/sqlite-trust-store';
import { scrubbedEnvironment } from '../tools/run-command';
import { Trash } from '../tools/trash';
import { SqliteFileHistory } from '../workspace/file-history';
import { SnapshotChanges } from '../workspace/snapshot-changes';
import { FolderInspector } from '../workspace/folder-inspector';
import { InstructionFiles } from '../workspace/instruction-files';
import { SqliteMemoryStore } from '../store/sqlite-memory-store';
import { SqlitePromptRecords } from '../store/sqlite-prompt-records';
import { SqliteProfileStore } from '../store/sqlite-profile-store';
import { memoryTools } from '../tools/memory-tools';
import { promptEnvironment } from '../tools/prompt-environment';
import type { SandboxStatus } from '../tools/sandbox';
import { SessionArchive } from '../agent/session/archive';
import { collectFileContents } from '../workspace/file-contents-collection';
import { LocalRuntimeProvider } from '../runtime/local-runtime-provider';
import type { RuntimeLauncher } from '../runtime/runtime-protocol';
import type { LocalModels, MachineInfo } from '../../shared/local-models';
import { nodeMachineInfo } from '../models/machine';
import { defaultCatalogue, type CatalogueEntry, type DownloadView } from '../../shared/model-catalogue';
import { LocalModelManager } from '../models/local-model-manager';
import { defaultModelFolders, type ModelFolders } from '../models/model-sources';

export interface CoreOptions {
  /** The app's data folder: the database, the trash, and a folder file snapshots never include. */
  readonly dataDir: string;
  readonly settings: SettingsStore;
  readonly secrets: SecretStore;
  /** Hears every journalled event and every change to a session's row. */
  readonly listener: RuntimeListener;
  readonly clock?: Clock;
  /** How long streamed pieces are gathered before one journal write. */
  readonly frameMs?: number;
  readonly retryPolicy?: RetryPolicy;
  readonly idleTimeoutMs?: number;
  readonly discoveryCandidates?: readonly DiscoveryCandidate[];
  /** A key from the environment, for Anthropic endpoints that have none stored. */
  readonly environmentAnthropicKey?: string | null;
  /** Tools offered to the model, besides those of MCP servers. */
  readonly tools?: readonly Tool[];
  /** Saves the workspace's files around calls that may change them, for time travel (on unless false). */
  readonly fileHistory?: boolean;
  /** Told when an MCP server's state changes. */
  readonly onMcpChanged?: (servers: McpServerStatus[]) => void;
  /** Told when a check of a model finishes, or a turn finds its server refuses tool definitions. */
  readonly onModelChecked?: (check: ModelCheck) => void;
  /** Wraps the provider each turn uses (tracing, benchmarks). */
  readonly instrumentProvider?: (provider: ModelProvider) => ModelProvider;
  readonly appVersion?: string;
  /** The OS sandbox commands run in, as the model is told of it. */
  readonly sandbox?: SandboxStatus;
  /**
   * Recovers, on creation, the turns the app stopped in the middle of (on unless false). The
   * terminal runner runs one new turn and leaves other sessions as it found them.
   */
  readonly recoverInterrupted?: boolean;
  /** Told when archiving a session revoked its "this session" grants. */
  readonly onTrustChanged?: () => void;
  /** Starts the built-in runtime's process ("This computer"); without it, endpoints of kind `local` cannot answer. */
  readonly launchRuntime?: RuntimeLauncher;
  /** The models the built-in runtime can load. */
  readonly localModels?: LocalModels;
  /** The recommended models offered for download (tests point one at a local server). */
  readonly modelCatalogue?: readonly CatalogueEntry[];
  /** Where Ollama's and LM Studio's models are looked for (tests pass folders of their own, never the home folder). */
  readonly modelFolders?: ModelFolders;
  /** What the machine has, GPU included, as the runtime sees it; Node's figures without it. */
  readonly machineInfo?: () => MachineInfo | Promise<MachineInfo>;
  /** Told of every change of a model download. */
  readonly onModelDownload?: (download: DownloadView) => void;
  /** Bytes free on the disk of a folder (tests make a disk look full). */
  readonly freeDiskBytes?: (folder: string) => Promise<number>;
}

/** Everything of the main process that is not Electron and not IPC, built and owned together. */
export interface Core {
  readonly databasePath: string;
  /** The database itself, for the checks and tests that read it directly. */
  readonly db: Database;
  readonly store: SqliteSessionStore;
  readonly checkpoints: SqliteCheckpointStore;
  readonly trust: SqliteTrustStore;
  readonly accounting: SqliteAccountingStore;
  readonly memory: SqliteMemoryStore;
  readonly prompts: SqlitePromptRecords;
  readonly profiles: SqliteProfileStore;
  readonly providers: ProviderRegistry;
  readonly tools: ToolRegistry;
  readonly mcp: McpManager;
  readonly runtime: SessionRuntime;
  readonly transfer: SessionTransfer;
  /** Deleted sessions, kept until they are restored or purged. */
  readonly archive: SessionArchive;
  readonly trash: Trash;
  /** The models of this computer: the built-in runtime's library (its `LocalModels`), downloads, recommendations. */
  readonly models: LocalModelManager;
  readonly clock: Clock;
  /** The built-in runtime, when the core was given a way to start it. */
  readonly local: LocalRuntimeProvider | null;
  /** Stops every turn, MCP server and timer, and closes the database. */
  close(): Promise<void>;
}

/**
 * The one composition root of the main process: builds the store, providers, tools, MCP servers and
 * runtime from options, with plain constructor arguments, and owns them. The app, the terminal
 * runner and the test host all start here. Throws a `StoreError` when the database cannot be opened
 * (the caller says why). On creation, turns the app stopped in the middle of are recovered.
 */
export function createCore(options: CoreOptions): Core {
  const clock = options.clock ?? systemClock;
  const databasePath = join(options.dataDir, 'workbench.sqlite');
  const { db } = openDatabase(databasePath);
  const owned = new DisposableStore();
  owned.add(toDisposable(() => void db.close()));
  try {
    const store = new SqliteSessionStore(db);
    const checkpoints = new SqliteCheckpointStore(db, () => clock.now());
    const trust = new SqliteTrustStore(db);
    const accounting = new SqliteAccountingStore(db);
    let busyRuntime: SessionRuntime | null = null;
    // The manager asks the runtime for the machine's figures, and the runtime serves the manager's models: the runtime
    // is made just after, and only asked once the manager is used.
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
      // The runtime is made below, from the registry; checks only ask once it exists.
      busy: () => busyRuntime?.anyBusy() ?? false,
      ...(options.onModelChecked ? { onChecked: options.onModelChecked } : {}),
      ...(runtimeProvider ? { local: runtimeProvider } : {}),
    });
    owned.add(toDisposable(() => registry.dispose()));
    const instrument = options.instrumentProvider;
    const providers: ProviderResolver = instrument
      ? {
          resolve: (choice) => instrument(registry.resolve(choice)),
          describe: (choice) => registry.describe(choice),
          defaultModel: () => registry.defaultModel(),
          window: (choice, signal) => registry.window(choice, signal),
        }
      : registry;
    const memory = new SqliteMemoryStore(db, clock);
    const profiles = new SqliteProfileStore(db, clock);
    const prompts = new SqlitePromptRecords(db, clock);
    const tools = new ToolRegistry([...(options.tools ?? []), ...memoryTools(memory)]);
    const instructionFiles = new InstructionFiles(() => clock.now());
    const environment = promptEnvironment(options.sandbox);
    const mcp = new McpManager({ registry: tools, onChanged: options.onMcpChanged ?? (() => undefined), baseEnv: scrubbedEnvironment() });
    const files = options.fileHistory === false ? null : new SqliteFileHistory(db, undefined, [options.dataDir]);
    const changes = files ? new SnapshotChanges(files, [options.dataDir]) : null;
    const runtime: SessionRuntime = new SessionRuntime({
      store,
      providers,
      tools,
      trust,
      accounting,
      checkpoints,
      ...(files && changes ? { files, changes } : {}),
      clock,
      listener: options.listener,
      limits: () => {
        const { planThreshold, maxIterations, deniedTools, heldToolGroups, budgets } = options.settings.get();
        return { planThreshold, maxIterations, deniedTools, heldToolGroups, budgets };
      },
      contextSettings: () => {
        const { compactAt, answerTokens } = options.settings.get();
        return { compactAt, answerTokens };
      },
      // Extended thinking is Anthropic's: a budget set for a model of another kind of endpoint (or of one just removed) is not asked for.
      thinkingBudget: (choice) => {
        const settings = options.settings.get();
        const anthropic = settings.providers.some((endpoint) => endpoint.id === choice.providerId && endpoint.kind === 'anthropic');
        return anthropic ? modelSettingOf(settings, choice.providerId, choice.model).thinkingBudget : null;
      },
      frameMs: options.frameMs ?? 16,
      newId: () => newId(clock.now()),
      promptSources: { instructions: (workspacePath) => instructionFiles.load(workspacePath), environment: () => environment },
      memory,
      promptRecords: prompts,
      profiles: { store: profiles, defaultId: () => options.settings.get().defaultProfileId },
    });
    // Disposed newest first: turns end, then MCP servers stop, then the log is folded back, then the database closes.
    busyRuntime = runtime;
    owned.add(startCheckpointer(db, databasePath, { isBusy: () => runtime.anyBusy(), onIdle: () => checkpoints.compact() }));
    owned.add(toDisposable(() => mcp.dispose()));
    owned.add(toDisposable(() => runtime.dispose()));
    const transfer = new SessionTransfer({
      store,
      checkpoints,
      clock,
      newId: () => newId(clock.now()),
      appVersion: options.appVersion ?? '0.0.0',
      providerExists: (id) => registry.list().some((provider) => provider.id === id),
      defaultAutonomy: () => options.settings.get().defaultAutonomy,
      workspaces: new FolderInspector(),
    });
    if (options.recoverInterrupted !== false) runtime.recoverInterrupted();
    const archive = new SessionArchive({
      store,
      checkpoints,
      trust,
      runtime,
      listener: options.listener,
      clock,
      retention: () => options.settings.get().archiveRetentionDays,
      collectFileContents: () => {
        prompts.collect();
        return collectFileContents(db, () => files?.capturing ?? false);
      },
      ...(options.onTrustChanged ? { onTrustChanged: options.onTrustChanged } : {}),
    });
    owned.add(archive.start());
    // Servers start with the app; a slow or broken one does not hold anything up.
    void mcp.configure(options.settings.get().mcpServers);
    const trash = new Trash(join(options.dataDir, 'trash'), [options.dataDir]);
    return {
      databasePath,
      db,
      store,
      checkpoints,
      trust,
      accounting,
      memory,
      prompts,
      profiles,
      providers: registry,
      tools,
      mcp,
      runtime,
      transfer,
      archive,
      trash,
      models,
      clock,
      local: runtimeProvider,
      close: () => owned.dispose(),
    };
  } catch (error) {
    owned.dispose().catch((failure: unknown) => console.error('Could not release what the core held:', failure));
    throw error;
  }
}
