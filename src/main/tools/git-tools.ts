/*
 * The agent's git tools: status, diff, log and show to read the repository, a commit of named paths (or of the
 * session's own changes), and branches made and checked out. Each runs the person's git with arguments, never through
 * a shell; none talks to a remote (that stays a command with the network, asked for as such).
 */

import { z } from 'zod';
import { counted } from '../../shared/counts';
import { WorkbenchError } from '../../shared/errors';
import { commitMessageSchema } from '../../shared/git';
import { defineTool, type Tool, type ToolContext } from '../agent/ports/tools';
import { commitPaths, createBranch, switchBranch } from '../git/git-commit';
import type { Repositories } from '../git/repositories';
import { checkedPath, checkedRevision, type GitRepository } from '../git/repository';
import type { StatusEntry } from '../git/git-status';
import { workspaceOf } from './file-tool-kit';
import { workspaceRelativeText } from '../workspace/model-path';
import { currentNamingPlatform, type NamingPlatform } from '../workspace/path-text';

export interface GitToolOptions {
  readonly repositories: Repositories;
  /** The paths this session's agent changed and that are not taken back (its Changes), for a commit that names none. */
  readonly agentChanges: (sessionId: string) => Promise<readonly string[]>;
  /** Whose path forms the model's paths are read in (`C:\\a`, `/c/a` on Windows); this machine's by default. */
  readonly platform?: NamingPlatform;
}

/** Output kept for the model from one read; the runtime cuts longer results again with its own marker. */
const maxReadBytes = 512 * 1024;

const pathsSchema = z.array(z.string().min(1).max(1024)).max(500);
const revisionSchema = z.string().min(1).max(256);

/** The repository of the call's workspace; not being in one is the call's failure, in words. */
async function repositoryOf(repositories: Repositories, context: ToolContext): Promise<GitRepository> {
  const repository = await repositories.of(workspaceOf(context), context.signal);
  if (!repository) throw new WorkbenchError('invalid_state', 'The workspace is not in a git repository.');
  return repository;
}

/** The model's paths relative to the call's workspace, in the form git reads (see `workspaceRelativeText`). */
function workspacePaths(paths: readonly string[], context: ToolContext, platform: NamingPlatform): string[] {
  const workspace = workspaceOf(context);
  return paths.map((path) => workspaceRelativeText(path, workspace, platform));
}

/** `--` and the paths, checked; nothing when none are named. */
function pathArguments(paths: readonly string[] | undefined, context: ToolContext, platform: NamingPlatform): string[] {
  return paths && paths.length > 0 ? ['--', ...workspacePaths(paths, context, platform).map((path) => checkedPath(path) || '.')] : [];
}

const statusLetters: Readonly<Record<string, string>> = {
  M: 'modified',
  T: 'type changed',
  A: 'added',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  U: 'conflicted',
};

/** One status line for the model: "staged: modified; not staged: deleted  src/a.ts". */
function entryLine(entry: StatusEntry, repository: GitRepository): string {
  const path = repository.toWorkspace(entry.path) ?? `(outside the workspace) ${entry.path}`;
  if (entry.kind === 'untracked') return `untracked  ${path}`;
  if (entry.kind === 'conflicted') return `conflicted (${entry.staged}${entry.unstaged})  ${path}`;
  const parts = [
    entry.staged === '.' ? null : `staged: ${statusLetters[entry.staged] ?? entry.staged}`,
    entry.unstaged === '.' ? null : `not staged: ${statusLetters[entry.unstaged] ?? entry.unstaged}`,
  ].filter((part) => part !== null);
  const from = entry.from === undefined ? '' : ` (from ${repository.toWorkspace(entry.from) ?? entry.from})`;
  return `${parts.join('; ')}${entry.submodule ? ' [submodule]' : ''}  ${path}${from}`;
}

function gitStatusTool(repositories: Repositories): Tool {
  return defineTool({
    name: 'git_status',
    description:
      "Shows the workspace's git repository: the branch (or detached commit), its upstream with commits ahead and behind, " +
      'and each changed path (staged, not staged, untracked, conflicted). Read-only.',
    input: z.object({}).strict(),
    // On a small window, listed in the catalogue rather than defined: the file tools come first.
    optional: true,
    risk: 'read_only',
    summarize: () => 'the repository',
    execute: async (_input, context) => {
      const repository = await repositoryOf(repositories, context);
      const status = await repository.status(context.signal);
      const where =
        status.branch === null
          ? `HEAD is detached at ${status.commit?.slice(0, 12) ?? 'no commit'}`
          : `On branch ${status.branch}${status.commit === null ? ' (no commits yet)' : ` at ${status.commit.slice(0, 12)}`}`;
      const upstream =
        status.upstream === null
          ? 'No upstream branch.'
          : `Upstream ${status.upstream}: ${status.ahead ?? 0} ahead, ${status.behind ?? 0} behind (as of the last fetch).`;
      const lines = status.entries.slice(0, 300).map((entry) => entryLine(entry, repository));
      const more = status.entries.length > 300 ? [`… and ${status.entries.length - 300} more`] : [];
      const changes =
        status.entries.length === 0
          ? 'Nothing changed: the work tree is as HEAD has it.'
          : `${counted(status.entries.length, 'changed path')}:`;
      return { output: [where, upstream, changes, ...lines, ...more].join('\n') };
    },
  });
}

function gitDiffTool(repositories: Repositories, platform: NamingPlatform): Tool {
  return defineTool({
    name: 'git_diff',
    description:
      'Shows a unified diff from git: by default the changes not yet staged; `staged: true` for what is staged; `revision` ' +
      'to compare the work tree with a commit or branch (e.g. "HEAD", "main"); `paths` to limit it; `stat: true` for a ' +
      'summary of files and lines only. Untracked files are not in a diff: git_status lists them. Read-only.',
    input: z
      .object({
        staged: z.boolean().optional(),
        revision: revisionSchema.optional(),
        paths: pathsSchema.optional(),
        stat: z.boolean().optional(),
      })
      .strict(),
    // On a small window, listed in the catalogue rather than defined: the file tools come first.
    optional: true,
    risk: 'read_only',
    summarize: (input) =>
      [input.staged ? 'staged' : null, input.revision, ...(input.paths ?? [])].filter(Boolean).join(' ') || 'unstaged changes',
    execute: async (input, context) => {
      const repository = await repositoryOf(repositories, context);
      const args = [
        'diff',
        // Not into submodules' own work trees: that would run their configuration's programs (see `status`).
        '--ignore-submodules=dirty',
        '--no-ext-diff',
        '--no-textconv',
        '--no-color',
        ...(input.stat ? ['--stat'] : []),
        ...(input.staged ? ['--cached'] : []),
        ...(input.revision === undefined ? [] : ['--end-of-options', checkedRevision(input.revision)]),
        ...pathArguments(input.paths, context, platform),
      ];
      const output = await repository.run(args, { signal: context.signal, maxBytes: maxReadBytes });
      return { output: output.trim() === '' ? 'No differences.' : output };
    },
  });
}

function gitLogTool(repositories: Repositories, platform: NamingPlatform): Tool {
  return defineTool({
    name: 'git_log',
    description:
      'Lists commits, newest first: short id, date, author and subject. `revision` to start elsewhere than HEAD (a branch, ' +
      '"main..HEAD"), `paths` for commits that touched them, `maxCount` (default 20, at most 200). Read-only.',
    input: z
      .object({
        revision: revisionSchema.optional(),
        paths: pathsSchema.optional(),
        maxCount: z.number().int().min(1).max(200).default(20),
      })
      .strict(),
    // On a small window, listed in the catalogue rather than defined: the file tools come first.
    optional: true,
    risk: 'read_only',
    summarize: (input) => [input.revision, ...(input.paths ?? [])].filter(Boolean).join(' ') || 'recent commits',
    execute: async (input, context) => {
      const repository = await repositoryOf(repositories, context);
      if (repository.head().commit === null && input.revision === undefined) return { output: 'There are no commits yet.' };
      const output = await repository.run(
        [
          'log',
          '--no-color',
          '--no-ext-diff',
          '--no-textconv',
          `--max-count=${input.maxCount}`,
          '--format=%h %ad %an: %s',
          '--date=short',
          ...(input.revision === undefined ? [] : ['--end-of-options', checkedRevision(input.revision)]),
          ...(input.paths && input.paths.length > 0 ? pathArguments(input.paths, context, platform) : ['--']),
        ],
        { signal: context.signal, maxBytes: maxReadBytes },
      );
      return { output: output.trim() === '' ? 'No commits match.' : output };
    },
  });
}

function gitShowTool(repositories: Repositories, platform: NamingPlatform): Tool {
  return defineTool({
    name: 'git_show',
    description:
      'Shows a commit (its message, the files it changed and its diff), or with `path` a file as that commit has it. ' +
      '`revision` is a commit id, branch, tag or "HEAD~1". Read-only.',
    input: z.object({ revision: revisionSchema, path: z.string().min(1).max(1024).optional(), stat: z.boolean().optional() }).strict(),
    // On a small window, listed in the catalogue rather than defined: the file tools come first.
    optional: true,
    risk: 'read_only',
    summarize: (input) => (input.path === undefined ? input.revision : `${input.revision}:${input.path}`),
    execute: async (input, context) => {
      const repository = await repositoryOf(repositories, context);
      const revision = checkedRevision(input.revision);
      if (input.path !== undefined) {
        const path = checkedPath(workspacePaths([input.path], context, platform)[0] as string);
        const output = await repository.run(['show', '--no-textconv', '--end-of-options', `${revision}:./${path}`], {
          signal: context.signal,
          maxBytes: maxReadBytes,
        });
        return { output };
      }
      const output = await repository.run(
        [
          'show',
          '--no-ext-diff',
          '--no-textconv',
          '--no-color',
          '--format=fuller',
          input.stat ? '--stat' : '--patch-with-stat',
          '--end-of-options',
          revision,
          '--',
        ],
        { signal: context.signal, maxBytes: maxReadBytes },
      );
      return { output };
    },
  });
}

function gitCommitTool({ repositories, agentChanges }: GitToolOptions, platform: NamingPlatform): Tool {
  return defineTool({
    name: 'git_commit',
    description:
      'Commits files to the current branch with a message. Only the `paths` named are committed, as they are on disk; ' +
      'without `paths`, the files this session changed (its Changes). Anything else the person staged stays staged and out ' +
      "of the commit. The repository's hooks run (a failing hook refuses the commit and its output says why). Never pushes.",
    input: z.object({ message: commitMessageSchema, paths: pathsSchema.optional() }).strict(),
    // The repository's hooks are programs that run outside the sandbox: a commit is asked for below L3.
    // On a small window, listed in the catalogue rather than defined: the file tools come first.
    optional: true,
    risk: 'write_high',
    assess: (input) => ({
      level: 'write_high',
      reason: `a commit runs the repository's hooks, which are programs outside the sandbox${input.paths ? '' : "; it commits this session's changes"}`,
    }),
    summarize: (input) => input.message.split('\n')[0] ?? '',
    execute: async (input, context) => {
      const repository = await repositoryOf(repositories, context);
      const paths = input.paths ? workspacePaths(input.paths, context, platform) : await agentChanges(context.sessionId);
      if (paths.length === 0) throw new WorkbenchError('invalid_state', 'This session has changed no files to commit; name the paths.');
      const commit = await commitPaths(repository, { paths, message: input.message, signal: context.signal });
      const hooks = commit.hookOutput === '' ? '' : `\nThe hooks said:\n${commit.hookOutput}`;
      return {
        output: `Committed ${commit.commit.slice(0, 12)} on ${commit.branch ?? 'a detached HEAD'}: ${commit.subject}\n${counted(commit.paths.length, 'file')}: ${commit.paths.join(', ')}${hooks}`,
      };
    },
  });
}

function gitBranchTool(repositories: Repositories): Tool {
  return defineTool({
    name: 'git_branch',
    description:
      'Makes a new branch at HEAD (or at `from`), and checks it out when `checkout` is true (the changes in the work tree ' +
      'come along). Fails when the branch exists.',
    input: z.object({ name: z.string().min(1).max(200), from: revisionSchema.optional(), checkout: z.boolean().default(false) }).strict(),
    // On a small window, listed in the catalogue rather than defined: the file tools come first.
    optional: true,
    risk: 'write_low',
    assess: (input) =>
      input.checkout
        ? { level: 'write_high', reason: "checking out runs the repository's checkout hooks, programs outside the sandbox" }
        : { level: 'write_low', reason: 'makes a branch; no file changes' },
    summarize: (input) => `${input.name}${input.checkout ? ' (checked out)' : ''}`,
    execute: async (input, context) => {
      const repository = await repositoryOf(repositories, context);
      const from = input.from === undefined ? {} : { from: checkedRevision(input.from) };
      const branch = await createBranch(repository, input.name, { ...from, checkout: input.checkout });
      return { output: input.checkout ? `Made branch ${branch} and checked it out.` : `Made branch ${branch}; HEAD is where it was.` };
    },
  });
}

function gitSwitchTool(repositories: Repositories): Tool {
  return defineTool({
    name: 'git_switch',
    description:
      'Checks out an existing branch. Uncommitted changes come along when they can; git refuses when they would be ' +
      'overwritten, and nothing changes.',
    input: z.object({ branch: z.string().min(1).max(200) }).strict(),
    // On a small window, listed in the catalogue rather than defined: the file tools come first.
    optional: true,
    risk: 'write_high',
    assess: () => ({ level: 'write_high', reason: "changes the work tree's files to another branch's and runs the checkout hooks" }),
    summarize: (input) => input.branch,
    execute: async (input, context) => {
      const repository = await repositoryOf(repositories, context);
      await switchBranch(repository, input.branch);
      return { output: `Switched to branch ${input.branch}.` };
    },
  });
}

/** The git tools offered to the model. */
export function gitTools(options: GitToolOptions): Tool[] {
  const { repositories } = options;
  const platform = options.platform ?? currentNamingPlatform();
  return [
    gitStatusTool(repositories),
    gitDiffTool(repositories, platform),
    gitLogTool(repositories, platform),
    gitShowTool(repositories, platform),
    gitCommitTool(options, platform),
    gitBranchTool(repositories),
    gitSwitchTool(repositories),
  ];
}
