import { join } from 'node:path';
import { NotFoundError, WorkbenchError } from '../../shared/errors';
import { withModelSetting, type Session } from '../../shared/domain';
import type { AppInfo } from '../../shared/ipc/contract';
import { channelNames } from '../../shared/ipc/contract';
import type { Clock } from '../agent/ports/clock';
import { newId } from '../agent/ports/ids';
import type { RuntimeListener, WorkspaceInspector } from '../agent/ports/ports';
import type { SessionRuntime } from '../agent/session/session-runtime';
import type { SettingsStore } from '../agent/ports/settings';
import type { SessionStore } from '../agent/ports/stores';
import type { AccountingStore } from '../agent/ports/accounting';
import type { ToolRegistry } from '../agent/ports/tools';
import type { TrustStore } from '../agent/ports/trust';
import type { ProviderRegistry } from '../providers/provider-registry';
import type { McpManager } from '../mcp/mcp-manager';
import type { Trash } from '../tools/trash';
import type { Handlers } from './router';
import { walk } from '../workspace/file-walk';
import { WorkspaceFiles } from '../workspace/workspace-files';
import type { SessionTransfer } from '../agent/history/session-transfer';
import type { CheckpointStore } from '../agent/ports/checkpoints';
import { readAttachments } from '../workspace/attachments';
import { findInWorkspace, peekFile } from '../workspace/workspace-peek';
import { recentFolders } from '../workspace/recent-folders';
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

/** Asks the person for a folder, or a model file (native dialogs in the app). Resolves null when they cancel. */
export interface FolderPicker {
  pickFolder(): Promise<string | null>;
  /** A GGUF model file; where the host has no file dialog, the person cannot pick one. */
  pickFile?(): Promise<string | null>;
}

export interface HandlerDependencies {
  readonly appInfo: AppInfo;
  readonly store: SessionStore;
  readonly runtime: SessionRuntime;
  readonly providers: ProviderRegistry;
  readonly settings: SettingsStore;
  readonly workspaces: WorkspaceInspector;
  readonly folderPicker: FolderPicker;
  readonly clock: Clock;
  readonly listener: RuntimeListener;
  readonly trust: TrustStore;
  readonly accounting: AccountingStore;
  /** Announces the active grants after one was created or revoked. */
  readonly onTrustChanged: () => void;
  readonly mcp: McpManager;
  readonly trash: Trash;
  readonly transfer: SessionTransfer;
  readonly checkpoints: CheckpointStore;
  /** The tools there are, built-in and of MCP servers. */
  readonly tools: ToolRegistry;
  readonly memory: MemoryStore;
  readonly prompts: PromptRecords;
  readonly profiles: ProfileStore;
  /** Deleted sessions, kept until restored or purged. */
  readonly archive: SessionArchive;
  /** The models of this computer (the built-in runtime's library and downloads). */
  readonly models: LocalModelManager;
}

const defaultTitle = 'New session';

/** A short title from a message: its first line, cut at a word near 60 characters. */
export function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  if (line.length <= 60) return line || defaultTitle;
  const cut = line.slice(0, 60);
  const space = cut.lastIndexOf(' ');
  return `${(space > 30 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The IPC handlers: inputs arrive parsed; every check that needs state happens before any write. */
export function createHandlers(deps: HandlerDependencies): Handlers {
  const { store, runtime, providers, settings, workspaces, clock, listener, trust, accounting } = deps;

  const existing = (sessionId: string): Session => {
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    return session;
  };
  const changed = (session: Session): Session => {
    listener.onSessionChanged({ session });
    return session;
  };
  const workspaceOf = (sessionId: string): WorkspaceFiles => {
    const path = existing(sessionId).workspacePath;
    if (path === null) throw new WorkbenchError('no_workspace', 'This session has no workspace folder yet.');
    return new WorkspaceFiles(path);
  };
  const assertIdle = (sessionId: string, action: string): void => {
    if (runtime.isBusy(sessionId)) throw new WorkbenchError('session_busy', `Stop the running turn before you ${action}.`);
  };

  /** The folder of the most recently changed session that has one, when it still exists and is a folder. */
  const lastFolderUsed = async (): Promise<string | null> => {
    const recent = store
      .list()
      .filter((session) => session.workspacePath !== null)
      .sort((a, b) => b.updatedAt - a.updatedAt)[0]?.workspacePath;
    if (!recent) return null;
    try {
      return await workspaces.resolveFolder(recent);
    } catch {
      return null;
    }
  };

  return {
    'app:info': () => deps.appInfo,

    'session:list': () => store.list(),
    'session:create': async (input) => {
      // No folder given: the last folder used, as long as it is still there; null asks for none.
      const workspacePath =
        input.workspacePath === null
          ? null
          : input.workspacePath === undefined
            ? await lastFolderUsed()
            : await workspaces.resolveFolder(input.workspacePath);
      const now = clock.now();
      // The profile new sessions start with brings its model and autonomy, where it sets them.
      const starting = deps.profiles.get(settings.get().defaultProfileId);
      const usable = starting && (starting.scope !== 'workspace' || starting.workspacePath === workspacePath) ? starting : null;
      return changed(
        store.create({
          id: newId(now),
          title: input.title ?? defaultTitle,
          workspacePath,
          model: usable?.model ?? settings.get().defaultModel,
          autonomy: usable?.autonomy ?? settings.get().defaultAutonomy,
          createdAt: now,
        }),
      );
    },
    'session:rename': (input) => {
      existing(input.sessionId);
      return changed(store.update(input.sessionId, { title: input.title }, clock.now()));
    },
    // Deleting archives: nothing is removed until the retention period ends or the person deletes it from Settings.
    'session:delete': (input) => deps.archive.archive(input.sessionId),
    'session:open': (input) => {
      const session = existing(input.sessionId);
      runtime.prepare(input.sessionId);
      const from = input.recentTurns === undefined ? -1 : store.recentTurnsStart(input.sessionId, input.recentTurns);
      return {
        session,
        entries: store.journal(input.sessionId, { afterSeq: from - 1 }),
        complete: from <= 0,
        branchPoints: runtime.branchPoints(input.sessionId),
      };
    },
    'session:resume': (input) => runtime.resume(input.sessionId),
    'session:discard': (input) => runtime.discard(input.sessionId),
    'session:tree': (input) => {
      existing(input.sessionId);
      return runtime.tree(input.sessionId);
    },
    'session:export': (input) => deps.transfer.exportSession(input.sessionId),
    'session:import': async (input) => changed(await deps.transfer.importSession(input.document)),

    'message:edit': (input) => runtime.editMessage(input.sessionId, input.messageId, input.text),
    'turn:retry': (input) => runtime.retryTurn(input.sessionId, input.turnId),
    'session:compact': (input) => ({ turnId: runtime.compact(input.sessionId, input.instructions ?? null) }),
    'branch:list': (input) => {
      existing(input.sessionId);
      return {
        activeBranchId: store.activeBranch(input.sessionId),
        branches: store.branches(input.sessionId),
        points: runtime.branchPoints(input.sessionId),
      };
    },
    'branch:switch': (input) => runtime.switchBranch(input.sessionId, input.branchId),
    'checkpoint:preview': (input) => runtime.previewFiles(input.sessionId, input.checkpointId),
    'checkpoint:restore': (input) => runtime.restore(input.sessionId, input.checkpointId, input.mode, input.overwriteConflicts ?? false),
    'checkpoint:undoRestore': (input) => runtime.undoRestore(input.sessionId, input.restoreId),
    'changes:list': (input) => runtime.listChanges(existing(input.sessionId).id, input.turnId ?? null),
    'changes:diff': (input) => runtime.diffChange(existing(input.sessionId).id, input.turnId ?? null, input.path),
    'changes:revert': (input) => runtime.revertChange(existing(input.sessionId).id, input.turnId ?? null, input.path, input.hunks ?? null),
    'session:setModel': (input) => {
      existing(input.sessionId);
      assertIdle(input.sessionId, 'change the model');
      if (!providers.list().some((provider) => provider.id === input.model.providerId))
        throw new NotFoundError('Provider', input.model.providerId);
      return changed(store.update(input.sessionId, { model: input.model }, clock.now()));
    },

    'session:setAutonomy': (input) => {
      const from = existing(input.sessionId).autonomy;
      // A running turn keeps the autonomy it started with; the new level applies from the next turn.
      if (from === input.autonomy) return changed(store.update(input.sessionId, {}, clock.now()));
      // Journalled with the change, so the audit view can say which level decided each call and who changed it.
      const { session, entries } = store.transaction(() => ({
        session: store.update(input.sessionId, { autonomy: input.autonomy }, clock.now()),
        entries: store.append(input.sessionId, [{ type: 'autonomy_changed', from, to: input.autonomy }], clock.now()),
      }));
      listener.onEntries(input.sessionId, entries);
      return changed(session);
    },
    'session:stats': (input) => {
      existing(input.sessionId);
      return accounting.totals(input.sessionId);
    },

    'workspace:set': async (input) => {
      existing(input.sessionId);
      assertIdle(input.sessionId, 'change the workspace');
      const folder = await workspaces.resolveFolder(input.path);
      return changed(store.update(input.sessionId, { workspacePath: folder }, clock.now()));
    },
    'workspace:list': async (input) => {
      const session = existing(input.sessionId);
      if (session.workspacePath === null) throw new WorkbenchError('no_workspace', 'This session has no workspace folder yet.');
      // Walked as the list tool walks, each name opened from the root without following a link, so a
      // folder swapped for a link while it is listed cannot show names from outside.
      const files = new WorkspaceFiles(session.workspacePath);
      const folder = files.inspect(input.path);
      if (folder.kind !== 'directory') throw new WorkbenchError('invalid_input', `${input.path} is not a folder of the workspace.`);
      const reader = files.reader();
      let walked: Awaited<ReturnType<typeof walk>>;
      try {
        const start = folder.relative === '.' ? reader.root : join(reader.root, folder.relative);
        walked = await walk({ start, root: reader.root, reader, maxEntries: 2_000, maxDepth: 0 });
      } finally {
        reader.close();
      }
      const { entries, truncated } = walked;
      const listed = entries.map((entry) => {
        const path = entry.directory ? entry.path.slice(0, -1) : entry.path;
        return { path, name: path.split('/').at(-1) ?? path, directory: entry.directory };
      });
      listed.sort((a, b) => (a.directory === b.directory ? a.name.localeCompare(b.name) : a.directory ? -1 : 1));
      return { entries: listed, truncated };
    },
    'workspace:find': (input) => findInWorkspace(workspaceOf(input.sessionId), input.query, input.limit),
    'workspace:read': (input) => peekFile(workspaceOf(input.sessionId), input.path),
    'workspace:pick': async (input) => {
      existing(input.sessionId);
      assertIdle(input.sessionId, 'change the workspace');
      const picked = await deps.folderPicker.pickFolder();
      if (picked === null) return null;
      const folder = await workspaces.resolveFolder(picked);
      return changed(store.update(input.sessionId, { workspacePath: folder }, clock.now()));
    },
    'workspace:recent': () => recentFolders(store.list(), (path) => workspaces.resolveFolder(path)),

    'run:send': async (input) => {
      const before = existing(input.sessionId);
      // Every file is read and checked before anything is written: a refused one sends nothing.
      const attachments = await readAttachments(input.attachments ?? [], {
        workspacePath: before.workspacePath,
        takesImages: async () => {
          const choice = before.model ?? providers.defaultModel();
          if (!choice || choice.model === '') return { takes: false, model: 'No model is chosen, and so none' };
          return { takes: await providers.takesImages(choice, AbortSignal.timeout(10_000)), model: choice.model };
        },
      });
      const started = runtime.send(input.sessionId, input.text, attachments);
      // A session still called "New session" is named after its first message, as people expect.
      if (before.title === defaultTitle) changed(store.update(input.sessionId, { title: titleFrom(input.text) }, clock.now()));
      return started;
    },
    'run:cancel': async (input) => {
      existing(input.sessionId);
      return { cancelled: await runtime.cancel(input.sessionId) };
    },
    'run:clearQueue': (input) => ({ cleared: runtime.clearQueue(input.sessionId) }),

    'approval:answer': (input) => {
      runtime.answerApproval(input.approvalId, input.decision, input.reason, { trustEscalation: input.trustEscalation === true });
      return { accepted: true as const };
    },
    'plan:answer': (input) => {
      runtime.answerPlan(input.planId, input.answer, input.text);
      return { accepted: true as const };
    },
    'budget:answer': (input) => {
      runtime.answerBudget(input.gateId, input.answer);
      return { accepted: true as const };
    },
    'review:answer': (input) => {
      runtime.answerReview(input.reviewId, input.decision);
      return { accepted: true as const };
    },
    'trust:list': () => trust.listActive(clock.now()),
    'trust:revoke': (input) => {
      const grant = trust.revoke(input.grantId, clock.now());
      deps.onTrustChanged();
      return grant;
    },
    'tool:list': () =>
      deps.tools
        .list()
        .map((tool) => ({ name: tool.name, description: tool.description, server: tool.group ?? null, risk: tool.baseRisk })),
    'tool:output': (input) => {
      const found = accounting.toolOutput(input.toolCallId);
      if (!found) throw new NotFoundError('Tool call', input.toolCallId);
      return found;
    },

    'provider:list': () => providers.list(),
    'provider:save': (input) => {
      const saved = providers.save(input);
      // A new endpoint's models are checked in the background; each result is announced as it comes.
      if (input.id === undefined) void providers.checkAll(saved.id);
      return saved;
    },
    'provider:remove': (input) => {
      providers.remove(input.providerId);
      return { removed: true as const };
    },
    'provider:discover': (input) => providers.discover(input.timeoutMs),
    'provider:test': (input) => providers.test(input),
    'provider:models': (input) => providers.models(input.providerId, AbortSignal.timeout(10_000)),
    'provider:window': (input) => {
      providers.describe(input);
      return providers.window(input, AbortSignal.timeout(10_000));
    },

    'model:check': (input) => providers.check(input.providerId, input.model, AbortSignal.timeout(5 * 60_000)),
    'model:checks': (input) => providers.checks(input.providerId),
    'model:configure': (input) => {
      const current = settings.get();
      if (!current.providers.some((provider) => provider.id === input.providerId)) throw new NotFoundError('Provider', input.providerId);
      const { providerId, model, ...change } = input;
      const defined = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
      return settings.set({ ...current, modelSettings: withModelSetting(current, providerId, model, defined) });
    },

    'trash:list': async () => (await deps.trash.list()).map(({ version: _version, ...entry }) => entry),
    'trash:restore': async (input) => {
      const { version: _version, ...entry } = await deps.trash.restore(input.id);
      return entry;
    },

    'mcp:list': () => deps.mcp.statuses(),
    'mcp:configure': async (input) => {
      settings.set({ ...settings.get(), mcpServers: input.mcpServers });
      await deps.mcp.configure(input.mcpServers);
      return deps.mcp.statuses();
    },
    'mcp:setEnabled': async (input) => {
      const current = settings.get();
      const server = current.mcpServers[input.name];
      if (!server) throw new NotFoundError('MCP server', input.name);
      const mcpServers = { ...current.mcpServers, [input.name]: { ...server, disabled: !input.enabled } };
      settings.set({ ...current, mcpServers });
      await deps.mcp.configure(mcpServers);
      return deps.mcp.statuses();
    },

    ...settingsHandlers({ settings, profiles: deps.profiles, archive: deps.archive }),

    ...memoryHandlers(deps),
    ...profileHandlers({
      profiles: deps.profiles,
      store,
      settings,
      clock,
      changed,
      onEntries: (sessionId, entries) => listener.onEntries(sessionId, entries),
      assertIdle: (sessionId) => {
        if (runtime.isBusy(sessionId))
          throw new WorkbenchError('session_busy', 'Stop the running turn first: a profile changes what the turn is.');
      },
    }),
    ...createArchiveHandlers({ archive: deps.archive, store, trust }),
    ...localModelHandlers({ models: deps.models, pickFile: deps.folderPicker.pickFile?.bind(deps.folderPicker) }),
  };
}

/** Handlers for when the database could not be opened: the app can say why, and nothing else runs. */
export function createUnavailableHandlers(appInfo: AppInfo): Handlers {
  const refuse = (): never => {
    throw new WorkbenchError('store_unavailable', appInfo.startupError?.message ?? 'The database is not available.');
  };
  const handlers = Object.fromEntries(channelNames.map((name) => [name, refuse])) as unknown as Record<string, () => never>;
  return { ...handlers, 'app:info': () => appInfo } as unknown as Handlers;
}
