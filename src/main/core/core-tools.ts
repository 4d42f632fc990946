/*
 * The core's tools (`coreTools`): the shell's parser, the workspaces' code indexes, and the built-in, check, git and
 * memory tools in one registry, with the tools the core is given.
 */

import { WorkbenchError, toErrorInfo } from '../../shared/errors';
import { toDisposable, type DisposableStore } from '../../shared/lifecycle';
import type { Clock } from '../agent/ports/clock';
import { newId } from '../agent/ports/ids';
import type { MemoryStore } from '../agent/ports/memory';
import { ToolRegistry } from '../agent/ports/tools';
import { BashParser } from '../shell/bash-parser';
import { CodeMaps } from '../code-map/code-maps';
import { join } from 'node:path';
import { sealFor, type AtRestSeal } from '../secrets/at-rest-seal';
import { WorkerTagger } from '../code-map/worker-tagger';
import { readRepositoryPrograms } from '../git/repository-programs';
import type { Repositories } from '../git/repositories';
import { builtinTools } from '../tools/builtin-tools';
import { CommandChecks, runCheckTool } from '../tools/check-command';
import { gitTools } from '../tools/git-tools';
import { memoryTools } from '../tools/memory-tools';
import { Trash } from '../tools/trash';
import { commandNiceness } from '../tools/run-command';
import type { CommandShell } from '../tools/command-shell';
import type { SandboxStatus } from '../tools/sandbox';
import { WorkspaceFiles } from '../workspace/workspace-files';
import type { CoreOptions } from './core-options';

/** The shell's parser, or the reason the app cannot start without it: a broken package, not the person's data. */
export async function loadShellParser(): Promise<BashParser> {
  try {
    return await BashParser.load();
  } catch (error) {
    throw new WorkbenchError(
      'internal',
      `The shell command parser could not be loaded (${toErrorInfo(error).message}); reinstall the app.`,
      {
        cause: error,
      },
    );
  }
}

export interface ToolParts {
  readonly options: CoreOptions;
  readonly clock: Clock;
  /** Holds the code indexes' tagging thread until the core closes. */
  readonly owned: DisposableStore;
  /** The shell's parser when the built-in tools are built; without it there are none, nor code indexes. */
  readonly shell: BashParser | null;
  readonly sandbox: SandboxStatus | undefined;
  /** The shell commands run in; run_command is not offered where it is unavailable. */
  readonly commandShell: CommandShell | undefined;
  /** The workspaces' repositories when git is there: the git tools, and lines that run git judged by the repository. */
  readonly repositories: Repositories | null;
  readonly memory: MemoryStore;
  readonly restricted: (workspacePath: string) => boolean;
  /** The paths a session changed, which a commit that names no paths commits. */
  readonly agentChanges: (sessionId: string) => Promise<string[]>;
  /** How the code indexes are kept between runs (see `codeMapsKept`). */
  readonly codeMapsKept: CodeMapsKept;
  /** Whether the database is encrypted: the trash is then sealed with its key. */
  readonly encrypted: boolean;
}

/** The code indexes kept on disk as JSON, sealed, or not at all. */
export type CodeMapsKept = { readonly onDisk: false } | { readonly onDisk: true; readonly seal: AtRestSeal | null };

/**
 * How the code indexes are kept: sealed with the key kept for an encrypted database, as JSON beside a plain one, and
 * only in memory where the database is encrypted but its key cannot be read again (never written plain beside it).
 */
export function codeMapsKept(encrypted: boolean, options: Pick<CoreOptions, 'databaseKeys'>): CodeMapsKept {
  if (!encrypted) return { onDisk: true, seal: null };
  const seal = options.databaseKeys ? sealFor(options.databaseKeys, 'code map') : null;
  return seal ? { onDisk: true, seal } : { onDisk: false };
}

/**
 * The app's trash under the data folder: sealed with the key kept for an encrypted database, plain beside a plain one.
 * Where the database is encrypted but its key cannot be read again it stays plain too: a deleted file cannot be kept
 * only in memory, and is never thrown away.
 */
export function appTrash(encrypted: boolean, options: Pick<CoreOptions, 'databaseKeys' | 'dataDir'>): Trash {
  const seal = encrypted && options.databaseKeys ? sealFor(options.databaseKeys, 'trash') : null;
  return new Trash(join(options.dataDir, 'trash'), [options.dataDir], seal);
}

export interface CoreTools {
  readonly tools: ToolRegistry;
  /** The one trash of the delete tool and of Settings → Trash. */
  readonly trash: Trash;
  /** The code indexes the symbol tools were built with, for the repository map; none without the built-in tools. */
  readonly codeMaps: CodeMaps | null;
  /** The workspace's check command, run as run_command runs any command; none without run_command. */
  readonly checks: CommandChecks | null;
}

/** Every tool the model may be offered besides those of MCP servers, in one registry, with what they share. */
export function coreTools(parts: ToolParts): CoreTools {
  const { options, clock, owned, shell, sandbox, commandShell, repositories, memory, restricted, agentChanges, codeMapsKept: kept } = parts;
  const trash = appTrash(parts.encrypted, options);
  // The workspaces' code indexes, which the symbol tools and the repository map share.
  const tagger = shell && options.tagWorker ? new WorkerTagger(options.tagWorker) : null;
  if (tagger) owned.add(toDisposable(() => void tagger.dispose()));
  const codeMaps = shell
    ? new CodeMaps({
        dataDir: kept.onDisk ? options.dataDir : null,
        seal: kept.onDisk ? kept.seal : null,
        filesOf: (path) => new WorkspaceFiles(path, { protectedRoots: [options.dataDir] }),
        ...(tagger ? { tagger } : {}),
        ...(options.onCodeMapProgress ? { onProgress: codeMapProgress(options.onCodeMapProgress) } : {}),
      })
    : null;
  const builtin =
    shell && codeMaps
      ? builtinTools({
          ...builtinToolOptions(options, clock),
          shell,
          codeMaps,
          trash,
          ...(sandbox ? { sandbox } : {}),
          ...(commandShell ? { commandShell } : {}),
          // A line that runs git is judged with what the repository would start (its settings, its hooks).
          ...(repositories
            ? { repositoryPrograms: (folder: string) => readRepositoryPrograms(folder, 'git', options.gitEnvironment ?? process.env) }
            : {}),
          restricted,
        })
      : [];
  // The workspace's check command runs as run_command runs any command: in the sandbox, under the command limits.
  const runCommand = builtin.find((tool) => tool.name === 'run_command');
  const checks = runCommand
    ? new CommandChecks({
        runCommand,
        sandboxed: sandbox?.available === true,
        commands: () => options.settings.get().checkCommands,
        restricted,
      })
    : null;
  const checkTools = checks && runCommand ? [runCheckTool(checks, runCommand)] : [];
  const git = repositories ? gitTools({ repositories, agentChanges }) : [];
  const tools = new ToolRegistry([...builtin, ...checkTools, ...git, ...(options.tools ?? []), ...memoryTools(memory)]);
  return { tools, codeMaps, checks, trash };
}

/** How often a workspace's indexing progress is told, at most: every file would be thousands of messages. */
const progressEveryMs = 250;

/** Progress of the code indexes, told at most every 250 ms per workspace, and always at the end. */
function codeMapProgress(
  tell: NonNullable<CoreOptions['onCodeMapProgress']>,
): (workspacePath: string, done: number, total: number) => void {
  const told = new Map<string, number>();
  return (workspacePath, done, total) => {
    const now = performance.now();
    if (done < total && now - (told.get(workspacePath) ?? -Infinity) < progressEveryMs) return;
    told.set(workspacePath, now);
    if (done === total) told.delete(workspacePath);
    tell({ workspacePath, done, total });
  };
}

/** What the built-in tools take from the core's options: limits and niceness follow Settings, as they change. */
function builtinToolOptions(options: CoreOptions, clock: Clock) {
  return {
    dataDir: options.dataDir,
    newId: () => newId(clock.now()),
    now: () => clock.now(),
    commandNiceness: () => commandNiceness(options.settings.get()),
    commandLimits: () => options.settings.get().commandLimits,
  };
}
