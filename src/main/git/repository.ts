/*
 * One workspace's git repository: where it is, its status, and the read-only questions the agent and the window ask
 * of it (diff, log, show, the commit checked out).
 */

import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, posix, resolve } from 'node:path';
import { unsafeGitName } from '../../shared/git';
import { GitError, type GitProgram, type GitResult, type GitRunOptions } from './git-program';
import { parseStatus, type ParsedStatus } from './git-status';

/** Where a repository is, seen from a folder inside it. */
export interface RepositoryPlace {
  /** The work tree's top folder. */
  readonly root: string;
  /** This work tree's own git folder (a linked worktree's is under the main one's `worktrees/`). */
  readonly gitDir: string;
  /** The git folder shared by all work trees: objects, branches, config. */
  readonly commonDir: string;
  /** The folder's path inside the work tree, with a trailing `/`, or `` at the top. */
  readonly prefix: string;
}

/** Where a folder's repository is, or null when the folder is in none. */
export async function findRepository(git: GitProgram, folder: string, signal?: AbortSignal): Promise<RepositoryPlace | null> {
  const result = await git.run(folder, ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir', '--show-prefix'], {
    allowFailure: true,
    ...(signal ? { signal } : {}),
  });
  if (result.exitCode !== 0) {
    if (/not a git repository/i.test(result.stderr)) return null;
    // A bare repository's folder, or one git refuses (ownership): said as it is.
    if (/must be run in a work tree/.test(result.stderr)) return null;
    throw new GitError('git_failed', `Git cannot read the repository here: ${result.stderr.trim().split('\n')[0] ?? ''}`, {
      detail: result.stderr.slice(0, 4000),
    });
  }
  const [root = '', gitDir = '', commonDir = '', prefix = ''] = result.stdout.toString('utf8').split('\n');
  return { root, gitDir, commonDir: isAbsolute(commonDir) ? commonDir : resolve(folder, commonDir), prefix };
}

/**
 * The git folders of the repository a folder is in, found by looking for `.git` upwards as git does (a linked
 * worktree's `.git` is a file naming its folder), without starting a process; null when there is none.
 */
export function locateRepository(folder: string): Pick<RepositoryPlace, 'gitDir' | 'commonDir'> | null {
  let current = resolve(folder);
  for (;;) {
    const dotGit = join(current, '.git');
    try {
      const found = statSync(dotGit);
      if (found.isDirectory()) return { gitDir: dotGit, commonDir: dotGit };
      if (found.isFile()) {
        const named = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
        if (named) {
          const gitDir = resolve(current, named);
          let commonDir = gitDir;
          try {
            commonDir = resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim());
          } catch {
            // A submodule's git folder has no commondir: it is its own.
          }
          return { gitDir, commonDir };
        }
      }
    } catch {
      // No .git here: look in the folder above.
    }
    const parent = dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

/** The commit checked out and its branch, read from the git folder's files (no process): null where it cannot be told. */
export function readHead(place: Pick<RepositoryPlace, 'gitDir' | 'commonDir'>): { commit: string | null; branch: string | null } {
  let head: string;
  try {
    head = readFileSync(join(place.gitDir, 'HEAD'), 'utf8').trim();
  } catch {
    return { commit: null, branch: null };
  }
  if (/^[0-9a-f]{40,64}$/.test(head)) return { commit: head, branch: null };
  const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
  if (!ref) return { commit: null, branch: null };
  const branch = ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;
  for (const folder of [place.commonDir, place.gitDir]) {
    try {
      const loose = readFileSync(join(folder, ref), 'utf8').trim();
      if (/^[0-9a-f]{40,64}$/.test(loose)) return { commit: loose, branch };
    } catch {
      // Not a loose ref here: packed, or in the other folder.
    }
  }
  try {
    for (const line of readFileSync(join(place.commonDir, 'packed-refs'), 'utf8').split('\n')) {
      const [commit, name] = line.split(' ');
      if (name === ref && commit && /^[0-9a-f]{40,64}$/.test(commit)) return { commit, branch };
    }
  } catch {
    // No packed refs: a branch with no commit yet.
  }
  return { commit: null, branch };
}

/** A path of the workspace as the agent names it, checked before it goes to git. */
export function checkedPath(path: string): string {
  const problem = unsafeGitName(path);
  if (problem) throw new GitError('invalid_input', `That path cannot go to git: ${problem}.`);
  const normal = posix.normalize(path.replace(/\\/g, '/'));
  if (isAbsolute(normal) || normal === '..' || normal.startsWith('../'))
    throw new GitError('invalid_input', `${path} is not inside the workspace: name a path relative to it.`);
  return normal === '.' ? '' : normal.replace(/\/$/, '');
}

/** A revision as the agent or the person names it (a branch, a tag, a commit, `HEAD~2`), checked before git reads it. */
export function checkedRevision(revision: string): string {
  const problem = unsafeGitName(revision);
  if (problem) throw new GitError('invalid_input', `That revision cannot go to git: ${problem}.`);
  if (/\s/.test(revision)) throw new GitError('invalid_input', `"${revision}" is not a revision: it holds a space.`);
  return revision;
}

/**
 * What `git config -z --show-origin --list` says (records `file:<path>`, then `key\nvalue`): the filter drivers'
 * names, and the files the configuration came from or an include names. Throws for a name `-c` could not state.
 */
export function readConfigList(output: string, cwd: string): { names: string[]; files: string[] } {
  const records = output.split('\0');
  const names = new Set<string>();
  const files = new Set<string>();
  for (let index = 0; index + 1 < records.length; index += 2) {
    const origin = records[index] ?? '';
    const entry = records[index + 1] ?? '';
    const newline = entry.indexOf('\n');
    const key = (newline < 0 ? entry : entry.slice(0, newline)).toLowerCase();
    const value = newline < 0 ? '' : entry.slice(newline + 1);
    const file = origin.startsWith('file:') ? resolve(cwd, origin.slice('file:'.length)) : null;
    if (file) files.add(file);
    const filter = /^filter\.(.+)\.(clean|smudge|process)$/.exec(entry.slice(0, newline < 0 ? undefined : newline));
    if (filter?.[1]) {
      // A name git's -c cannot state cannot be switched off: refuse rather than run it.
      if (filter[1].includes('='))
        throw new GitError(
          'git_failed',
          `The repository's configuration names a filter ("${filter[1]}") the app cannot switch off; nothing was run.`,
        );
      names.add(filter[1]);
    }
    if (/^include(if\..*)?\.path$/.test(key) && value !== '') {
      const named = value.startsWith('~/') ? join(homedir(), value.slice(2)) : value;
      files.add(isAbsolute(named) ? named : resolve(file ? dirname(file) : cwd, named));
    }
  }
  return { names: [...names], files: [...files] };
}

/** The configuration files whose change may add a filter driver (checked by time, so the list is read again). */
function configFiles(place: RepositoryPlace): string[] {
  const xdg = process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config');
  return [
    join(place.commonDir, 'config'),
    join(place.gitDir, 'config.worktree'),
    join(homedir(), '.gitconfig'),
    join(xdg, 'git', 'config'),
  ];
}

function stamp(files: readonly string[]): string {
  return files
    .map((file) => {
      try {
        const found = statSync(file);
        return `${found.mtimeMs}:${found.size}`;
      } catch {
        return '-';
      }
    })
    .join('|');
}

/** A repository as seen from one workspace folder. */
export class GitRepository {
  private filters: { stamp: string; names: readonly string[]; files: readonly string[] } | null = null;

  constructor(
    private readonly git: GitProgram,
    readonly place: RepositoryPlace,
    /** The workspace folder: paths the agent names are relative to it. */
    readonly folder: string,
  ) {}

  /**
   * Runs git in the workspace folder (or at the top, where paths are named from the top), with the configuration's
   * filter drivers switched off on reads.
   */
  async runRaw(args: readonly string[], options: GitRunOptions & { atRoot?: boolean } = {}): Promise<GitResult> {
    const { atRoot, ...rest } = options;
    return this.git.run(atRoot ? this.place.root : this.folder, args, { ...rest, filters: await this.filterNames() });
  }

  /** As `runRaw`, its output as text, saying so when it was cut. */
  async run(args: readonly string[], options: GitRunOptions & { atRoot?: boolean } = {}): Promise<string> {
    const result = await this.runRaw(args, options);
    return result.stdout.toString('utf8') + (result.truncated ? '\n[cut: the output was longer]' : '');
  }

  /**
   * The branch, upstream and changed paths: one `git status`. A submodule counts as changed when it has moved to
   * another commit, not for its own uncommitted files: looking at those would run a status inside it, under its own
   * configuration (its filter drivers), which the app does not read.
   */
  async status(signal?: AbortSignal): Promise<ParsedStatus> {
    const output = await this.run(
      ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all', '--ignore-submodules=dirty'],
      signal ? { signal } : {},
    );
    return parseStatus(output);
  }

  /** The commit checked out and its branch, without running git. */
  head(): { commit: string | null; branch: string | null } {
    return readHead(this.place);
  }

  /** A workspace path as the repository's top names it (status lists paths from there). */
  fromRoot(path: string): string {
    return `${this.place.prefix}${checkedPath(path)}`.replace(/\/$/, '');
  }

  /** A path status gave (from the top) relative to the workspace, or null when it is outside the workspace. */
  toWorkspace(path: string): string | null {
    if (this.place.prefix === '') return path;
    return path.startsWith(this.place.prefix) ? path.slice(this.place.prefix.length) : null;
  }

  /**
   * The names of the filter drivers the configuration defines, read again when any file it was read from changes: the
   * usual files, every file an include brought in, every file an include names (made later, it counts then), and HEAD
   * (an `includeIf "onbranch:…"` follows it).
   */
  private async filterNames(): Promise<readonly string[]> {
    const current = stamp([...configFiles(this.place), ...(this.filters?.files ?? []), join(this.place.gitDir, 'HEAD')]);
    if (this.filters?.stamp === current) return this.filters.names;
    const result = await this.git.run(this.folder, ['config', '-z', '--show-origin', '--list'], { allowFailure: true });
    const { names, files } = readConfigList(result.stdout.toString('utf8'), this.folder);
    this.filters = {
      stamp: stamp([...configFiles(this.place), ...files, join(this.place.gitDir, 'HEAD')]),
      names,
      files,
    };
    return names;
  }
}
