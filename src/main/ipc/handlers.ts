/*
 * The IPC handlers of every channel, gathered from each domain's handlers, and those that refuse everything when the
 * database could not be opened.
 */

import type { Repositories } from '../git/repositories';
import { WorkbenchError } from '../../shared/errors';
import type { AppInfo } from '../../shared/ipc/contract';
import { channelNames } from '../../shared/ipc/contract';
import type { Clock } from '../agent/ports/clock';
import type { WorkspaceInspector } from '../agent/ports/ports';
import type { SessionRuntime } from '../agent/session/session-runtime';
import type { SettingsStore } from '../agent/ports/settings';
import type { SessionStore } from '../agent/ports/stores';
import type { AccountingStore } from '../agent/ports/accounting';
import type { ToolRegistry } from '../agent/ports/tools';
import type { TrustStore } from '../agent/ports/trust';
import type { ProviderRegistry } from '../providers/provider-registry';
import type { McpManager } from '../mcp/mcp-manager';
import type { Trash } from '../tools/trash';
import type { ChosenPaths } from './chosen-paths';
import type { Handlers } from './router';
import type { SessionTransfer } from '../agent/history/session-transfer';
import type { MemoryStore } from '../agent/ports/memory';
import type { PromptRecords } from '../agent/context/prompt-assembly';
import { memoryHandlers } from './memory-handlers';
import { settingsHandlers } from './settings-handlers';
import { profileHandlers } from './profile-handlers';
import type { ProfileStore } from '../agent/rules/profiles';
import type { SessionArchive } from '../agent/session/archive';
import { createArchiveHandlers } from './archive-handlers';
import type { LocalModelManager } from '../models/local-model-manager';
import { localModelHandlers } from './local-model-handlers';
import { sessionHandlers } from './session-handlers';
import { workspaceHandlers, type FolderPicker } from './workspace-handlers';
import { runHandlers } from './run-handlers';
import { terminalHandlers } from './terminal-handlers';
import { gitHandlers } from './git-handlers';
import type { PersonTerminals } from '../tools/person-terminals';
import { providerHandlers } from './provider-handlers';
import { folderTrustHandlers } from './folder-trust-handlers';
import type { FolderTrustStore } from '../workspace/folder-trust-store';
import type { UpdateService } from '../updates/update-service';
import { updateHandlers } from './update-handlers';

export type { FolderPicker } from './workspace-handlers';

export interface HandlerDependencies {
  readonly appInfo: AppInfo;
  readonly store: SessionStore;
  readonly runtime: SessionRuntime;
  readonly providers: ProviderRegistry;
  readonly settings: SettingsStore;
  readonly workspaces: WorkspaceInspector;
  readonly folderPicker: FolderPicker;
  readonly clock: Clock;
  readonly trust: TrustStore;
  readonly accounting: AccountingStore;
  /** Announces the active grants after one was created or revoked. */
  readonly onTrustChanged: () => void;
  readonly mcp: McpManager;
  readonly trash: Trash;
  readonly transfer: SessionTransfer;
  /** The tools there are, built-in and of MCP servers. */
  readonly tools: ToolRegistry;
  readonly memory: MemoryStore;
  readonly prompts: PromptRecords;
  readonly profiles: ProfileStore;
  /** Deleted sessions, kept until restored or purged. */
  readonly archive: SessionArchive;
  /** The models of this computer (the built-in runtime's library and downloads). */
  readonly models: LocalModelManager;
  /** The person's own terminals. */
  readonly terminals: PersonTerminals;
  /** The workspaces' git repositories. */
  readonly repositories: Repositories;
  /** The paths the person chose (dialogs, drops, launches): the only ones the window may name for main to open. */
  readonly chosenPaths: ChosenPaths;
  /** The person's trust in folders; null where every folder is trusted. */
  readonly folderTrust: FolderTrustStore | null;
  /** Tells every window the folder trust decisions changed. */
  readonly onFolderTrustChanged: () => void;
  /** Updates from the feed the settings or the policy name. */
  readonly updates: UpdateService;
}

/**
 * The IPC handlers of every channel, by domain: inputs arrive parsed, and each handler hands its work to the runtime,
 * a store or an adapter, so every check that needs state happens there before any write.
 */
export function createHandlers(deps: HandlerDependencies): Handlers {
  return {
    'app:info': () => deps.appInfo,
    'app:restoreBackup': () => {
      throw new WorkbenchError('invalid_state', 'The database is open: there is no backup to put back.');
    },
    ...sessionHandlers(deps),
    ...workspaceHandlers({ ...deps, dataDir: deps.appInfo.dataDir }),
    ...runHandlers(deps),
    ...terminalHandlers(deps),
    ...gitHandlers(deps),
    ...providerHandlers(deps),
    ...settingsHandlers(deps),
    ...memoryHandlers(deps),
    ...profileHandlers(deps),
    ...createArchiveHandlers(deps),
    ...folderTrustHandlers({ ...deps, dataDir: deps.appInfo.dataDir }),
    ...updateHandlers(deps.updates),
    ...localModelHandlers({
      models: deps.models,
      pickFile: deps.folderPicker.pickFile?.bind(deps.folderPicker),
      chosenPaths: deps.chosenPaths,
    }),
  };
}

/**
 * Handlers for when the database could not be opened: the app can say why and put back the backup it named, and
 * nothing else runs.
 */
export function createUnavailableHandlers(appInfo: AppInfo, restoreBackup: Handlers['app:restoreBackup']): Handlers {
  const refuse = (): never => {
    throw new WorkbenchError('store_unavailable', appInfo.startupError?.message ?? 'The database is not available.');
  };
  const handlers = Object.fromEntries(channelNames.map((name) => [name, refuse])) as unknown as Record<string, () => never>;
  return { ...handlers, 'app:info': () => appInfo, 'app:restoreBackup': restoreBackup } as unknown as Handlers;
}
