/* Real repositories in temporary folders, made with the system's git, for the git tests. */

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Runs the system's git in a folder, as a test sets a repository up (never through a shell). */
export function git(folder: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: folder,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' },
  });
}

/** Writes files (path → text) under a folder, making their folders. */
export function write(folder: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
}

/** Makes a folder a repository on branch `main` with these files in a first commit. */
export function initRepository(folder: string, files: Record<string, string>): void {
  git(folder, 'init', '--quiet', '--initial-branch=main');
  git(folder, 'config', 'user.name', 'Test Person');
  git(folder, 'config', 'user.email', 'person@example.invalid');
  git(folder, 'config', 'commit.gpgsign', 'false');
  write(folder, files);
  git(folder, 'add', '--all');
  git(folder, 'commit', '--quiet', '--message', 'first');
}

/** A new repository on branch `main` with these files committed, and a function that removes it. */
export function makeRepository(files: Record<string, string> = { 'README.md': '# project\n' }): { folder: string; remove: () => void } {
  const folder = mkdtempSync(join(tmpdir(), 'workbench-git-'));
  initRepository(folder, files);
  return { folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}
