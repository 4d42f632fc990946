/*
 * The programs a repository names in its own files, which git starts when a command runs there: settings of the
 * repository's configuration (its `.git/config` and what that includes) and the hooks in its hooks folder. A folder
 * that arrived with its `.git` can run code through a `git status` this way; the person's own settings (global and
 * system) are theirs, and not counted.
 */

import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { RepositoryProgram } from '../shell/command-targets';
import { gitEnvironment } from './git-program';

/** Commands that write the index or update a reference: hooks that follow those (and auto gc) start with them. */
const commitVerbs = ['commit', 'merge', 'pull', 'rebase', 'cherry-pick', 'revert', 'am'];
const checkoutVerbs = ['checkout', 'switch', 'clone', 'worktree', 'rebase', 'pull', 'merge'];
const networkVerbs = ['fetch', 'pull', 'push', 'clone', 'ls-remote', 'submodule', 'remote', 'archive', 'lfs'];
const diffVerbs = [
  'diff',
  'log',
  'show',
  'stash',
  'format-patch',
  'blame',
  'annotate',
  'grep',
  'range-diff',
  'whatchanged',
  'difftool',
  'add',
  'reset',
  'checkout',
  'restore',
  'commit',
  'cat-file',
];
const editorVerbs = ['commit', 'merge', 'pull', 'rebase', 'tag', 'notes', 'revert', 'cherry-pick', 'am', 'config', 'add', 'var'];
const mergeVerbs = ['merge', 'pull', 'rebase', 'cherry-pick', 'revert', 'stash', 'checkout', 'switch', 'am', 'apply'];
const signingVerbs = [...commitVerbs, 'tag', 'log', 'show', 'verify-commit', 'verify-tag', 'whatchanged'];

/** Which commands run each hook git knows; three run with almost any command. */
const hookVerbs: Readonly<Record<string, readonly string[] | 'every'>> = {
  'pre-commit': ['commit', 'merge', 'pull'],
  'pre-merge-commit': ['merge', 'pull'],
  'prepare-commit-msg': commitVerbs,
  'commit-msg': commitVerbs,
  'post-commit': commitVerbs,
  'post-merge': ['merge', 'pull'],
  'post-checkout': checkoutVerbs,
  'pre-rebase': ['rebase', 'pull'],
  'post-rewrite': ['commit', 'rebase', 'pull'],
  'applypatch-msg': ['am'],
  'pre-applypatch': ['am'],
  'post-applypatch': ['am'],
  'pre-push': ['push'],
  'push-to-checkout': ['push'],
  'pre-receive': ['push'],
  update: ['push'],
  'proc-receive': ['push'],
  'post-receive': ['push'],
  'post-update': ['push'],
  'sendemail-validate': ['send-email'],
  // A reference moved, or the index written (a status refreshes it): almost any command.
  'reference-transaction': 'every',
  'post-index-change': 'every',
  // The repository tidied (`gc --auto`) after commands that write objects.
  'pre-auto-gc': ['gc', 'commit', 'merge', 'pull', 'fetch', 'rebase', 'am', 'cherry-pick', 'revert', 'receive-pack'],
};

const booleanValue = /^(true|false|yes|no|on|off|1|0|)$/i;

/** The commands that start the program a setting names; null for a setting that names none. */
export function settingVerbs(key: string, value: string): readonly string[] | 'every' | null {
  const name = key.toLowerCase();
  if (name === 'core.fsmonitor') return booleanValue.test(value.trim()) ? null : 'every';
  if (name === 'core.pager') return value.trim() === '' || value.trim() === 'cat' ? null : 'every';
  const pager = /^pager\.(.+)$/.exec(name);
  if (pager?.[1]) return booleanValue.test(value.trim()) || value.trim() === 'cat' ? null : [pager[1]];
  if (name === 'core.editor' || name === 'sequence.editor') return value.trim() === '' || value.trim() === ':' ? null : editorVerbs;
  if (name === 'diff.external' || /^diff\..+\.(command|textconv)$/.test(name) || name === 'interactive.difffilter') return diffVerbs;
  if (/^filter\..+\.(clean|smudge|process)$/.test(name)) return value.trim() === '' ? null : 'every';
  if (/^merge\..+\.driver$/.test(name)) return mergeVerbs;
  if (
    ['core.sshcommand', 'core.gitproxy', 'core.askpass', 'core.alternaterefscommand'].includes(name) ||
    /^remote\..+\.(uploadpack|receivepack|vcs)$/.test(name) ||
    /^credential\.(.+\.)?helper$/.test(name)
  )
    return networkVerbs;
  if (/^remote\..+\.(url|pushurl)$/.test(name)) return /^ext::/i.test(value.trim()) ? networkVerbs : null;
  if (name === 'gpg.program' || /^gpg\..+\.program$/.test(name) || name === 'gpg.ssh.defaultkeycommand') return signingVerbs;
  if (/^url\..+\.(insteadof|pushinsteadof)$/.test(name)) return /^ext::/i.test(key.slice(4)) ? networkVerbs : null;
  if (/^submodule\..+\.update$/.test(name)) return value.trim().startsWith('!') ? ['submodule'] : null;
  if (/^(difftool|mergetool)\..+\.(cmd|path)$/.test(name)) return [name.split('.')[0] ?? 'difftool'];
  if (/^browser\..+\.(cmd|path)$/.test(name) || name === 'web.browser') return ['help', 'instaweb', 'web--browse'];
  if (name === 'core.hookspath') return null;
  const alias = /^alias\.(.+)$/.exec(name);
  // An alias that starts a shell, or that sets its own options (`-c core.pager=…`), runs what it says.
  if (alias?.[1]) return /^\s*!|(^|\s)(-c|--config-env|--exec-path)\b/.test(value) ? [alias[1]] : null;
  return null;
}

/** What one `git config --show-scope --show-origin -z --list` holds: scope, origin, then `key\nvalue`. */
function readScopedConfig(output: string): { key: string; value: string; scope: string }[] {
  const records = output.split('\0');
  const entries: { key: string; value: string; scope: string }[] = [];
  for (let index = 0; index + 2 < records.length; index += 3) {
    const scope = records[index] ?? '';
    const entry = records[index + 2] ?? '';
    const newline = entry.indexOf('\n');
    entries.push({
      scope,
      key: newline < 0 ? entry : entry.slice(0, newline),
      value: newline < 0 ? '' : entry.slice(newline + 1),
    });
  }
  return entries;
}

/** The hooks git would run from a folder: files that can be executed, not the `.sample` ones git leaves there. */
function hooksIn(folder: string): RepositoryProgram[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const found: RepositoryProgram[] = [];
  for (const name of names) {
    // Git for Windows runs any hook file there, `.exe` or not, and the file system has no execute bits to ask.
    const windows = process.platform === 'win32';
    const verbs = hookVerbs[windows ? name.replace(/\.exe$/i, '') : name];
    if (!verbs) continue;
    try {
      const file = statSync(join(folder, name));
      if (file.isFile() && (windows || (file.mode & 0o111) !== 0)) found.push({ source: `the hook ${join(folder, name)}`, verbs });
    } catch {
      // A broken link: git cannot run it either.
    }
  }
  return found;
}

/**
 * Reads what a folder's repository would run, with the person's git (found as git finds a repository: a bare one
 * too). Nothing when the folder is in no repository, git is missing, or git refuses the repository (it would refuse
 * to run the command too). Synchronous: it is asked while a command line is judged, only for lines that run git.
 */
export function readRepositoryPrograms(
  folder: string,
  program = 'git',
  env: NodeJS.ProcessEnv = process.env,
  depth = 0,
  /** How many more submodules may be read, over the whole tree: one count shared by every level. */
  budget: { left: number } = { left: maxSubmodules },
): RepositoryProgram[] {
  const run = (args: readonly string[]): string | null => {
    const result = spawnSync(program, ['--no-pager', ...args], {
      cwd: folder,
      env: gitEnvironment('none', env),
      encoding: 'utf8',
      timeout: 5_000,
      maxBuffer: 8 * 1024 * 1024,
      windowsHide: true,
    });
    return result.status === 0 ? result.stdout : null;
  };
  // A bare repository has no top folder (`--show-toplevel` would fail there): its hooks run in its git folder.
  const where = run(['rev-parse', '--absolute-git-dir', '--git-common-dir', '--is-bare-repository', '--show-cdup']);
  if (where === null) return [];
  const [gitDir = '', common = '', bare = '', up = ''] = where.split('\n');
  const commonDir = isAbsolute(common) ? common : resolve(folder, common);
  const hooksBase = bare === 'true' ? gitDir : resolve(folder, up);
  const listed = run(['config', '--show-scope', '--show-origin', '-z', '--list']);
  const entries =
    listed !== null
      ? readScopedConfig(listed).filter((entry) => entry.scope === 'local' || entry.scope === 'worktree')
      : // Before git 2.26 (no --show-scope): the repository's own files asked for by name.
        (run(['config', '--local', '--includes', '-z', '--list']) ?? '')
          .split('\0')
          .filter((entry) => entry !== '')
          .map((entry) => {
            const newline = entry.indexOf('\n');
            return {
              key: newline < 0 ? entry : entry.slice(0, newline),
              value: newline < 0 ? '' : entry.slice(newline + 1),
              scope: 'local',
            };
          });
  const programs: RepositoryProgram[] = [];
  let hooksPath: string | null = null;
  for (const entry of entries) {
    if (entry.key.toLowerCase() === 'core.hookspath') hooksPath = entry.value;
    const verbs = settingVerbs(entry.key, entry.value);
    if (verbs) programs.push({ source: `${entry.key} in the repository's configuration`, verbs });
  }
  // The repository's hooks folder, or the one its own configuration names. A hooks folder the person's global
  // configuration names holds their own hooks, unless it is a relative one: that is a folder of each repository's.
  const globalPath = hooksPath === null ? lastOutside(listed, 'core.hookspath') : null;
  const named = hooksPath ?? globalPath;
  const hooksFolder =
    named === null ? join(commonDir, 'hooks') : named.startsWith('~/') ? join(homedir(), named.slice(2)) : resolve(hooksBase, named);
  const theirOwn = globalPath !== null && (isAbsolute(globalPath) || globalPath.startsWith('~/'));
  if (!theirOwn) programs.push(...hooksIn(hooksFolder));
  const own = withAliases(programs, listed === null ? entries : readScopedConfig(listed));
  return depth >= maxSubmoduleDepth ? own : [...own, ...submodulePrograms(commonDir, program, env, depth, budget)];
}

/** How deep submodules of submodules are read, and how many of them in all. */
const maxSubmoduleDepth = 2;
const maxSubmodules = 16;

/** Commands of the superproject that run git inside its submodules too (a status asks each for its own). */
const submoduleVerbs = [
  'status',
  'diff',
  'commit',
  'add',
  'submodule',
  'checkout',
  'switch',
  'pull',
  'fetch',
  'push',
  'merge',
  'rebase',
  'reset',
  'restore',
  'clone',
  'grep',
  'ls-files',
];

/**
 * The programs of a repository's submodules (their git folders under `modules/`, which have a configuration and hooks
 * of their own), for the commands of the superproject that reach into them. More than can be read counts as naming
 * programs.
 */
function submodulePrograms(
  commonDir: string,
  program: string,
  env: NodeJS.ProcessEnv,
  depth: number,
  budget: { left: number },
): RepositoryProgram[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return;
    }
    for (const name of names) {
      if (found.length > budget.left) return;
      const path = join(folder, name);
      try {
        if (!statSync(path).isDirectory()) continue;
        // A module's git folder; a name with a slash is folders on the way to one.
        if (statSync(join(path, 'HEAD'), { throwIfNoEntry: false })?.isFile()) found.push(path);
        else walk(path);
      } catch {
        // Gone meanwhile, or unreadable: git could not use it either.
      }
    }
  };
  walk(join(commonDir, 'modules'));
  if (found.length > budget.left)
    return [{ source: `more than ${maxSubmodules} submodules, whose configuration is not read`, verbs: submoduleVerbs }];
  budget.left -= found.length;
  return found.flatMap((gitDir) =>
    readRepositoryPrograms(gitDir, program, env, depth + 1, budget).flatMap((inner): RepositoryProgram[] => {
      const verbs = inner.verbs === 'every' ? submoduleVerbs : inner.verbs.filter((verb) => submoduleVerbs.includes(verb));
      const reach = verbs.includes('submodule') ? verbs : [...verbs, 'submodule'];
      return [{ source: `${inner.source} (the submodule at ${gitDir})`, verbs: reach }];
    }),
  );
}

/**
 * Programs reached through an alias too: `alias.c = commit` (in any configuration) runs what `commit` runs, so a
 * program of `commit` is one of `c` as well.
 */
function withAliases(programs: RepositoryProgram[], entries: readonly { key: string; value: string }[]): RepositoryProgram[] {
  const aliases = new Map<string, string>();
  for (const entry of entries) {
    const alias = /^alias\.(.+)$/i.exec(entry.key)?.[1];
    const target = entry.value.trim().split(/\s+/)[0];
    if (alias && target && !target.startsWith('!')) aliases.set(alias, target);
  }
  if (aliases.size === 0) return programs;
  return programs.map((program) => {
    if (program.verbs === 'every') return program;
    const verbs = program.verbs;
    const through = [...aliases].filter(([, target]) => verbs.includes(target)).map(([alias]) => alias);
    return through.length === 0 ? program : { ...program, verbs: [...verbs, ...through] };
  });
}

/** The value the person's own configuration (global or system) gives a setting, the last one counting; null if none. */
function lastOutside(listed: string | null, key: string): string | null {
  if (listed === null) return null;
  const values = readScopedConfig(listed).filter(
    (entry) => entry.key.toLowerCase() === key && entry.scope !== 'local' && entry.scope !== 'worktree',
  );
  return values.at(-1)?.value ?? null;
}
