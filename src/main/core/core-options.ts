/*
 * What the core is built from (`CoreOptions`) and what it is (`Core`): the options the app, the terminal runner and the
 * test host give `createCore`, and the parts it builds and owns.
 */
import type { FolderTrustStore } from '../workspace/folder-trust-store';
import type { Repositories } from '../git/repositories';
import type { TagWorkerEntry } from '../code-map/worker-tagger';
import type { Database } from 'better-sqlite3';
import type { DatabaseEncryption, DatabaseKeyKeeper } from '../store/database-key';
import type { LockSystem } from '../store/database-lock';
import type { McpServerStatus, ModelCheck } from '../../shared/domain';
import type { LocalModels, MachineInfo } from '../../shared/local-models';
import type { CatalogueEntry, DownloadView } from '../../shared/model-catalogue';
import type { Clock } from '../agent/ports/clock';
import type { ModelProvider } from '../agent/ports/model-provider';
import type { RuntimeListener } from '../agent/ports/ports';
import type { SecretStore, SettingsStore } from '../agent/ports/settings';
import type { Tool, ToolRegistry } from '../agent/ports/tools';
import type { RetryPolicy } from '../agent/rules/retry';
import type { SessionTransfer } from '../agent/history/session-transfer';
import type { SessionArchive } from '../agent/session/archive';
import type { SessionRuntime } from '../agent/session/session-runtime';
import type { SqliteAccountingStore } from '../store/sqlite-accounting-store';
import type { SqliteCheckpointStore } from '../store/sqlite-checkpoint-store';
import type { SqliteMemoryStore } from '../store/sqlite-memory-store';
import type { SqliteProfileStore } from '../store/sqlite-profile-store';
import type { SqlitePromptRecords } from '../store/sqlite-prompt-records';
import type { SqliteSessionStore } from '../store/sqlite-session-store';
import type { SqliteTrustStore } from '../store/sqlite-trust-store';
import type { CommandShell } from '../tools/command-shell';
import type { SandboxStatus } from '../tools/sandbox';
import type { Trash } from '../tools/trash';
import type { LocalModelManager } from '../models/local-model-manager';
import type { ModelFolders } from '../models/model-sources';
import type { FolderServers } from '../mcp/folder-servers';
import type { McpManager } from '../mcp/mcp-manager';
import type { DiscoveryCandidate } from '../providers/discovery';
import type { ProviderRegistry } from '../providers/provider-registry';
import type { LocalRuntimeProvider } from '../runtime/local-runtime-provider';
import type { RuntimeLauncher } from '../runtime/runtime-protocol';

export interface CoreOptions {
  /** The app's data folder: the database, the trash, and a folder file snapshots never include. */
  readonly dataDir: string;
  readonly settings: SettingsStore;
  readonly secrets: SecretStore;
  /**
   * Keeps the database's key (the system's keychain in the app): the database is then encrypted at rest. Without one,
   * or where the system keeps no key, the database stays plain and `Core.encryption` says why.
   */
  readonly databaseKeys?: DatabaseKeyKeeper;
  /**
   * What this process is called when another is told it has the database open ("Agent Workbench" unless given: the
   * terminal runner and the test host name themselves). Every process holds the database while it has it open; see
   * `holdDatabase`.
   */
  readonly holderName?: string;
  /** The system the database's lock asks about other processes (tests give their own). */
  readonly lockSystem?: LockSystem;
  /** Hears every journalled event and every change to a session's row. */
  readonly listener: RuntimeListener;
  readonly clock?: Clock;
  /**
   * The monotonic clock deadlines (grants, gates) follow within a run, with the wall clock: `performance.now` unless
   * given (a test whose clock is simulated gives the same time twice).
   */
  readonly monotonic?: () => number;
  /** How long streamed pieces are gathered before one journal write. */
  readonly frameMs?: number;
  readonly retryPolicy?: RetryPolicy;
  readonly idleTimeoutMs?: number;
  readonly discoveryCandidates?: readonly DiscoveryCandidate[];
  /** A key from the environment, for Anthropic endpoints that have none stored. */
  readonly environmentAnthropicKey?: string | null;
  /**
   * Builds the app's own tools: the workspace's files and the shell (with its parser), whose commands run in the
   * sandbox. The app and the terminal runner take them; tests mostly bring tools of their own (`tools`).
   */
  readonly builtinTools?: boolean;
  /**
   * The code map's tagging thread (parsing off the main thread): its built entry in the app, the TypeScript source with
   * tsx elsewhere. Absent: files are tagged on the main thread.
   */
  readonly tagWorker?: TagWorkerEntry;
  /** Hears how far a workspace's code index is while it is brought up to date (a first index of a large tree takes a while). */
  readonly onCodeMapProgress?: (progress: { workspacePath: string; done: number; total: number }) => void;
  /** The environment language servers start with, their PATH where they are looked for after the workspace; the app's own by default. */
  readonly languageServerEnvironment?: NodeJS.ProcessEnv;
  /** Where session worktrees are made: a folder of the app's beside its data folder (`<dataDir>-worktrees`) by default. */
  readonly worktreesDir?: string;
  /** The environment git runs with, its PATH where git is found; the app's own by default (tests take git away). */
  readonly gitEnvironment?: NodeJS.ProcessEnv;
  /** Tools offered to the model, besides the built-in ones and those of MCP servers. */
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
  /** The OS sandbox commands run in, as the model is told of it; detected when the built-in tools are built and none is given. */
  readonly sandbox?: SandboxStatus;
  /**
   * The shell the agent's commands run in; found on this system when the built-in tools are built and none is given.
   * Without one (Windows without Git for Windows) `run_command` is not offered.
   */
  readonly commandShell?: CommandShell;
  /**
   * Recovers, on creation, the turns the app stopped in the middle of (on unless false). The
   * terminal runner runs one new turn and leaves other sessions as it found them.
   */
  readonly recoverInterrupted?: boolean;
  /** Told when archiving a session revoked its "this session" grants. */
  readonly onTrustChanged?: () => void;
  /**
   * How folders are trusted: `ask` (the app) keeps the person's decisions in the data folder's trust file and runs a
   * folder nobody decided restricted; `trust_all` trusts every folder (tests of other things, which open their own).
   */
  readonly folderTrust?: 'ask' | 'trust_all';
  /** The person's trust in folders changed (a decision at the prompt, in Settings, or the trust file edited). */
  readonly onFolderTrustChanged?: () => void;
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
  /** Whether the database is encrypted at rest, and if not, why. */
  readonly encryption: DatabaseEncryption;
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
  /** The MCP servers of trusted folders, started for their sessions (`refresh` after their trust changed). */
  readonly folderServers: FolderServers;
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
  /** The OS sandbox the built-in tools' commands run in, as given or detected; undefined when none was asked about. */
  readonly sandbox: SandboxStatus | undefined;
  /** The shell the built-in tools' commands run in, as given or found; undefined when none was asked about. */
  readonly commandShell: CommandShell | undefined;
  /** The workspaces' git repositories, found with the person's git. */
  readonly repositories: Repositories;
  /** The person's trust in folders; null when every folder is trusted (`folderTrust: 'trust_all'`). */
  readonly folderTrust: FolderTrustStore | null;
  /** Stops every turn, MCP server and timer, and closes the database. */
  close(): Promise<void>;
}
