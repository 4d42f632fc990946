/*
 * The answer a writer of the table in write-targets.ts gives (a risk, its reason, the paths the command touches), and
 * the small pieces every writer builds it from.
 */

import type { RiskLevel } from '../../../shared/domain';
import type { Arg, Finding, ParsedArgs } from '../command-args';

/** A path a command writes, moves, links or deletes, and the verb that says so. */
export interface WrittenPath {
  readonly arg: Arg;
  readonly verb: string;
  /** A relative path read from this path's folder: what a symbolic link made there points to. */
  readonly from?: Arg;
}

export interface WriterRisk {
  readonly level: RiskLevel;
  readonly reason: string;
  readonly paths: readonly WrittenPath[];
  readonly extra: readonly Finding[];
  /** Command lines the program runs (null: one only known when it runs), judged like the line itself. */
  readonly runs?: readonly (string | null)[];
}

/** Judges one run of a writing program from its words; `program` tells apart the names that share a writer. */
export type Writer = (program: string, args: readonly Arg[]) => WriterRisk;

/** The writers of a group of programs, by program name. */
export type Writers = Readonly<Record<string, Writer>>;

/** A writer's answer: its risk and why, and the paths it touches. */
export const writes = (
  level: RiskLevel,
  reason: string,
  paths: WrittenPath[] = [],
  extra: Finding[] = [],
  runs: readonly (string | null)[] = [],
): WriterRisk => ({ level, reason, paths, extra, runs });

/** Every argument as a path touched the same way. */
export const each = (args: readonly Arg[], verb: string): WrittenPath[] => args.map((arg) => ({ arg, verb }));

/** The folder the command runs in, as an argument: for tools that write there when given no place. */
export const here: Arg = { value: { kind: 'known', values: [{ text: '.', glob: false }] }, text: '.', source: '.', glob: false };

/** A path written in a script rather than given as a word (`sed 'w out.txt'`). */
export const literalArg = (text: string): Arg => ({
  value: { kind: 'known', values: [{ text, glob: false }] },
  text,
  source: text,
  glob: false,
});

/** cp, mv, ln, install: `-t DIR`, or the last operand when there are two or more. */
export function destination(parsed: ParsedArgs): Arg | null {
  const target = parsed.values.get('-t') ?? parsed.values.get('--target-directory');
  if (target) return target;
  return parsed.operands.length >= 2 ? (parsed.operands.at(-1) as Arg) : null;
}
