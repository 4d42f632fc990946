/*
 * Commits of named paths that leave everything else in the index as it was, and branches made and checked out: the
 * writes the app makes with git. The repository's hooks run, as they would for the person's own `git commit`.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GitCommit } from '../../shared/git';
import { unsafeGitName } from '../../shared/git';
import { GitError } from './git-program';
import type { GitRepository } from './repository';

export interface CommitRequest {
  /** Paths relative to the workspace: only these are committed. */
  readonly paths: readonly string[];
  readonly message: string;
  readonly signal?: AbortSignal;
}

/**
 * Commits these paths as they are on disk, and nothing else: what the person staged for other paths stays staged and
 * out of the commit (`git commit --only`). A new file is added to the index first, and taken out again if the commit
 * fails, so a refused commit changes nothing. Paths git sees no change in are left out; none changed is an error.
 */
export async function commitPaths(repository: GitRepository, request: CommitRequest): Promise<GitCommit> {
  const message = request.message.replace(/\r\n/g, '\n').trim();
  if (message === '') throw new GitError('invalid_input', 'Write a commit message: it is empty.');
  const signal = request.signal ? { signal: request.signal } : {};
  const status = await repository.status(request.signal);
  const changed = new Map<string, (typeof status.entries)[number]>();
  for (const entry of status.entries) {
    changed.set(entry.path, entry);
    if (entry.from !== undefined) changed.set(entry.from, entry);
  }
  // A folder named stands for the changed files in it, each named to git on its own: adding the folder itself would
  // stage every change under it, the person's partly staged files too. `` is the repository's top: everything.
  const named = [...new Set(request.paths.map((path) => repository.fromRoot(path)))];
  const committed = [
    ...new Set(
      named.flatMap((path) => [...changed.keys()].filter((other) => path === '' || other === path || other.startsWith(`${path}/`))),
    ),
  ].sort();
  if (committed.length === 0)
    throw new GitError('git_failed', 'Nothing to commit: the files named are as the last commit has them (or git ignores them).');
  const conflicted = committed.filter((path) => changed.get(path)?.kind === 'conflicted');
  if (conflicted.length > 0)
    throw new GitError(
      'git_failed',
      `${conflicted.join(', ')} ${conflicted.length === 1 ? 'has' : 'have'} unresolved conflicts: resolve them first.`,
    );
  const untracked = committed.filter((path) => changed.get(path)?.kind === 'untracked');
  const folder = await mkdtemp(join(tmpdir(), 'workbench-commit-'));
  try {
    const messageFile = join(folder, 'message');
    await writeFile(messageFile, `${message}\n`);
    const pathList = `${committed.join('\0')}\0`;
    // Paths go on stdin, NUL-separated, read literally (--literal-pathspecs): no name is read as an option or a pattern.
    if (untracked.length > 0)
      await repository.runRaw(['add', '--pathspec-from-file=-', '--pathspec-file-nul'], {
        atRoot: true,
        programs: 'hooks',
        input: `${untracked.join('\0')}\0`,
        ...signal,
      });
    let output: { stdout: Buffer; stderr: string };
    try {
      output = await repository.runRaw(
        ['commit', '--only', `--file=${messageFile}`, '--cleanup=whitespace', '--pathspec-from-file=-', '--pathspec-file-nul'],
        { atRoot: true, programs: 'hooks', input: pathList, ...signal },
      );
    } catch (error) {
      // The new files added for this commit are taken out of the index again: a refused commit changes nothing.
      if (untracked.length > 0)
        await repository
          .runRaw(['reset', '--quiet', '--pathspec-from-file=-', '--pathspec-file-nul'], {
            atRoot: true,
            allowFailure: true,
            input: `${untracked.join('\0')}\0`,
          })
          .catch(() => undefined);
      throw error;
    }
    const head = repository.head();
    const commit = head.commit ?? (await repository.run(['rev-parse', '--verify', 'HEAD'])).trim();
    return {
      commit,
      branch: head.branch,
      subject: message.split('\n')[0] ?? '',
      paths: committed.map((path) => repository.toWorkspace(path) ?? path),
      hookOutput: output.stderr.trim().slice(0, 8000),
    };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** A branch name checked as git's own `check-ref-format --branch` does, and refused before git sees it when unsafe. */
export async function checkedBranch(repository: GitRepository, name: string): Promise<string> {
  const problem = unsafeGitName(name);
  if (problem) throw new GitError('invalid_input', `That branch name cannot be used: ${problem}.`);
  const result = await repository.runRaw(['check-ref-format', '--branch', name], { allowFailure: true });
  if (result.exitCode !== 0) throw new GitError('invalid_input', `"${name}" is not a name git allows for a branch.`);
  return name;
}

/** Makes a branch at HEAD (or at `from`), and checks it out when asked. */
export async function createBranch(
  repository: GitRepository,
  name: string,
  options: { from?: string; checkout: boolean },
): Promise<string> {
  const branch = await checkedBranch(repository, name);
  const exists = await repository.runRaw(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { allowFailure: true });
  if (exists.exitCode === 0) throw new GitError('git_failed', `A branch named ${branch} already exists.`);
  const start = options.from === undefined ? [] : [options.from];
  if (options.checkout) await repository.run(['switch', '--create', branch, ...start], { programs: 'hooks' });
  else await repository.run(['branch', branch, ...start]);
  return branch;
}

/** Checks out an existing branch; git refuses when it would overwrite uncommitted changes, and that is said. */
export async function switchBranch(repository: GitRepository, name: string): Promise<void> {
  const branch = await checkedBranch(repository, name);
  const exists = await repository.runRaw(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { allowFailure: true });
  if (exists.exitCode !== 0) throw new GitError('invalid_input', `There is no branch named ${branch}.`);
  await repository.run(['switch', branch], { programs: 'hooks' });
}
