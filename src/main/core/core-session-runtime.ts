/*
 * The session runtime of the core (`sessionRuntime`): the runtime and the collaborators it is given, the journal,
 * conversations, gates, context budget, system prompts and worktrees, from the parts the core has built.
 */

import { modelSettingOf } from '../../shared/domain';
import type { Clock } from '../agent/ports/clock';
import type { CheckRunner } from '../agent/ports/checks';
import type { CodeMapSource } from '../agent/ports/code-map';
import type { DiagnosticsSource } from '../agent/ports/diagnostics';
import { isRestricted } from '../agent/ports/folder-trust';
import { newId } from '../agent/ports/ids';
import type { ProviderResolver } from '../agent/ports/ports';
import type { ToolRegistry, WorkspaceToolSource } from '../agent/ports/tools';
import { Gates } from '../agent/rules/gates';
import { ContextBudget } from '../agent/context/prompt-builder';
import { SystemPrompts } from '../agent/context/prompt-assembly';
import { describeToolsTool } from '../agent/context/tool-catalogue';
import { ConversationStore } from '../agent/history/conversation-store';
import { SessionJournal } from '../agent/history/session-journal';
import { SessionRuntime, type RuntimeLimits } from '../agent/session/session-runtime';
import type { SqliteFileHistory } from '../workspace/file-history';
import { FolderInspector } from '../workspace/folder-inspector';
import type { FolderTrustStore } from '../workspace/folder-trust-store';
import { InstructionFiles, withReleases, withheldInstructions } from '../workspace/instruction-files';
import { SnapshotChanges } from '../workspace/snapshot-changes';
import type { Repositories } from '../git/repositories';
import { Worktrees } from '../git/worktrees';
import { promptEnvironment } from '../tools/prompt-environment';
import type { CommandShell } from '../tools/command-shell';
import type { SandboxStatus } from '../tools/sandbox';
import type { ProviderRegistry } from '../providers/provider-registry';
import { worktreesFolder } from './core-folder-trust';
import type { CoreOptions } from './core-options';
import type { Stores } from './core-stores';

export interface RuntimeParts {
  readonly options: CoreOptions;
  readonly clock: Clock;
  readonly stores: Stores;
  readonly registry: ProviderRegistry;
  readonly tools: ToolRegistry;
  readonly files: SqliteFileHistory | null;
  readonly sandbox: SandboxStatus | undefined;
  readonly commandShell: CommandShell | undefined;
  readonly codeMap: CodeMapSource | null;
  readonly diagnostics: DiagnosticsSource | null;
  readonly checks: CheckRunner | null;
  /** The workspaces' repositories when git is there: checkpoints record HEAD, and Changes commits. */
  readonly repositories: Repositories | null;
  readonly folderTrust: FolderTrustStore | null;
  /** What a session's folder brings of its own tools (a trusted folder's MCP servers). */
  readonly workspaceTools?: WorkspaceToolSource;
}

/** The runtime and the collaborators it is given: the journal, conversations, gates, context budget and system prompts. */
export function sessionRuntime({
  options,
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
  repositories,
  folderTrust,
  workspaceTools,
}: RuntimeParts): SessionRuntime {
  const { settings } = options;
  const instrument = options.instrumentProvider;
  const providers: ProviderResolver = instrument
    ? {
        resolve: (choice) => instrument(registry.resolve(choice)),
        describe: (choice) => registry.describe(choice),
        defaultModel: () => registry.defaultModel(),
        window: (choice, signal) => registry.window(choice, signal),
      }
    : registry;
  const { store, memory, profiles, prompts } = stores;
  const journal = new SessionJournal(store, options.listener, clock);
  const instructionFiles = new InstructionFiles(() => clock.now());
  const environment = promptEnvironment(sandbox, commandShell);
  const limits = (): RuntimeLimits => {
    const current = settings.get();
    const { planThreshold, maxIterations, deniedTools, heldToolGroups, budgets, modelPrices, subAgentDepth, subAgentConcurrency } = current;
    return {
      planThreshold,
      maxIterations,
      deniedTools,
      heldToolGroups,
      budgets,
      modelPrices,
      subAgentDepth,
      subAgentConcurrency,
      codeMapShare: current.codeMapShare,
      gateTimeout: current.gateTimeout,
    };
  };
  // A catalogue of tools in place of their definitions (a small window) needs the tool that describes them; it knows
  // nothing of the tools the person denied, as the catalogue does not.
  const denied = (name: string): boolean => limits().deniedTools.includes(name);
  tools.registerHidden(
    describeToolsTool({
      get: (name, workspacePath) => (denied(name) ? undefined : tools.get(name, workspacePath)),
      list: (workspacePath) => tools.offered(limits().deniedTools, workspacePath),
    }),
  );
  const context = new ContextBudget({
    window: (choice, signal) => providers.window(choice, signal),
    settings: () => {
      const { compactAt, answerTokens } = settings.get();
      return { compactAt, answerTokens };
    },
    // Extended thinking is Anthropic's: a budget set for a model of another kind of endpoint (or of one just removed) is not asked for.
    thinkingBudget: (choice) => {
      const current = settings.get();
      const anthropic = current.providers.some((endpoint) => endpoint.id === choice.providerId && endpoint.kind === 'anthropic');
      return anthropic ? modelSettingOf(current, choice.providerId, choice.model).thinkingBudget : null;
    },
  });
  const systemPrompts = new SystemPrompts({
    sources: {
      // A folder the person does not trust steers nothing: its instruction files are found, named, and not given.
      instructions: async (workspacePath) => {
        const set = await instructionFiles.load(workspacePath);
        if (!folderTrust) return set;
        return isRestricted(folderTrust, workspacePath) ? withheldInstructions(set) : withReleases(set, workspacePath, folderTrust);
      },
      environment: () => environment,
    },
    memory,
    records: prompts,
    clock,
  });
  return new SessionRuntime({
    store,
    providers,
    journal,
    conversations: new ConversationStore(stores.checkpoints, store),
    turn: {
      tools,
      trust: stores.trust,
      accounting: stores.accounting,
      checkpoints: stores.checkpoints,
      ...(files ? { files } : {}),
      gates: new Gates(),
      clock,
      steady: stores.steady,
      journal,
      frameMs: options.frameMs ?? 16,
      context,
      prompts: systemPrompts,
      ...(codeMap ? { codeMap } : {}),
      ...(diagnostics ? { diagnostics } : {}),
      ...(checks ? { checks } : {}),
      ...(repositories ? { git: repositories } : {}),
      ...(folderTrust ? { folderTrust } : {}),
      ...(workspaceTools ? { workspaceTools } : {}),
      newId: () => newId(clock.now()),
    },
    ...(files ? { changes: new SnapshotChanges(files, [options.dataDir]) } : {}),
    limits,
    workspaces: new FolderInspector(),
    defaults: () => {
      const { defaultModel, defaultAutonomy, defaultProfileId } = settings.get();
      return { model: defaultModel, autonomy: defaultAutonomy, profileId: defaultProfileId };
    },
    providerExists: (providerId) => registry.list().some((provider) => provider.id === providerId),
    profiles: { store: profiles, defaultId: () => settings.get().defaultProfileId },
    ...(repositories
      ? {
          git: repositories,
          // Beside the data folder, not in it: the tools never write into the app's data.
          worktrees: new Worktrees(repositories.git, worktreesFolder(options), [options.dataDir], (folder) =>
            isRestricted(folderTrust ?? undefined, folder),
          ),
        }
      : {}),
  });
}
