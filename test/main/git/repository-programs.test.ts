import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../../src/shared/events';
import { readRepositoryPrograms, settingVerbs } from '../../../src/main/git/repository-programs';
import { BashParser } from '../../../src/main/shell/bash-parser';
import { runCommandTool } from '../../../src/main/tools/run-command';
import { assessCommand, commandPlace, type CommandPlace } from '../../../src/main/shell/command-risk';
import { answer, useScriptedCore, type ScriptedCore } from '../scripted-core';
import { toolCall } from '../agent/harness';
import { textTurn } from '../../scripted-model-server';
import { git, initRepository, write } from './git-fixtures';

const shell = await BashParser.load();

describe('git commands judged by the programs the repository names', () => {
  let root: string;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const place = (workspace: string, sandbox: CommandPlace['sandbox'] = 'bubblewrap'): CommandPlace => ({
    ...commandPlace(workspace, sandbox),
    repositoryPrograms: (folder) => readRepositoryPrograms(folder, 'git', env),
  });
  const judge = (command: string, workspace: string, sandbox: CommandPlace['sandbox'] = 'bubblewrap') =>
    assessCommand(shell, command, place(workspace, sandbox));
  const repository = (name: string, files: Record<string, string> = { 'README.md': '# x\n' }): string => {
    const folder = join(root, name);
    mkdirSync(folder, { recursive: true });
    initRepository(folder, files);
    return folder;
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'workbench-programs-'));
    // The person's own configuration, in a home of the test's: a pager and a hooks-free setup of theirs.
    home = join(root, 'home');
    mkdirSync(home);
    env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), GIT_CONFIG_NOSYSTEM: '1' };
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a repository that names an fsmonitor makes git status a high-risk write, destructive without a sandbox', () => {
    const plain = repository('plain');
    expect(judge('git status', plain).level).toBe('read_only');
    const armed = repository('armed');
    git(armed, 'config', 'core.fsmonitor', 'touch ran-by-fsmonitor');
    const judged = judge('git status', armed);
    expect(judged.level).toBe('write_high');
    expect(judged.reasons.join('; ')).toContain("core.fsmonitor in the repository's configuration");
    expect(judge('git status', armed, null).level).toBe('destructive');
    // The builtin daemon (a boolean) is git's own, not a program of the repository's.
    git(armed, 'config', 'core.fsmonitor', 'false');
    expect(judge('git status', armed).level).toBe('read_only');
  });

  it('in a folder the person has not trusted, a program the repository names is destructive even in the sandbox', () => {
    const armed = repository('armed-untrusted');
    git(armed, 'config', 'core.pager', 'sh ./pager.sh');
    const judged = assessCommand(shell, 'git log', { ...place(armed), untrusted: true });
    expect(judged.level).toBe('destructive');
    expect(judged.reasons.join('; ')).toMatch(/core\.pager in the repository's configuration.*in a folder you have not trusted/);
    // What names nothing stays as it was: trust is about what the folder brings, not about git itself.
    expect(assessCommand(shell, 'git status', { ...place(repository('plain-untrusted')), untrusted: true }).level).toBe('read_only');
  });

  it('run_command asks whether the folder is trusted, and judges what its repository names by that', () => {
    const armed = repository('armed-tool');
    git(armed, 'config', 'core.pager', 'sh ./pager.sh');
    let trusted = false;
    const tool = runCommandTool({
      shell,
      // What the tool is told of the sandbox; nothing runs here.
      sandbox: { available: true, kind: 'bubblewrap', path: '/usr/bin/bwrap' },
      repositoryPrograms: (folder) => readRepositoryPrograms(folder, 'git', env),
      restricted: (workspace) => workspace === armed && !trusted,
    });
    const judged = tool.assess({ command: 'git log' }, { workspacePath: armed });
    expect(judged.level).toBe('destructive');
    expect(judged.reason).toMatch(/in a folder you have not trusted/);
    trusted = true;
    expect(tool.assess({ command: 'git log' }, { workspacePath: armed }).level).toBe('write_high');
  });

  it("the person's own settings (global) are theirs and do not count; an include of the repository's does", () => {
    const folder = repository('global-pager');
    writeFileSync(join(home, '.gitconfig'), '[core]\n\tpager = less -FRX\n[diff "img"]\n\ttextconv = exiftool\n');
    expect(judge('git log', folder).level).toBe('read_only');
    writeFileSync(join(folder, 'more.config'), '[core]\n\tpager = sh -c "touch pwned"\n');
    git(folder, 'config', 'include.path', '../more.config');
    const judged = judge('git log --oneline', folder);
    expect(judged.level).toBe('write_high');
    expect(judged.reasons.join('; ')).toContain('core.pager');
    rmSync(join(home, '.gitconfig'));
  });

  it('a pager, a textconv or an external diff reach only the commands that use them', () => {
    const folder = repository('diffs');
    git(folder, 'config', 'diff.external', './diff.sh');
    git(folder, 'config', 'pager.blame', 'sh ./pager.sh');
    expect(judge('git diff', folder).level).toBe('write_high');
    expect(judge('git log -p', folder).level).toBe('write_high');
    expect(judge('git blame README.md', folder).level).toBe('write_high');
    expect(judge('git status', folder).level).toBe('read_only');
    expect(judge('git rev-parse HEAD', folder).level).toBe('read_only');
  });

  it('hooks count where they can run: executable, not a sample, for the commands that start them', () => {
    const folder = repository('hooks');
    const hook = join(folder, '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, '#!/bin/sh\ntouch ran-by-hook\n');
    // Not executable: git skips it, so does the judge.
    expect(judge('git commit -m "x"', folder).level).toBe('write_low');
    chmodSync(hook, 0o755);
    const judged = judge('git commit -m "x"', folder);
    expect(judged.level).toBe('write_high');
    expect(judged.reasons.join('; ')).toContain('pre-commit');
    expect(judge('git status', folder).level).toBe('read_only');
    // A hook that follows every index write reaches a status too (it refreshes the index).
    writeFileSync(join(folder, '.git', 'hooks', 'post-index-change'), '#!/bin/sh\n');
    chmodSync(join(folder, '.git', 'hooks', 'post-index-change'), 0o755);
    expect(judge('git status', folder).level).toBe('write_high');
  });

  it("a hooks folder the repository's configuration names (as husky does) counts, a global one does not", () => {
    const folder = repository('husky');
    write(folder, { '.husky/pre-push': '#!/bin/sh\nnpm test\n' });
    chmodSync(join(folder, '.husky', 'pre-push'), 0o755);
    expect(judge('git push origin main', folder).reasons.join('; ')).not.toContain('pre-push');
    git(folder, 'config', 'core.hooksPath', '.husky');
    expect(judge('git push origin main', folder).reasons.join('; ')).toContain('pre-push');
    git(folder, 'config', '--unset', 'core.hooksPath');
    // The person's global hooks folder replaces the repository's: the hooks in .git/hooks then never run.
    writeFileSync(join(folder, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n');
    chmodSync(join(folder, '.git', 'hooks', 'pre-commit'), 0o755);
    writeFileSync(join(home, '.gitconfig'), `[core]\n\thooksPath = ${join(home, 'hooks')}\n`);
    expect(judge('git commit -m x', folder).level).toBe('write_low');
    rmSync(join(home, '.gitconfig'));
    expect(judge('git commit -m x', folder).level).toBe('write_high');
  });

  it('follows the folder the command works in: cd, -C, a nested or a bare repository; unknown folders are not trusted', () => {
    const outer = repository('outer');
    const nested = join(outer, 'vendor', 'lib');
    mkdirSync(nested, { recursive: true });
    initRepository(nested, { 'lib.c': 'int x;\n' });
    git(nested, 'config', 'core.pager', 'sh -c "touch pwned"');
    expect(judge('git log', outer).level).toBe('read_only');
    expect(judge('cd vendor/lib && git log', outer).level).toBe('write_high');
    expect(judge('git -C vendor/lib log', outer).level).toBe('write_high');
    expect(judge('git -C "$DIR" log', outer).reasons.join('; ')).toContain('only known when it runs');
    // A bare repository inside the workspace is found as git finds it.
    const bare = join(outer, 'evil.git');
    git(outer, 'init', '--quiet', '--bare', bare);
    git(bare, 'config', 'core.pager', 'sh -c "touch pwned"');
    expect(judge('cd evil.git && git log', outer).level).toBe('write_high');
  });

  it("a submodule's own configuration and hooks count for the commands that reach into it", () => {
    const library = repository('library');
    const top = repository('superproject');
    git(top, '-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'add', library, 'lib');
    git(top, 'commit', '--quiet', '-m', 'add lib');
    expect(judge('git status', top).level).toBe('read_only');
    git(join(top, 'lib'), 'config', 'core.fsmonitor', 'touch ran-in-submodule');
    const judged = judge('git status', top);
    expect(judged.level).toBe('write_high');
    expect(judged.reasons.join('; ')).toContain('the submodule at');
    // A log reads the superproject alone.
    expect(judge('git log', top).level).toBe('read_only');
  });

  it('an alias that starts a shell counts for its own name only', () => {
    const folder = repository('aliases');
    git(folder, 'config', 'alias.st', '!touch ran-by-alias');
    git(folder, 'config', 'alias.co', 'checkout');
    expect(judge('git st', folder).reasons.join('; ')).toContain('alias.st');
    expect(judge('git co main', folder).reasons.join('; ')).not.toContain('alias');
    expect(judge('git status', folder).level).toBe('read_only');
    // A plain alias runs what its command runs: a commit hook reaches `git c` too.
    git(folder, 'config', 'alias.c', 'commit');
    writeFileSync(join(folder, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n');
    chmodSync(join(folder, '.git', 'hooks', 'pre-commit'), 0o755);
    expect(judge('git c -m x', folder).reasons.join('; ')).toContain('pre-commit');
  });

  it('a hook that only tidies after a commit does not reach a status; places chained or not there yet are unknown', () => {
    const folder = repository('tidy');
    writeFileSync(join(folder, '.git', 'hooks', 'pre-auto-gc'), '#!/bin/sh\n');
    chmodSync(join(folder, '.git', 'hooks', 'pre-auto-gc'), 0o755);
    expect(judge('git status', folder).level).toBe('read_only');
    expect(judge('git commit -m x', folder).reasons.join('; ')).toContain('pre-auto-gc');
    expect(judge('git -C . -C . status', folder).reasons.join('; ')).toContain('only known when it runs');
    expect(judge('git -C not-made-yet status', folder).reasons.join('; ')).toContain('only known when it runs');
  });

  it("a relative hooks folder in the person's global configuration is each repository's own folder", () => {
    const folder = repository('relative-hooks');
    write(folder, { '.githooks/pre-commit': '#!/bin/sh\n' });
    chmodSync(join(folder, '.githooks', 'pre-commit'), 0o755);
    writeFileSync(join(home, '.gitconfig'), '[core]\n\thooksPath = .githooks\n');
    expect(judge('git commit -m x', folder).reasons.join('; ')).toContain('pre-commit');
    rmSync(join(home, '.gitconfig'));
  });

  it('knows which settings name programs, and which commands start them', () => {
    expect(settingVerbs('url.ext::sh -c touch% x.insteadOf', 'https://example.com/repo')).toContain('fetch');
    expect(settingVerbs('url.https://mirror.example/.insteadOf', 'https://example.com/')).toBeNull();
    expect(settingVerbs('gpg.ssh.defaultKeyCommand', 'sh ./key.sh')).toContain('commit');
    expect(settingVerbs('mergetool.mine.path', './tool')).toEqual(['mergetool']);
    expect(settingVerbs('diff.img.textconv', 'exiftool')).toContain('cat-file');
    expect(settingVerbs('core.fsmonitor', 'true')).toBeNull();
    expect(settingVerbs('remote.origin.url', 'ext::sh -c evil')).toContain('fetch');
    expect(settingVerbs('remote.origin.url', 'https://example.com/repo.git')).toBeNull();
    expect(settingVerbs('user.name', 'Someone')).toBeNull();
  });

  it('a folder in no repository, or git missing, names nothing', () => {
    const loose = join(root, 'loose');
    mkdirSync(loose);
    expect(readRepositoryPrograms(loose, 'git', { ...env, GIT_CEILING_DIRECTORIES: root })).toEqual([]);
    expect(readRepositoryPrograms(loose, join(root, 'no-git-here'), env)).toEqual([]);
  });
});

describe('run_command in a repository whose configuration names an fsmonitor', () => {
  let scripted: ScriptedCore;
  useScriptedCore(
    {
      builtinTools: true,
      dataDir: (folder) => join(folder, '.data'),
      session: 'workspace',
      prepare: (folder) => {
        initRepository(folder, { 'README.md': '# x\n' });
        git(folder, 'config', 'core.fsmonitor', 'touch ran-by-fsmonitor #');
      },
    },
    (started) => (scripted = started),
  );

  it('asks before a git status at L2, and nothing runs until the person answers', async () => {
    const { transport, server, sessionId, core, folder } = scripted;
    await answer(transport, 'session:setAutonomy', { sessionId, autonomy: 'L2' });
    server.enqueue({ steps: [toolCall('run_command', { command: 'git status' }, 'g1')] }, textTurn('Looked.'));
    await answer(transport, 'run:send', { sessionId, text: 'What changed?' });
    let approval: Extract<JournalEntry['event'], { type: 'approval_requested' }> | undefined;
    for (let tries = 0; !approval && tries < 2000; tries += 1) {
      const opened = await answer<{ entries: JournalEntry[] }>(transport, 'session:open', { sessionId });
      approval = opened.entries
        .map((entry) => entry.event)
        .find((event): event is Extract<JournalEntry['event'], { type: 'approval_requested' }> => event.type === 'approval_requested');
      if (!approval) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(approval?.risk).toBe('write_high');
    expect(approval?.reason).toContain('core.fsmonitor');
    expect(existsSync(join(folder.path, 'ran-by-fsmonitor'))).toBe(false);
    await answer(transport, 'approval:answer', { approvalId: approval?.approvalId, decision: 'deny' });
    await core.runtime?.whenIdle(sessionId);
    expect(existsSync(join(folder.path, 'ran-by-fsmonitor'))).toBe(false);
  });
});
