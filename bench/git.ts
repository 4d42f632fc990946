import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GitProgram } from '../src/main/git/git-program';
import { Repositories } from '../src/main/git/repositories';
import { Worktrees } from '../src/main/git/worktrees';
import { temporaryFolder } from '../test/helpers';

/*
 * Git in the app, on a repository of 10,000 files with 100 changed (60 modified, 40 new). Figures, each beside a
 * baseline of the same run:
 * - the session header's refresh (`Repositories.view`: branch, upstream, counts) against `git status --porcelain=v2
 *   --branch` alone, run as a program the same way (target: ratio at most 1.2), medians over alternating runs;
 * - the commit a checkpoint records (`headOf`, read from the git folder's files), p99, against nothing: it is on every
 *   step, so it must stay far under a millisecond;
 * - making a session's worktree (`Worktrees.create`: the checks, the branch and the checkout) against `git worktree
 *   add` alone, medians.
 */

const files = 10_000;
const modified = 60;
const added = 40;
const refreshes = 40;
const worktreeRuns = 4;

const run = promisify(execFile);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** A repository of `files` small files in nested folders, committed, with some changed and some new. */
function makeRepository(folder: string): void {
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: folder, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'user.name', 'Bench');
  git('config', 'user.email', 'bench@example.invalid');
  for (let index = 0; index < files; index += 1) {
    const dir = join(folder, `pkg${index % 20}`, `mod${Math.floor(index / 20) % 25}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `file${index}.ts`), `export const value${index} = ${index};\n`);
  }
  git('add', '--all');
  git('commit', '--quiet', '--message', 'ten thousand files');
  for (let index = 0; index < modified; index += 1) {
    const dir = join(folder, `pkg${index % 20}`, `mod${Math.floor(index / 20) % 25}`);
    writeFileSync(join(dir, `file${index}.ts`), `export const value${index} = ${index + 1};\n`);
  }
  for (let index = 0; index < added; index += 1) writeFileSync(join(folder, `pkg0`, `new${index}.ts`), `export const fresh = ${index};\n`);
  // The index is brought up to date once, as the person's own git would have.
  git('status', '--porcelain');
}

export async function runGitBench(): Promise<void> {
  const folder = temporaryFolder('workbench-bench-git-');
  const worktreesFolder = temporaryFolder('workbench-bench-worktrees-');
  try {
    const repository = join(folder.path, 'repository');
    mkdirSync(repository);
    const building = performance.now();
    makeRepository(repository);
    console.log(`repository: ${files} files, ${modified} modified, ${added} new (${Math.round(performance.now() - building)} ms to make)`);

    const git = new GitProgram();
    const repositories = new Repositories(git);
    const first = await repositories.view(repository);
    if (first.kind !== 'repository' || first.changed !== modified + added) throw new Error(`unexpected view: ${JSON.stringify(first)}`);

    const baseline: number[] = [];
    const app: number[] = [];
    for (let index = 0; index < refreshes; index += 1) {
      baseline.push(
        await timed(() => run('git', ['status', '--porcelain=v2', '--branch'], { cwd: repository, maxBuffer: 64 * 1024 * 1024 })),
      );
      app.push(await timed(() => repositories.view(repository)));
    }
    const refreshRatio = median(app) / median(baseline);
    console.log(
      `header refresh: app ${median(app).toFixed(1)} ms median (p90 ${percentile(app, 90).toFixed(1)}), git status alone ${median(baseline).toFixed(1)} ms (p90 ${percentile(baseline, 90).toFixed(1)}): ratio ${refreshRatio.toFixed(2)} (target at most 1.2)`,
    );

    const heads: number[] = [];
    for (let index = 0; index < 2_000; index += 1) {
      const started = performance.now();
      repositories.headOf(repository);
      heads.push(performance.now() - started);
    }
    const headP99Us = percentile(heads, 99) * 1000;
    console.log(`commit recorded per checkpoint (headOf): p99 ${headP99Us.toFixed(0)} µs, median ${(median(heads) * 1000).toFixed(0)} µs`);

    const worktrees = new Worktrees(git, worktreesFolder.path);
    const made: number[] = [];
    const plain: number[] = [];
    for (let index = 0; index < worktreeRuns; index += 1) {
      let created: Awaited<ReturnType<Worktrees['create']>> | null = null;
      made.push(
        await timed(async () => {
          created = await worktrees.create(repository, `bench/session-${index}`);
        }),
      );
      if (created) await worktrees.remove((created as Awaited<ReturnType<Worktrees['create']>>).worktree, true);
      const target = join(worktreesFolder.path, `plain-${index}`);
      plain.push(
        await timed(() => run('git', ['worktree', 'add', '--quiet', '-b', `bench/plain-${index}`, target, 'HEAD'], { cwd: repository })),
      );
      await run('git', ['worktree', 'remove', '--force', target], { cwd: repository });
    }
    const worktreeRatio = median(made) / median(plain);
    console.log(
      `session worktree: ${median(made).toFixed(0)} ms median to make, git worktree add alone ${median(plain).toFixed(0)} ms: ratio ${worktreeRatio.toFixed(2)}`,
    );
    console.log(
      JSON.stringify({
        bench: 'git',
        files,
        changed: modified + added,
        refreshMs: median(app),
        statusMs: median(baseline),
        refreshRatio,
        headP99Us,
        worktreeMs: median(made),
        worktreeAddMs: median(plain),
        worktreeRatio,
      }),
    );
  } finally {
    folder.remove();
    worktreesFolder.remove();
  }
}
