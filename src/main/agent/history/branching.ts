/*
 * A branch's line, the places with versions, the version tree, and the heads of every branch of an import.
 */
import type { Branch } from '../../../shared/domain';
import type { BranchPoint, SessionTreeNode } from '../../../shared/branches';
import type { RuntimeEvent } from '../../../shared/events';
import type { SessionHead } from '../ports/session-head';
import { replayHead } from './head-fold';
import type { BranchSummary } from '../ports/stores';

/** The branches whose rows make up `branchId`'s line, oldest first, each with the last seq it contributes. */
export function branchLine(branches: readonly Branch[], branchId: string): Array<{ branchId: string; upTo: number }> {
  const byId = new Map(branches.map((branch) => [branch.id, branch]));
  const line: Array<{ branchId: string; upTo: number }> = [];
  let upTo = Number.MAX_SAFE_INTEGER;
  for (let branch = byId.get(branchId); branch; branch = branch.parentId === null ? undefined : byId.get(branch.parentId)) {
    if (line.length > branches.length) throw new Error('The branches of this session form a loop.');
    line.unshift({ branchId: branch.id, upTo });
    upTo = branch.forkSeq;
  }
  return line;
}

/** Which branch of a line wrote the row `seq`: a new branch forking there hangs off that one. */
export function ownerOf(line: ReadonlyArray<{ branchId: string; upTo: number }>, seq: number): string {
  for (const element of line) if (seq <= element.upTo) return element.branchId;
  const last = line.at(-1);
  if (!last) throw new Error('An empty line has no rows.');
  return last.branchId;
}

/** Every branch under `rootId` (itself included), for picking the one last looked at. */
function subtree(branches: readonly Branch[], rootId: string, after: number): Branch[] {
  const out: Branch[] = [];
  const root = branches.find((branch) => branch.id === rootId);
  if (!root) return out;
  out.push(root);
  const walk = (parentId: string, minFork: number): void => {
    for (const child of branches) {
      if (child.parentId !== parentId || child.forkSeq <= minFork) continue;
      out.push(child);
      walk(child.id, -2);
    }
  };
  walk(rootId, after);
  return out;
}

const newestLooked = (candidates: readonly Branch[]): Branch | undefined =>
  candidates.reduce<Branch | undefined>((best, branch) => (!best || branch.activeAt > best.activeAt ? branch : best), undefined);

/**
 * The places on the active line where other versions exist: at each, the versions in the order
 * they were made (the original first), which one is shown, and for each the branch to open to
 * show it again as it was last seen.
 */
export function branchPoints(branches: readonly Branch[], activeBranchId: string, lastOwnSeq: ReadonlyMap<string, number>): BranchPoint[] {
  const line = branchLine(branches, activeBranchId);
  const points: BranchPoint[] = [];
  for (let index = 0; index < line.length; index += 1) {
    const element = line[index];
    if (!element) continue;
    const from = index === 0 ? -2 : (line[index - 1]?.upTo ?? -2);
    const forks = new Map<number, Branch[]>();
    for (const branch of branches) {
      if (branch.parentId !== element.branchId || branch.forkSeq > element.upTo || branch.forkSeq < from) continue;
      forks.set(branch.forkSeq, [...(forks.get(branch.forkSeq) ?? []), branch]);
    }
    for (const [forkSeq, children] of [...forks.entries()].sort((a, b) => a[0] - b[0])) {
      const ordered = [...children].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
      const hasOriginal = (lastOwnSeq.get(element.branchId) ?? -1) > forkSeq;
      const activeChild = ordered.find((branch) => line.some((item) => item.branchId === branch.id));
      const versions = [
        ...(hasOriginal
          ? [
              {
                branchId: newestLooked(subtree(branches, element.branchId, forkSeq))?.id ?? element.branchId,
                reason: 'original' as const,
                createdAt: 0,
                shown: activeChild === undefined,
              },
            ]
          : []),
        ...ordered.map((branch) => ({
          branchId: newestLooked(subtree(branches, branch.id, -2))?.id ?? branch.id,
          reason: branch.reason,
          createdAt: branch.createdAt,
          shown: activeChild?.id === branch.id,
        })),
      ];
      if (versions.length < 2) continue;
      points.push({ forkSeq, versions });
    }
  }
  return points;
}

/** The session's tree of branches, with a line of text for each so the person can tell them apart. */
export function sessionTree(
  branches: readonly Branch[],
  activeBranchId: string,
  summaries: ReadonlyMap<string, BranchSummary>,
): SessionTreeNode | null {
  const root = branches.find((branch) => branch.parentId === null);
  if (!root) return null;
  const build = (branch: Branch): SessionTreeNode => {
    const summary = summaries.get(branch.id);
    const text = summary?.title ?? '';
    return {
      branch,
      active: branch.id === activeBranchId,
      title: text.length > 120 ? `${text.slice(0, 119)}…` : text,
      messages: summary?.messages ?? 0,
      checkpoints: summary?.checkpoints ?? 0,
      children: branches
        .filter((child) => child.parentId === branch.id)
        .sort((a, b) => a.forkSeq - b.forkSeq || a.createdAt - b.createdAt)
        .map(build),
    };
  };
  return build(root);
}

/** The heads of every branch of a session from its rows, each its line's replay (an import computes them so). */
export function headsOfBranches(
  branches: readonly Branch[],
  rows: ReadonlyArray<{ readonly seq: number; readonly branchId: string; readonly event: RuntimeEvent }>,
): Map<string, SessionHead> {
  const heads = new Map<string, SessionHead>();
  for (const branch of branches) {
    let lower = -1;
    const line: Array<{ seq: number; event: RuntimeEvent }> = [];
    for (const { branchId, upTo } of branchLine(branches, branch.id)) {
      for (const entry of rows) if (entry.branchId === branchId && entry.seq > lower && entry.seq <= upTo) line.push(entry);
      lower = upTo;
    }
    line.sort((first, second) => first.seq - second.seq);
    heads.set(branch.id, replayHead(line));
  }
  return heads;
}
