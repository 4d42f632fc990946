/*
 * Where the paths a command line writes land, each possible value in each possible folder, within a budget of lookups
 * per line.
 */

import { isAbsolute, resolve } from 'node:path';
import type { RiskLevel } from '../../shared/domain';
import type { Arg, Finding } from './command-args';
import type { CommandPlace, TargetJudge } from './command-targets';
import { clip } from './script-io';
import { maxValues, type ShellState } from './shell-state';

/** How many paths one line may write before it counts as destructive rather than each being looked up. */
const maxJudgedPaths = 2_048;

/**
 * Where the paths a line writes land, each of its possible values in each possible folder. Every lookup can
 * touch the disk (links are followed), so one line gets a budget of them.
 */
export class TargetLookup {
  private judgedPaths = 0;

  constructor(
    private readonly judge: TargetJudge,
    private readonly place: CommandPlace,
  ) {}

  /** What writing to a path means, by where each of its possible values lands; `from`: read relative to that path's folder. */
  findings(arg: Arg, verb: string, state: ShellState, from?: Arg): Finding[] {
    const unknownLevel: RiskLevel = this.place.sandbox ? 'write_high' : 'destructive';
    const unknownWhere = this.place.sandbox ? '' : ' (no sandbox keeps it in the workspace)';
    if (arg.value.kind === 'computed')
      return [{ level: unknownLevel, reason: `${verb} ${clip(arg.source)}, a path only known when it runs${unknownWhere}` }];
    const folders = from ? linkFolders(from, state) : state.cwd;
    const lookups = arg.value.values.length * (folders?.length ?? 1);
    if (lookups > maxValues)
      return [{ level: unknownLevel, reason: `${verb} ${clip(arg.source)}: too many possible paths to judge each${unknownWhere}` }];
    this.judgedPaths += lookups;
    if (this.judgedPaths > maxJudgedPaths)
      return [{ level: 'destructive', reason: `writes more than ${maxJudgedPaths} paths, too many to judge` }];
    const findings: Finding[] = [];
    for (const value of arg.value.values) {
      const bases = isAbsolute(value.text) ? ['/'] : folders;
      if (bases === null) {
        findings.push({ level: unknownLevel, reason: `${verb} ${clip(arg.source)} in a folder only known when it runs` });
        continue;
      }
      for (const cwd of bases) {
        const where = this.judge.judge(value, cwd);
        if (where.kind === 'outside')
          findings.push({ level: 'destructive', reason: `${verb} ${clip(where.detail)}, outside the workspace` });
        else if (where.kind === 'protected')
          findings.push({ level: 'destructive', reason: `${verb} ${clip(arg.source)}: ${where.detail}` });
      }
    }
    return findings;
  }
}

/** The folders a relative link target is read from: the link's own folder, or the link path when it is a folder. */
function linkFolders(link: Arg, state: ShellState): string[] | null {
  if (link.value.kind === 'computed' || state.cwd === null) return null;
  const folders: string[] = [];
  for (const value of link.value.values)
    for (const cwd of state.cwd) {
      const path = resolve(cwd, value.text);
      folders.push(path, resolve(path, '..'));
    }
  return [...new Set(folders)];
}
