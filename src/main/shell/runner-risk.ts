/*
 * The risk of a command that another program runs (`timeout 5 rm -r x`, `xargs grep`, `find -exec`), judged as that
 * command.
 */

import { maxRisk, type RiskLevel } from '../../shared/domain';
import type { Arg, Finding } from './command-args';
import { runnerCommandStart } from './program-sets';
import { programOf, programRisk, type ProgramSite } from './program-risk';
import { clip } from './script-io';

export interface CommandRisk {
  readonly level: RiskLevel;
  readonly reasons: readonly string[];
}

/** The highest level among the findings, with every distinct reason for it. */
export function summarize(findings: readonly Finding[]): CommandRisk {
  const level = maxRisk(findings.map((finding) => finding.level));
  return { level, reasons: [...new Set(findings.filter((finding) => finding.level === level).map((finding) => finding.reason))] };
}

/**
 * Words another program runs as a command (`timeout 5 rm -r x`, `xargs grep`, `find -exec`, `flock LOCK cmd`):
 * judged as that command, never less than `floor`. `tooDeep` when commands are already nested past what is followed.
 */
export function runnerRisk(words: readonly Arg[], what: string, site: ProgramSite, tooDeep: boolean): Finding[] {
  const texts = words.map((word) => word.text);
  if ((what === 'chrt' || what === 'taskset') && texts.some((text) => text === '-p' || text === '--pid'))
    return [{ level: 'write_high', reason: `${what} -p changes how a running process is scheduled` }];
  if (what !== 'flock') return runCommand(words, what, site, tooDeep);
  // `flock LOCK command…`, `flock LOCK -c 'line'`, or `flock FD`: the lock file is made if missing.
  const at = texts.findIndex((text) => text === '-c' || text === '--command');
  const start = runnerCommandStart(what, texts);
  const lock = start === null ? undefined : words[start - 1];
  const locks: Finding[] =
    lock && !/^\d+$/.test(lock.text ?? '')
      ? [{ level: 'write_low', reason: 'flock makes its lock file' }, ...site.target(lock, 'locks')]
      : [];
  if (at !== -1) return [...locks, ...site.nested(texts[at + 1] ?? null, 'flock -c')];
  return [...locks, ...runCommand(words, what, site, tooDeep)];
}

function runCommand(words: readonly Arg[], what: string, site: ProgramSite, tooDeep: boolean): Finding[] {
  const texts = words.map((word) => word.text);
  const start = runnerCommandStart(what, texts);
  if (start === null) return [{ level: 'destructive', reason: `${what} runs a command only known when it runs` }];
  if (what === 'command' && texts.slice(0, start).some((text) => text === '-v' || text === '-V'))
    return [{ level: 'read_only', reason: 'command -v only looks the program up' }];
  const rest = words.slice(start);
  const first = rest[0];
  if (!first) return [{ level: 'read_only', reason: `${what} alone only reads` }];
  if (first.text === null)
    return [{ level: 'destructive', reason: `${what} runs a program only known when it runs (${clip(first.source)})` }];
  if (tooDeep) return [{ level: 'destructive', reason: 'commands nested too deep to judge' }];
  const inner = summarize(programRisk(programOf(first.text), rest.slice(1), site));
  const floor: RiskLevel = what === 'xargs' || what === 'find -exec' ? 'write_high' : 'read_only';
  return [{ level: maxRisk([inner.level, floor]), reason: `${what} runs ${first.text}: ${inner.reasons.join('; ')}` }];
}
