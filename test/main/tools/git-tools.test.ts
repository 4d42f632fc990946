import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Tool, ToolContext } from '../../../src/main/agent/ports/tools';
import { GitProgram } from '../../../src/main/git/git-program';
import { Repositories } from '../../../src/main/git/repositories';
import { gitTools } from '../../../src/main/tools/git-tools';
import type { NamingPlatform } from '../../../src/main/workspace/path-text';
import { git, makeRepository, write } from '../git/git-fixtures';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function setUp(files?: Record<string, string>, agentChanges: readonly string[] = [], platform: NamingPlatform = 'posix') {
  const made = makeRepository(files);
  cleanups.push(made.remove);
  const tools = gitTools({ repositories: new Repositories(new GitProgram()), agentChanges: async () => agentChanges, platform });
  const tool = (name: string): Tool => {
    const found = tools.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no tool ${name}`);
    return found;
  };
  const context: ToolContext = {
    signal: new AbortController().signal,
    sessionId: 'session',
    toolCallId: 'call',
    workspacePath: made.folder,
    emitOutput: () => undefined,
  };
  const call = async (name: string, raw: unknown) => {
    const parsed = tool(name).parse(raw);
    if (!parsed.ok) throw new Error(parsed.message);
    return tool(name).execute(parsed.input, context);
  };
  return { folder: made.folder, tool, call, context };
}

describe('the git tools', () => {
  it('reads status, diff, log and show of the workspace', async () => {
    const { folder, call } = setUp({ 'src/a.ts': 'export const a = 1;\n' });
    write(folder, { 'src/a.ts': 'export const a = 2;\n', 'notes.md': 'new\n' });
    const status = await call('git_status', {});
    expect(status.output).toContain('On branch main');
    expect(status.output).toContain('not staged: modified  src/a.ts');
    expect(status.output).toContain('untracked  notes.md');
    expect((await call('git_diff', {})).output).toContain('+export const a = 2;');
    expect((await call('git_diff', { staged: true })).output).toBe('No differences.');
    expect((await call('git_diff', { revision: 'HEAD', paths: ['src/a.ts'], stat: true })).output).toContain('src/a.ts');
    expect((await call('git_log', {})).output).toMatch(/^[0-9a-f]{7,} 2026-01-01 Test Person: first/);
    expect((await call('git_show', { revision: 'HEAD', path: 'src/a.ts' })).output).toBe('export const a = 1;\n');
    expect((await call('git_show', { revision: 'HEAD' })).output).toContain('first');
  });

  it('takes a path inside the workspace written absolute, and on Windows with backslashes', async () => {
    const { folder, call } = setUp({ 'src/a.ts': 'export const a = 1;\n' });
    write(folder, { 'src/a.ts': 'export const a = 2;\n' });
    expect((await call('git_diff', { paths: [join(folder, 'src', 'a.ts')] })).output).toContain('+export const a = 2;');
    expect((await call('git_show', { revision: 'HEAD', path: `${folder}/src/a.ts` })).output).toBe('export const a = 1;\n');
    await expect(call('git_diff', { paths: ['/etc/passwd'] })).rejects.toMatchObject({ code: 'invalid_input' });

    const windows = setUp({ 'src/a.ts': 'export const a = 1;\n' }, [], 'win32');
    write(windows.folder, { 'src/a.ts': 'export const a = 3;\n' });
    expect((await windows.call('git_diff', { paths: ['src\\a.ts'] })).output).toContain('+export const a = 3;');
    expect((await windows.call('git_log', { paths: ['.\\src\\a.ts'] })).output).toContain('first');
  });

  it('refuses a revision or path git would read as an option, before git runs', async () => {
    const { call, folder } = setUp();
    const written = join(folder, 'written-by-option');
    await expect(call('git_diff', { revision: `--output=${written}` })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(call('git_log', { paths: ['-p'] })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(call('git_show', { revision: 'HEAD', path: '../outside' })).rejects.toMatchObject({ code: 'invalid_input' });
    expect(existsSync(written)).toBe(false);
  });

  it("commits the session's changes when no paths are named, and only those", async () => {
    const { folder, call } = setUp({ 'a.txt': 'a\n', 'b.txt': 'b\n' }, ['a.txt']);
    write(folder, { 'a.txt': 'agent\n', 'b.txt': 'person\n' });
    const result = await call('git_commit', { message: 'Agent: a' });
    expect(result.output).toMatch(/^Committed [0-9a-f]{12} on main: Agent: a/);
    expect(git(folder, 'status', '--porcelain').trim()).toBe('M b.txt');
  });

  it('asks before a commit or a checkout below L3, and a branch alone is a low write', async () => {
    const { tool, folder } = setUp();
    const context = { workspacePath: folder };
    expect(tool('git_status').assess({}, context).level).toBe('read_only');
    expect(tool('git_commit').assess({ message: 'x' }, context)).toMatchObject({
      level: 'write_high',
      reason: expect.stringContaining('hooks'),
    });
    expect(tool('git_branch').assess({ name: 'x', checkout: false }, context).level).toBe('write_low');
    expect(tool('git_branch').assess({ name: 'x', checkout: true }, context).level).toBe('write_high');
    expect(tool('git_switch').assess({ branch: 'x' }, context).level).toBe('write_high');
  });

  it('makes and switches branches', async () => {
    const { folder, call } = setUp();
    expect((await call('git_branch', { name: 'topic', checkout: true })).output).toBe('Made branch topic and checked it out.');
    expect(git(folder, 'branch', '--show-current').trim()).toBe('topic');
    await call('git_switch', { branch: 'main' });
    expect(git(folder, 'branch', '--show-current').trim()).toBe('main');
  });

  it('says the workspace is not a repository', async () => {
    const { call, folder } = setUp();
    const { rmSync } = await import('node:fs');
    rmSync(join(folder, '.git'), { recursive: true, force: true });
    await expect(call('git_status', {})).rejects.toThrow(/not in a git repository/);
  });
});
