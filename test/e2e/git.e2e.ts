import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { toolCall } from '../main/agent/harness';
import { git, initRepository, write } from '../main/git/git-fixtures';
import { textTurn } from '../scripted-model-server';
import { temporaryFolder } from '../helpers';
import { useWorkbenches } from './fixture';

describe('git in the window', () => {
  const open = useWorkbenches();

  it("shows the branch in the header, and commits the agent's changes from Changes with a drafted message", async () => {
    const workbench = await open({ builtinTools: true });
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-git-');
    const workspace = folder.path;
    initRepository(workspace, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const created = await host.invoke('session:create', { title: 'Git', workspacePath: workspace });
    if (!created.ok) throw new Error(created.error.message);
    const sessionId = (created.value as { id: string }).id;
    await host.invoke('session:setAutonomy', { sessionId, autonomy: 'L3' });
    await page.reload();

    const badge = page.getByRole('button', { name: /^Git: / });
    await expectPage(badge).toContainText('⎇ main');
    await expectPage(badge).toContainText('clean');

    server.enqueue({ steps: [toolCall('write_file', { path: 'a.txt', content: 'a by the agent\n' }, 'w1')] }, textTurn('Changed a.'));
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Change a');
    await box.press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Changed a.');
    // The person's own edit, made outside the app: the header sees it too.
    write(workspace, { 'b.txt': 'b by the person\n' });
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await expectPage(badge).toContainText('2 changed');

    await page.getByRole('tab', { name: 'Changes' }).click();
    server.enqueue(textTurn('Give a.txt the agent’s text'));
    await page.getByRole('button', { name: 'Commit…' }).click();
    const dialog = page.getByRole('dialog', { name: "Commit the agent's changes" });
    await expectPage(dialog.getByRole('textbox', { name: 'Commit message' })).toHaveValue('Give a.txt the agent’s text');
    await expectPage(dialog.getByRole('list', { name: 'Files to commit' })).toHaveText('a.txt');
    await dialog.getByRole('textbox', { name: 'Commit message' }).fill('Give a.txt the agent’s text\n\nReviewed in Changes.');
    await dialog.getByRole('button', { name: 'Commit', exact: true }).click();
    await expectPage(page.getByRole('status').filter({ hasText: /^Committed [0-9a-f]{7} on main: Give a\.txt/ })).toBeVisible();

    expect(git(workspace, 'log', '--format=%B', '-1').trim()).toBe('Give a.txt the agent’s text\n\nReviewed in Changes.');
    expect(git(workspace, 'status', '--porcelain').trimEnd()).toBe(' M b.txt');
    await expectPage(badge).toContainText('1 changed');

    await page.getByRole('tab', { name: 'History' }).click();
    await expectPage(page.getByLabel(/^Commit [0-9a-f]{7}$/)).toContainText('on main: Give a.txt the agent’s text');
    folder.remove();
  });

  it('starts a session in a worktree of its own, brings its work back, and deletes it with its worktree', async () => {
    const workbench = await open({ builtinTools: true });
    const { page, server, host } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-git-');
    const workspace = folder.path;
    initRepository(workspace, { 'notes.txt': 'notes\n' });
    const created = await host.invoke('session:create', { title: 'Main', workspacePath: workspace });
    if (!created.ok) throw new Error(created.error.message);
    await page.reload();

    const badge = page.getByRole('button', { name: /^Git: / });
    await badge.click();
    await page.getByRole('dialog', { name: 'Git' }).getByRole('button', { name: 'New session in a worktree' }).click();
    await expectPage(badge).toContainText('⎇ workbench/session-');
    await expectPage(badge).toContainText('worktree');
    const workspaceText = await page.getByLabel('Workspace').locator('code.path').textContent();
    expect(workspaceText).not.toBe(workspace);
    const listed = await host.invoke('session:list', {});
    const sessions = listed.ok ? (listed.value as Array<{ id: string; workspacePath: string | null }>) : [];
    const inWorktree = sessions.find((session) => session.workspacePath !== workspace);
    if (!inWorktree?.workspacePath) throw new Error('no worktree session');
    await host.invoke('session:setAutonomy', { sessionId: inWorktree.id, autonomy: 'L3' });

    server.enqueue(
      { steps: [toolCall('write_file', { path: 'notes.txt', content: 'notes from the worktree\n' }, 'w1')] },
      textTurn('Noted.'),
    );
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Add to the notes');
    await box.press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Noted.');
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('notes\n');

    await badge.click();
    const dialog = page.getByRole('region', { name: "Bring back the session's work" });
    await expectPage(dialog.getByRole('list', { name: 'Files to bring back' })).toContainText(
      'notes.txt (modify) comes back as the session left it',
    );
    await dialog.getByRole('button', { name: 'Bring back', exact: true }).click();
    await expectPage(dialog.getByRole('status')).toHaveText('Brought back: 1 written.');
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('notes from the worktree\n');
    await page.keyboard.press('Escape');

    const title = (await page.locator('.session-heading').textContent()) ?? '';
    await page.getByRole('button', { name: `Delete ${title}` }).click();
    const choice = page.getByRole('group', { name: `Delete ${title}` });
    await expectPage(choice).toContainText('Its work is in your folder already.');
    await choice.getByRole('button', { name: 'Delete with its worktree' }).click();
    await expect.poll(() => existsSync(inWorktree.workspacePath ?? '')).toBe(false);
    expect(git(workspace, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    folder.remove();
  });
});
