import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitProgram } from '../../../src/main/git/git-program';
import { Repositories } from '../../../src/main/git/repositories';
import { readHead } from '../../../src/main/git/repository';
import { commitPaths, createBranch, switchBranch } from '../../../src/main/git/git-commit';
import { git, makeRepository, write } from './git-fixtures';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function repository(files?: Record<string, string>): string {
  const made = makeRepository(files);
  cleanups.push(made.remove);
  return made.folder;
}

const repositories = (): Repositories => new Repositories(new GitProgram());

async function opened(folder: string) {
  const found = await repositories().of(folder);
  if (!found) throw new Error('expected a repository');
  return found;
}

describe('the header figures', () => {
  it('shows the branch, its upstream with ahead and behind, and the changed files', async () => {
    const origin = repository({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const clone = mkdtempSync(join(tmpdir(), 'workbench-clone-'));
    cleanups.push(() => rmSync(clone, { recursive: true, force: true }));
    git(clone, 'clone', '--quiet', origin, '.');
    git(clone, 'config', 'user.name', 'Test Person');
    git(clone, 'config', 'user.email', 'person@example.invalid');
    write(clone, { 'a.txt': 'a changed\n' });
    git(clone, 'commit', '--quiet', '--all', '--message', 'local work');
    write(origin, { 'c.txt': 'c\n' });
    git(origin, 'add', 'c.txt');
    git(origin, 'commit', '--quiet', '--message', 'upstream work');
    git(clone, 'fetch', '--quiet');
    write(clone, { 'b.txt': 'b changed\n', 'new file.txt': 'new\n', 'staged.txt': 'staged\n' });
    git(clone, 'add', 'staged.txt');

    const view = await repositories().view(clone);
    expect(view).toMatchObject({
      kind: 'repository',
      branch: 'main',
      upstream: 'origin/main',
      ahead: 1,
      behind: 1,
      changed: 3,
      staged: 1,
      untracked: 1,
      conflicted: 0,
    });
  });

  it('shows a detached HEAD as its commit with no branch', async () => {
    const folder = repository();
    const first = git(folder, 'rev-parse', 'HEAD').trim();
    git(folder, 'checkout', '--quiet', '--detach', 'HEAD');
    const view = await repositories().view(folder);
    expect(view).toMatchObject({ kind: 'repository', branch: null, commit: first, upstream: null, ahead: null });
  });

  it('says a folder is in no repository, and a workspace below the top is found', async () => {
    const plain = mkdtempSync(join(tmpdir(), 'workbench-plain-'));
    cleanups.push(() => rmSync(plain, { recursive: true, force: true }));
    expect(await repositories().view(plain)).toEqual({ kind: 'none' });
    const folder = repository({ 'src/app/main.ts': 'x\n' });
    write(folder, { 'src/app/main.ts': 'y\n' });
    expect(await repositories().view(join(folder, 'src', 'app'))).toMatchObject({ kind: 'repository', changed: 1 });
  });

  it('says once why git cannot be used when it is missing from the PATH, and the rest still works', async () => {
    const folder = repository();
    const missing = new Repositories(new GitProgram('git', { ...process.env, PATH: '/nonexistent' }));
    const view = await missing.view(folder);
    expect(view.kind).toBe('unavailable');
    expect(view.kind === 'unavailable' && view.reason).toMatch(/Git was not found on this computer/);
  });

  it('says a git older than 2.25 is too old, and one that does not say its version is not git', async () => {
    const folder = repository();
    const fake = (output: string): string => {
      const path = join(folder, `fake-git-${Math.random().toString(36).slice(2)}`);
      writeFileSync(path, `#!/bin/sh\necho "${output}"\n`);
      chmodSync(path, 0o755);
      return path;
    };
    expect(await new Repositories(new GitProgram(fake('git version 2.20.1'))).view(folder)).toEqual({
      kind: 'unavailable',
      reason: 'Git 2.20.1 is too old: the app needs git 2.25 or newer.',
    });
    expect(await new Repositories(new GitProgram(fake('hello'))).view(folder)).toMatchObject({
      kind: 'unavailable',
      reason: expect.stringContaining('did not say which git it is'),
    });
  });

  it('counts a submodule moved to another commit (not its own uncommitted files) and a path that is not UTF-8', async () => {
    const inner = repository({ 'lib.txt': 'lib\n' });
    const folder = repository();
    git(folder, '-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'add', inner, 'vendor/lib');
    git(folder, 'commit', '--quiet', '--message', 'add the submodule');
    // Uncommitted inside the submodule: not looked at (its own configuration could name programs).
    write(join(folder, 'vendor', 'lib'), { 'lib.txt': 'changed inside\n' });
    const found = await opened(folder);
    expect((await found.status()).entries).toEqual([]);
    git(
      join(folder, 'vendor', 'lib'),
      '-c',
      'user.name=T',
      '-c',
      'user.email=t@example.invalid',
      'commit',
      '--quiet',
      '--all',
      '--message',
      'moved',
    );
    writeFileSync(join(folder, Buffer.from([0x6e, 0xe9, 0x2e, 0x74, 0x78, 0x74]).toString('latin1')), 'latin-1 name\n');
    const status = await found.status();
    expect(status.entries.find((entry) => entry.path === 'vendor/lib')).toMatchObject({ submodule: true, unstaged: 'M' });
    expect(status.entries.filter((entry) => entry.kind === 'untracked')).toHaveLength(1);
  });
});

describe("the app's own git calls run none of the repository's programs", () => {
  it('status, diff, log and show with fsmonitor, pager, external diff, textconv and filters set run nothing', async () => {
    const folder = repository({ '.gitattributes': '*.txt filter=evil diff=evil\n', 'a.txt': 'one\n' });
    const marker = (name: string): string => join(folder, `${name}-ran`);
    const program = (name: string): string => `sh -c 'touch "${marker(name)}"; cat'`;
    git(folder, 'config', 'core.fsmonitor', program('fsmonitor'));
    git(folder, 'config', 'core.pager', program('pager'));
    git(folder, 'config', 'diff.external', program('external'));
    git(folder, 'config', 'diff.evil.textconv', program('textconv'));
    git(folder, 'config', 'filter.evil.clean', program('clean'));
    git(folder, 'config', 'filter.evil.smudge', program('smudge'));
    write(folder, { 'a.txt': 'one\ntwo\n' });

    const found = await opened(folder);
    await found.status();
    const diff = await found.run(['diff', '--no-ext-diff', '--no-textconv']);
    await found.run(['log', '-p', '--no-ext-diff', '--no-textconv', '-1']);
    await found.run(['show', '--no-ext-diff', '--no-textconv', 'HEAD']);
    expect(diff).toContain('+two');
    for (const name of ['fsmonitor', 'pager', 'external', 'textconv', 'clean', 'smudge'])
      expect(existsSync(marker(name)), name).toBe(false);
    // A commit runs the person's hooks and filters, as their own commit would, but never the fsmonitor or the pager.
    git(folder, 'config', '--unset', 'filter.evil.clean');
    git(folder, 'config', '--unset', 'filter.evil.smudge');
    await commitPaths(found, { paths: ['a.txt'], message: 'two' });
    for (const name of ['fsmonitor', 'pager', 'external', 'textconv']) expect(existsSync(marker(name)), name).toBe(false);
    // The same status by the person's own git runs the fsmonitor: the settings above are what stopped it.
    git(folder, 'status', '--porcelain');
    expect(existsSync(marker('fsmonitor'))).toBe(true);
  });
});

describe('the configuration cannot slip a program in another way', () => {
  it('a signature check, a lazy fetch of a partial clone, and a filter added later through an include run nothing', async () => {
    const folder = repository({ 'a.txt': 'one\n' });
    const marker = (name: string): string => join(folder, `${name}-ran`);
    const program = (name: string): string => `sh -c 'touch "${marker(name)}"; cat'`;
    // A commit with a signature, shown with log.showSignature set: git would ask gpg.program to check it.
    const tree = git(folder, 'rev-parse', 'HEAD^{tree}').trim();
    const parent = git(folder, 'rev-parse', 'HEAD').trim();
    const signed = [
      `tree ${tree}`,
      `parent ${parent}`,
      'author A <a@example.invalid> 1700000000 +0000',
      'committer A <a@example.invalid> 1700000000 +0000',
      'gpgsig -----BEGIN PGP SIGNATURE-----',
      ' ',
      ' iQEzBAABCAAdFiEE',
      ' -----END PGP SIGNATURE-----',
      '',
      'signed',
      '',
    ].join('\n');
    const id = execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], {
      cwd: folder,
      input: signed,
      encoding: 'utf8',
    }).trim();
    git(folder, 'update-ref', 'refs/heads/main', id);
    git(folder, 'config', 'log.showSignature', 'true');
    git(folder, 'config', 'gpg.program', program('gpg'));
    // A partial clone's missing object would be fetched through the remote's ssh command.
    git(folder, 'config', 'core.repositoryformatversion', '1');
    git(folder, 'config', 'extensions.partialClone', 'origin');
    git(folder, 'config', 'remote.origin.url', 'ssh://example.invalid/repository.git');
    git(folder, 'config', 'core.sshCommand', program('ssh'));
    const found = await opened(folder);
    expect(await found.run(['log', '-1', '--format=%s'])).toBe('signed\n');
    await found.run(['show', '--no-ext-diff', '--no-textconv', 'HEAD']);
    await found.runRaw(['cat-file', 'blob', '0123456789012345678901234567890123456789'], { allowFailure: true });
    // A filter defined later in a file an include names (one the agent could write) is switched off too.
    git(folder, 'config', 'include.path', '../filters.cfg');
    await found.status();
    // (A script: in a configuration file `;` starts a comment.)
    write(folder, { 'late.sh': `#!/bin/sh\ntouch "${marker('late')}"\ncat\n` });
    chmodSync(join(folder, 'late.sh'), 0o755);
    write(folder, { '.gitattributes': '*.txt filter=late\n', 'filters.cfg': `[filter "late"]\n\tclean = ${join(folder, 'late.sh')}\n` });
    write(folder, { 'a.txt': 'one\ntwo\n' });
    await found.status();
    await found.run(['diff', '--no-ext-diff', '--no-textconv']);
    for (const name of ['gpg', 'ssh', 'late']) expect(existsSync(marker(name)), name).toBe(false);
    // The person's own git runs the late filter: the switch above is what stopped it.
    git(folder, 'add', 'a.txt');
    expect(existsSync(marker('late'))).toBe(true);
  });
});

describe('commits of named paths', () => {
  it("commits the agent's files and leaves the person's staged and unstaged changes as they were", async () => {
    const folder = repository({ 'agent.txt': 'old\n', 'person-staged.txt': 'old\n', 'person-unstaged.txt': 'old\n' });
    write(folder, {
      'agent.txt': 'agent\n',
      'agent new.txt': 'created\n',
      'person-staged.txt': 'staged\n',
      'person-unstaged.txt': 'unstaged\n',
    });
    git(folder, 'add', 'person-staged.txt');
    const found = await opened(folder);

    const commit = await commitPaths(found, { paths: ['agent.txt', 'agent new.txt'], message: 'Agent work\n\nTwo files.' });

    expect(commit).toMatchObject({ branch: 'main', subject: 'Agent work', paths: ['agent new.txt', 'agent.txt'] });
    expect(git(folder, 'show', '--name-only', '--format=%s', 'HEAD').trim().split('\n')).toEqual([
      'Agent work',
      '',
      'agent new.txt',
      'agent.txt',
    ]);
    expect(git(folder, 'diff', '--cached', '--name-only').trim()).toBe('person-staged.txt');
    expect(git(folder, 'diff', '--name-only').trim()).toBe('person-unstaged.txt');
    expect(readFileSync(join(folder, 'person-unstaged.txt'), 'utf8')).toBe('unstaged\n');
  });

  it("commits a folder's changed files one by one, keeps a message's # lines, and a refused commit leaves the person's staging", async () => {
    const folder = repository({ 'dir/tracked.txt': 'one\ntwo\n', 'other.txt': 'o\n' });
    const hook = join(folder, '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, '#!/bin/sh\nexit 1\n');
    chmodSync(hook, 0o755);
    // The person staged one line of tracked.txt, and left another unstaged.
    write(folder, { 'dir/tracked.txt': 'ONE\ntwo\n' });
    git(folder, 'add', 'dir/tracked.txt');
    write(folder, { 'dir/tracked.txt': 'ONE\nTWO\n', 'dir/new.txt': 'new\n' });
    const staged = git(folder, 'diff', '--cached');
    const found = await opened(folder);
    await expect(commitPaths(found, { paths: ['dir'], message: 'refused' })).rejects.toMatchObject({ code: 'git_failed' });
    expect(git(folder, 'diff', '--cached')).toBe(staged);
    expect(git(folder, 'status', '--porcelain', '--untracked-files=all').trimEnd()).toBe('MM dir/tracked.txt\n?? dir/new.txt');

    rmSync(hook);
    const commit = await commitPaths(found, { paths: ['.'], message: '#123 fix the parser\n\n# not a comment either' });
    expect(commit.paths).toEqual(['dir/new.txt', 'dir/tracked.txt']);
    expect(git(folder, 'log', '-1', '--format=%B').trim()).toBe('#123 fix the parser\n\n# not a comment either');
  });

  it('commits from a workspace below the top of the repository with paths relative to it', async () => {
    const folder = repository({ 'pkg/a.txt': 'a\n' });
    write(folder, { 'pkg/a.txt': 'b\n', 'outside.txt': 'left\n' });
    const found = await opened(join(folder, 'pkg'));
    const commit = await commitPaths(found, { paths: ['a.txt'], message: 'pkg change' });
    expect(commit.paths).toEqual(['a.txt']);
    expect(git(folder, 'show', '--name-only', '--format=', 'HEAD').trim()).toBe('pkg/a.txt');
  });

  it('runs the commit hooks, and a hook that refuses leaves the index as it was, saying what the hook said', async () => {
    const folder = repository();
    const hook = join(folder, '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, '#!/bin/sh\necho "hook checked it" >&2\ntouch "$(git rev-parse --show-toplevel)/hook-ran"\nexit 0\n');
    chmodSync(hook, 0o755);
    write(folder, { 'one.txt': 'one\n' });
    const found = await opened(folder);
    const commit = await commitPaths(found, { paths: ['one.txt'], message: 'with a hook' });
    expect(commit.hookOutput).toContain('hook checked it');
    expect(existsSync(join(folder, 'hook-ran'))).toBe(true);

    writeFileSync(hook, '#!/bin/sh\necho "lint failed: two.txt" >&2\nexit 1\n');
    write(folder, { 'two.txt': 'two\n' });
    const head = git(folder, 'rev-parse', 'HEAD');
    await expect(commitPaths(found, { paths: ['two.txt'], message: 'refused' })).rejects.toMatchObject({
      code: 'git_failed',
      message: expect.stringContaining('lint failed: two.txt'),
    });
    expect(git(folder, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(folder, 'status', '--porcelain')).toContain('?? two.txt');
  });

  it('refuses a locked index, an empty message and paths with nothing to commit, changing nothing', async () => {
    const folder = repository({ 'a.txt': 'a\n' });
    write(folder, { 'a.txt': 'changed\n' });
    const found = await opened(folder);
    writeFileSync(join(folder, '.git', 'index.lock'), '');
    await expect(commitPaths(found, { paths: ['a.txt'], message: 'locked' })).rejects.toMatchObject({
      code: 'git_failed',
      message: expect.stringContaining('index is locked'),
    });
    rmSync(join(folder, '.git', 'index.lock'));
    await expect(commitPaths(found, { paths: ['a.txt'], message: '  \n' })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(commitPaths(found, { paths: ['README.md'], message: 'nothing' })).rejects.toThrow(/Nothing to commit/);
    await expect(commitPaths(found, { paths: ['-a'], message: 'option' })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(commitPaths(found, { paths: ['../x'], message: 'outside' })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(commitPaths(found, { paths: ['a.txt\nb.txt'], message: 'newline' })).rejects.toMatchObject({ code: 'invalid_input' });
    expect(git(folder, 'log', '--format=%s').trim()).toBe('first');
    expect(git(folder, 'status', '--porcelain').trim()).toBe('M a.txt');
  });

  it('takes names with spaces, a newline-free glob character and a first commit literally', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'workbench-unborn-'));
    cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
    git(folder, 'init', '--quiet', '--initial-branch=main');
    git(folder, 'config', 'user.name', 'Test Person');
    git(folder, 'config', 'user.email', 'person@example.invalid');
    write(folder, { 'a file.txt': 'spaces\n', '*.txt': 'a star\n', 'other.txt': 'not named\n' });
    const found = await opened(folder);
    expect(readHead(found.place)).toEqual({ commit: null, branch: 'main' });
    await commitPaths(found, { paths: ['a file.txt', '*.txt'], message: 'first' });
    expect(git(folder, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n')).toEqual(['*.txt', 'a file.txt']);
    expect(git(folder, 'status', '--porcelain').trim()).toBe('?? other.txt');
  });
});

describe('branches', () => {
  it('makes and switches branches, refusing names git would read as options', async () => {
    const folder = repository();
    const found = await opened(folder);
    await createBranch(found, 'feature/one', { checkout: false });
    expect(git(folder, 'branch', '--show-current').trim()).toBe('main');
    await switchBranch(found, 'feature/one');
    expect(readHead(found.place).branch).toBe('feature/one');
    await createBranch(found, 'two', { checkout: true });
    expect(git(folder, 'branch', '--show-current').trim()).toBe('two');
    await expect(createBranch(found, '-D', { checkout: false })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(createBranch(found, 'has space', { checkout: false })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(createBranch(found, 'two', { checkout: false })).rejects.toThrow(/already exists/);
    await expect(switchBranch(found, 'nowhere')).rejects.toThrow(/no branch named nowhere/);
  });

  it('reads HEAD from loose and packed refs without running git', async () => {
    const folder = repository();
    const found = await opened(folder);
    const commit = git(folder, 'rev-parse', 'HEAD').trim();
    expect(readHead(found.place)).toEqual({ commit, branch: 'main' });
    git(folder, 'pack-refs', '--all');
    expect(existsSync(join(folder, '.git', 'refs', 'heads', 'main'))).toBe(false);
    expect(readHead(found.place)).toEqual({ commit, branch: 'main' });
  });
});

describe("a folder's repository, by the file system's case rules", () => {
  it('finds the repository of the folder written in another case where case is ignored', async () => {
    const folder = repository({ 'a.txt': 'a\n' });
    const found = new Repositories(new GitProgram(), Date.now, () => true);
    const first = await found.of(folder);
    expect(first).not.toBeNull();
    expect(await found.of(folder.toUpperCase())).toBe(first);
  });

  it('asks again for a folder differing in case where case is kept', async () => {
    const folder = repository({ 'a.txt': 'a\n' });
    const found = new Repositories(new GitProgram(), Date.now, () => false);
    const first = await found.of(folder);
    expect(first).not.toBeNull();
    // Here no folder of that name exists, so git refuses it: it is not taken for the first.
    await expect(found.of(folder.toUpperCase())).rejects.toThrow();
  });
});
