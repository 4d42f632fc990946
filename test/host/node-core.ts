import { sourceTagWorker } from '../../src/main/code-map/worker-tagger';
import { join } from 'node:path';
import Conf from 'conf';
import { defaultSettings } from '../../src/shared/domain';
import type { Clock } from '../../src/main/agent/ports/clock';
import type { ModelProvider } from '../../src/main/agent/ports/model-provider';
import type { Tool } from '../../src/main/agent/ports/tools';
import type { CommandShell } from '../../src/main/tools/command-shell';
import type { SandboxStatus } from '../../src/main/tools/sandbox';
import type { RetryPolicy } from '../../src/main/agent/rules/retry';
import type { FolderPicker } from '../../src/main/ipc/handlers';
import type { IpcTransport, SenderInfo } from '../../src/main/ipc/router';
import type { DiscoveryCandidate } from '../../src/main/providers/discovery';
import { EncryptedFileSecretStore, type SecretCipher } from '../../src/main/secrets/encrypted-file-secret-store';
import { ConfSettingsStore } from '../../src/main/settings/conf-settings-store';
import { createWorkbenchCore, type WorkbenchCore } from '../../src/main/core/workbench-core';
import { sourceRuntime } from '../../src/main/runtime/runtime-process';
import type { RuntimeLauncher } from '../../src/main/runtime/runtime-protocol';
import type { LocalModels } from '../../src/shared/local-models';
import type { DatabaseKeyKeeper } from '../../src/main/store/database-key';
import { LoopbackTransport } from './loopback-transport';
import { memoryKeyCipher } from './test-cipher';
import type { MachineInfo } from '../../src/shared/local-models';
import type { CatalogueEntry } from '../../src/shared/model-catalogue';
import type { ModelFolders } from '../../src/main/models/model-sources';
import type { UpdatesOptions } from '../../src/main/core/core-updates';
import { FeedUpdater } from './feed-updater';

export interface NodeCoreOptions {
  readonly dataDir: string;
  readonly transport: IpcTransport;
  readonly isTrustedSender?: (sender: SenderInfo) => boolean;
  readonly folderPicker?: FolderPicker;
  readonly clock?: Clock;
  readonly frameMs?: number;
  readonly retryPolicy?: RetryPolicy;
  readonly idleTimeoutMs?: number;
  readonly discoveryCandidates?: readonly DiscoveryCandidate[];
  readonly cipher?: SecretCipher;
  /** Keeps the database's key: the database is then encrypted at rest, as in the app (plain without one). */
  readonly databaseKeys?: DatabaseKeyKeeper;
  /** The tools, or how to make them from the settings (so command limits and niceness follow Settings, as in the app). */
  readonly tools?: readonly Tool[] | ((settings: ConfSettingsStore) => readonly Tool[]);
  readonly sandbox?: SandboxStatus;
  /** The shell commands run in; the one found on this machine when absent. */
  readonly commandShell?: CommandShell;
  /** Builds the app's own tools as the app does (see `CoreOptions.builtinTools`). */
  readonly builtinTools?: boolean;
  /** How folders are trusted: every folder (the default here, for tests of other things), or as the app does, asking. */
  readonly folderTrust?: 'ask' | 'trust_all';
  /** The environment language servers start with (see `CoreOptions.languageServerEnvironment`). */
  readonly languageServerEnvironment?: NodeJS.ProcessEnv;
  /** The environment git runs with (see `CoreOptions.gitEnvironment`). */
  readonly gitEnvironment?: NodeJS.ProcessEnv;
  /** Wraps the provider each turn uses (benchmarks time it). */
  readonly instrumentProvider?: (provider: ModelProvider) => ModelProvider;
  /** Check every answer against the contract (on for tests; the app does not, and benchmarks measure the app). */
  readonly validateOutputs?: boolean;
  /** The built-in runtime's process: the TypeScript entry forked under tsx unless given. */
  readonly launchRuntime?: RuntimeLauncher;
  readonly localModels?: LocalModels;
  readonly modelCatalogue?: readonly CatalogueEntry[];
  /** Where other apps' models are looked for; by default a folder of the data folder's, so no test reads the home folder. */
  readonly modelFolders?: ModelFolders;
  readonly machineInfo?: () => MachineInfo;
  readonly freeDiskBytes?: (folder: string) => Promise<number>;
  /** Starts the app again after a backup of the database was put back (the app's own restarts the process). */
  readonly relaunch?: () => void;
  /**
   * The updater and the policy file: by default electron-updater's generic provider under Node (`FeedUpdater`) and a
   * policy file in the data folder (`update-policy.json`), never the machine's own.
   */
  readonly updates?: UpdatesOptions;
}

/**
 * The main-process core as the app builds it, with the Electron-only parts swapped for Node ones:
 * `conf` (the library under electron-store) for settings, an in-memory-key cipher for safeStorage.
 */
export async function createNodeCore(options: NodeCoreOptions): Promise<{ core: WorkbenchCore; settings: ConfSettingsStore }> {
  const settings = new ConfSettingsStore(
    new Conf<Record<string, unknown>>({
      cwd: options.dataDir,
      configName: 'settings',
      projectName: 'agent-workbench',
      defaults: { ...defaultSettings },
    }),
  );
  const secrets = new EncryptedFileSecretStore(join(options.dataDir, 'secrets.json'), options.cipher ?? memoryKeyCipher());
  const core = await createWorkbenchCore({
    dataDir: options.dataDir,
    appVersion: '0.1.0',
    holderName: 'the test host',
    transport: options.transport,
    isTrustedSender: options.isTrustedSender ?? ((sender) => sender.isMainFrame),
    settings,
    secrets,
    ...(options.databaseKeys ? { databaseKeys: options.databaseKeys } : {}),
    folderPicker: options.folderPicker ?? { pickFolder: async () => null },
    validateOutputs: options.validateOutputs ?? true,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.frameMs === undefined ? {} : { frameMs: options.frameMs }),
    ...(options.retryPolicy ? { retryPolicy: options.retryPolicy } : {}),
    ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
    ...(options.discoveryCandidates ? { discoveryCandidates: options.discoveryCandidates } : {}),
    ...(options.tools ? { tools: typeof options.tools === 'function' ? options.tools(settings) : options.tools } : {}),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.commandShell ? { commandShell: options.commandShell } : {}),
    ...(options.builtinTools ? { builtinTools: true } : {}),
    folderTrust: options.folderTrust ?? 'trust_all',
    ...(options.languageServerEnvironment ? { languageServerEnvironment: options.languageServerEnvironment } : {}),
    ...(options.gitEnvironment ? { gitEnvironment: options.gitEnvironment } : {}),
    ...(options.instrumentProvider ? { instrumentProvider: options.instrumentProvider } : {}),
    launchRuntime: options.launchRuntime ?? sourceRuntime({ WORKBENCH_RUNTIME_THREADS: '1' }),
    // As the app does: the code map parses on a thread of its own (here, from the source with tsx).
    tagWorker: sourceTagWorker(),
    ...(options.localModels ? { localModels: options.localModels } : {}),
    modelFolders: options.modelFolders ?? { ollama: [join(options.dataDir, 'other-apps', 'ollama')], lmStudio: [] },
    ...(options.modelCatalogue ? { modelCatalogue: options.modelCatalogue } : {}),
    ...(options.machineInfo ? { machineInfo: options.machineInfo } : {}),
    ...(options.freeDiskBytes ? { freeDiskBytes: options.freeDiskBytes } : {}),
    ...(options.relaunch ? { relaunch: options.relaunch } : {}),
    updates: options.updates ?? { updater: new FeedUpdater('0.1.0'), policyPath: join(options.dataDir, 'update-policy.json') },
    // The person's terminals read no rc file of this machine's home: a slow or locked one (a shell killed in the middle of
    // a version manager's start) would make every terminal test wait on it.
    terminalEnvironment: { ...process.env, HOME: join(options.dataDir, 'home') },
  });
  // Test code names folders as the person would pick them in a dialog; the page's own calls are checked as in the app.
  if (options.transport instanceof LoopbackTransport) options.transport.chooser = (path) => core.rememberChosenPath(path);
  return { core, settings };
}

/** A core on a loopback transport with the scripted server as its default model: the usual start of an integration test. */
export async function createCoreWithScriptedModel(options: {
  dataDir: string;
  openaiBaseUrl: string;
  frameMs?: number;
  tools?: readonly Tool[];
  /** Builds the app's own tools too, as the app does. */
  builtinTools?: boolean;
  languageServerEnvironment?: NodeJS.ProcessEnv;
  gitEnvironment?: NodeJS.ProcessEnv;
  commandShell?: CommandShell;
  /** Keeps the database's key: the database, and what the app keeps beside it, encrypted at rest. */
  databaseKeys?: DatabaseKeyKeeper;
  /** How folders are trusted (every folder when absent, see `NodeCoreOptions.folderTrust`). */
  folderTrust?: 'ask' | 'trust_all';
}): Promise<{ core: WorkbenchCore; transport: LoopbackTransport }> {
  const transport = new LoopbackTransport();
  const { core } = await createNodeCore({
    dataDir: options.dataDir,
    transport,
    ...(options.builtinTools ? { builtinTools: true } : {}),
    ...(options.languageServerEnvironment ? { languageServerEnvironment: options.languageServerEnvironment } : {}),
    ...(options.gitEnvironment ? { gitEnvironment: options.gitEnvironment } : {}),
    ...(options.commandShell ? { commandShell: options.commandShell } : {}),
    ...(options.frameMs === undefined ? {} : { frameMs: options.frameMs }),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.databaseKeys ? { databaseKeys: options.databaseKeys } : {}),
    ...(options.folderTrust ? { folderTrust: options.folderTrust } : {}),
  });
  const provider = await transport.invoke('provider:save', { kind: 'openai-compatible', name: 'Scripted', baseUrl: options.openaiBaseUrl });
  if (!provider.ok) throw new Error(provider.error.message);
  const updated = await transport.invoke('settings:update', {
    defaultModel: { providerId: (provider.value as { id: string }).id, model: 'scripted-model' },
  });
  if (!updated.ok) throw new Error(updated.error.message);
  return { core, transport };
}
