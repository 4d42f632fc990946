/*
 * The core served over IPC (`createWorkbenchCore`): the handlers of every channel on a transport, and the journal's
 * events sent out once per frame.
 *
 * When the database cannot be opened, every channel but `app:info` and `app:restoreBackup` refuses, so the window can
 * say why and offer the backup that opens.
 */

import { join } from 'node:path';
import type { Session } from '../../shared/domain';
import { toErrorInfo } from '../../shared/errors';
import type { AppInfo, EventPayload } from '../../shared/ipc/contract';
import { DisposableStore, toDisposable, type Disposable } from '../../shared/lifecycle';
import { systemClock } from '../agent/ports/clock';
import type { RuntimeListener } from '../agent/ports/ports';
import type { SessionRuntime } from '../agent/session/session-runtime';
import { EventBatcher } from '../ipc/event-batcher';
import { createHandlers, type FolderPicker } from '../ipc/handlers';
import { EventSender, registerHandlers, type IpcTransport, type SenderInfo } from '../ipc/router';
import type { McpManager } from '../mcp/mcp-manager';
import { commandShellDescription, type CommandShell } from '../tools/command-shell';
import type { SandboxStatus } from '../tools/sandbox';
import type { DatabaseEncryption } from '../store/database-key';
import { FolderInspector } from '../workspace/folder-inspector';
import { PersonTerminals } from '../tools/person-terminals';
import { createCore, type Core, type CoreOptions } from './create-core';
import { unavailableCore } from './unavailable-core';
import { ChosenPaths } from '../ipc/chosen-paths';
import { openLaunchPath } from './launch-path';
import { createUpdates, type UpdatesOptions } from './core-updates';
import type { UpdateService } from '../updates/update-service';
import { updateHandlers } from '../ipc/update-handlers';

/** The core's own options (see `CoreOptions`), and what serving it over IPC takes besides. */
export interface WorkbenchCoreOptions extends Pick<
  CoreOptions,
  | 'dataDir'
  | 'settings'
  | 'secrets'
  | 'databaseKeys'
  | 'clock'
  | 'frameMs'
  | 'retryPolicy'
  | 'idleTimeoutMs'
  | 'discoveryCandidates'
  | 'environmentAnthropicKey'
  | 'tools'
  | 'builtinTools'
  | 'languageServerEnvironment'
  | 'gitEnvironment'
  | 'worktreesDir'
  | 'tagWorker'
  | 'sandbox'
  | 'commandShell'
  | 'instrumentProvider'
  | 'launchRuntime'
  | 'localModels'
  | 'modelCatalogue'
  | 'modelFolders'
  | 'machineInfo'
  | 'freeDiskBytes'
  | 'folderTrust'
  | 'holderName'
  | 'lockSystem'
> {
  readonly appVersion: string;
  readonly transport: IpcTransport;
  readonly isTrustedSender: (sender: SenderInfo) => boolean;
  readonly folderPicker: FolderPicker;
  /** Checks every answer against the contract too (on in tests). */
  readonly validateOutputs?: boolean;
  /** The environment the person's terminals start with: the app's own by default. */
  readonly terminalEnvironment?: NodeJS.ProcessEnv;
  /** Starts the app again (after a backup of the database was put back); without it the person does. */
  readonly relaunch?: () => void;
  /** The updater and the policy file's place; without them, the app says it cannot update itself. */
  readonly updates?: UpdatesOptions;
}

/** What the window says of the sandbox commands run in. */
function sandboxInfo(status: SandboxStatus | undefined): AppInfo['sandbox'] {
  if (status?.available)
    return {
      available: true,
      description: `Commands run in a ${status.kind === 'seatbelt' ? 'Seatbelt' : 'bubblewrap'} sandbox: writes only inside the workspace, no network unless you approve it.`,
    };
  return {
    available: false,
    description: `Commands run without an OS sandbox (${status && !status.available ? status.reason : 'none was found'}), so every command asks at L0 to L2.`,
  };
}

/** What the window says of the shell commands run in; before it was looked for, bash is assumed, as the runner does. */
function commandShellInfo(shell: CommandShell | undefined): AppInfo['commandShell'] {
  if (!shell) return { available: true, description: 'Commands run in bash, without your profile.' };
  return { available: shell.available, description: commandShellDescription(shell) };
}

/** What the window says of the database's encryption at rest. */
function encryptionInfo(encryption: DatabaseEncryption): AppInfo['databaseEncryption'] {
  if (encryption.encrypted && encryption.cipher === 'sqlcipher')
    return {
      encrypted: true,
      description: `Encrypted at rest in SQLCipher's format, as versions before wrote, with a key kept by this system's keychain. Not yet converted to AEGIS-256: ${encryption.notConverted ?? 'it is converted at the next start'}.`,
    };
  if (encryption.encrypted)
    return { encrypted: true, description: "Encrypted at rest (AEGIS-256), with a key kept by this system's keychain." };
  return { encrypted: false, description: `The database is ${encryption.reason}.` };
}

export interface WorkbenchCore extends Disposable {
  readonly info: AppInfo;
  /** Null when the database could not be opened: the app then only says why. */
  readonly core: Core | null;
  readonly runtime: SessionRuntime | null;
  readonly mcp: McpManager | null;
  readonly batcher: EventBatcher;
  /** Updates from the feed the settings or the policy name (they need no database). */
  readonly updates: UpdateService;
  /**
   * Opens a folder or an exported session given to the app from outside (see `openLaunchPath`) and tells the
   * window (`launch:opened`), which shows the session or says why the path could not be opened. Resolves with
   * what it told.
   */
  openLaunchPath(path: string): Promise<EventPayload<'launch:opened'>>;
  /**
   * Notes a path the person chose outside the page: dropped on the window (the preload tells it, from the drop's own
   * file), so the window may then name it.
   */
  rememberChosenPath(path: string): void;
  /** Resolves when every running turn has ended and the database is closed. */
  close(): Promise<void>;
}

/**
 * The core (`createCore`) served over IPC: the handlers of every channel on the given transport, and
 * the journal's events sent out per frame. The app and the test host both start here.
 */
export async function createWorkbenchCore(options: WorkbenchCoreOptions): Promise<WorkbenchCore> {
  const clock = options.clock ?? systemClock;
  const databasePath = join(options.dataDir, 'workbench.sqlite');
  const owned = new DisposableStore();
  const sender = new EventSender(options.transport);
  const batcher = new EventBatcher(sender, options.frameMs ?? 16);
  owned.add(batcher);
  const baseInfo = {
    version: options.appVersion,
    dataDir: options.dataDir,
    databasePath,
    secretsEncrypted: options.secrets.encrypted,
    sandbox: sandboxInfo(options.sandbox),
    commandShell: commandShellInfo(options.commandShell),
  };
  const routerOptions = { isTrustedSender: options.isTrustedSender, validateOutputs: options.validateOutputs ?? false };
  const chosenPaths = new ChosenPaths();
  // Updates need no database: they are there, the menu's check too, whether or not it opens.
  const updates = owned.add(createUpdates(options, clock, sender));
  const finish = (info: AppInfo, core: Core | null, open: (path: string) => Promise<Session>): WorkbenchCore => {
    const close = (): Promise<void> => owned.dispose();
    const openPath = async (path: string): Promise<EventPayload<'launch:opened'>> => {
      // Given by the system (the command line, a file manager): the person chose it.
      chosenPaths.remember(path);
      const opened = await open(path).then(
        (session) => ({ session }),
        (error: unknown) => ({ path, error: toErrorInfo(error) }),
      );
      sender.send('launch:opened', opened);
      return opened;
    };
    return {
      info,
      core,
      runtime: core?.runtime ?? null,
      mcp: core?.mcp ?? null,
      batcher,
      updates,
      openLaunchPath: openPath,
      rememberChosenPath: (path) => chosenPaths.remember(path),
      dispose: close,
      close,
    };
  };

  // The grant row is written right after its event is journalled; it is announced once it is there.
  let announceTrust = (): void => undefined;
  // Set once the core exists: the folder trust decisions, whenever they change.
  let announceFolderTrust = (): void => undefined;
  // Set once the person's terminals exist.
  let endTerminals = (_sessionId: string): void => undefined;
  const listener: RuntimeListener = {
    onEntries: (sessionId, entries) => {
      batcher.push(sessionId, entries);
      if (entries.some((entry) => entry.event.type === 'trust_grant_created')) queueMicrotask(announceTrust);
    },
    onDrafts: (sessionId, drafts) => batcher.pushDrafts(sessionId, drafts),
    onSessionChanged: (change) => {
      if ('deletedSessionId' in change) {
        batcher.flush(change.deletedSessionId);
        // A deleted session's own terminal ends with it.
        endTerminals(change.deletedSessionId);
      }
      sender.send('session:changed', change);
    },
  };
  let core: Core;
  try {
    const { transport: _t, isTrustedSender: _s, folderPicker: _p, validateOutputs: _v, relaunch: _r, updates: _u, ...own } = options;
    core = await createCore({
      ...own,
      listener,
      clock,
      frameMs: options.frameMs ?? 16,
      onMcpChanged: (servers) => sender.send('mcp:changed', { servers }),
      onModelChecked: (check) => sender.send('model:checked', { check }),
      onCodeMapProgress: (progress) => sender.send('code-map:progress', progress),
      onModelDownload: (download) => sender.send('local-model:progress', { download }),
      environmentAnthropicKey: options.environmentAnthropicKey ?? null,
      // Set once the core exists; archiving a session revokes its "this session" grants.
      onTrustChanged: () => announceTrust(),
      onFolderTrustChanged: () => announceFolderTrust(),
    });
  } catch (error) {
    const { databaseKeys: keys, relaunch } = options;
    const unavailable = unavailableCore(error, { baseInfo, databasePath, keys, now: () => clock.now(), relaunch, restore: options });
    owned.add(registerHandlers(options.transport, { ...unavailable.handlers, ...updateHandlers(updates) }, routerOptions));
    return finish(unavailable.appInfo, null, async () => {
      throw unavailable.refusal;
    });
  }
  owned.add(toDisposable(() => core.close()));
  const { trust, folderTrust, folderServers } = core;
  announceTrust = () => sender.send('trust:changed', { grants: trust.listActive(clock.now()) });
  announceFolderTrust = () => {
    if (folderTrust) sender.send('folder-trust:changed', folderTrust.list());
    void folderServers.refresh();
  };
  // The sandbox the core's own tools run their commands in, detected when none was given.
  const appInfo: AppInfo = {
    ...baseInfo,
    sandbox: sandboxInfo(core.sandbox),
    commandShell: commandShellInfo(core.commandShell),
    databaseEncryption: encryptionInfo(core.encryption),
    startupError: null,
  };
  const workspaces = new FolderInspector();
  const terminals = owned.add(
    new PersonTerminals(
      {
        onData: (terminalId, data) => sender.send('terminal:data', { terminalId, data }),
        onExit: (terminalId, exitCode) => sender.send('terminal:exit', { terminalId, exitCode }),
      },
      options.frameMs ?? 16,
      options.terminalEnvironment,
    ),
  );
  endTerminals = (sessionId) => terminals.endSession(sessionId);
  const handlers = createHandlers({
    appInfo,
    store: core.store,
    runtime: core.runtime,
    providers: core.providers,
    settings: options.settings,
    workspaces,
    folderPicker: options.folderPicker,
    clock,
    trust: core.trust,
    accounting: core.accounting,
    onTrustChanged: announceTrust,
    mcp: core.mcp,
    trash: core.trash,
    transfer: core.transfer,
    tools: core.tools,
    memory: core.memory,
    prompts: core.prompts,
    profiles: core.profiles,
    archive: core.archive,
    models: core.models,
    terminals,
    repositories: core.repositories,
    chosenPaths,
    folderTrust: core.folderTrust,
    onFolderTrustChanged: () => announceFolderTrust(),
    updates,
  });
  // Closed first: no request is taken once closing has begun.
  owned.add(registerHandlers(options.transport, handlers, routerOptions));
  return finish(appInfo, core, (path) => openLaunchPath(path, { store: core.store, workspaces, handlers }));
}
