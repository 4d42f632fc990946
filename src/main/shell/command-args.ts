/*
 * A command's arguments, split into options and operands the way GNU tools read them.
 */

import type { RiskLevel } from '../../shared/domain';
import { onlyText } from './shell-words';
import type { WordValue } from './shell-state';

/** One reason a command is as risky as it is. */
export interface Finding {
  readonly level: RiskLevel;
  readonly reason: string;
}

/** An argument of a command: its values, and its one text when that is known before it runs. */
export interface Arg {
  readonly value: WordValue;
  readonly text: string | null;
  /** As written in the command line, for reasons shown to the person. */
  readonly source: string;
  readonly glob: boolean;
}

export function argOf(value: WordValue, source: string): Arg {
  return { value, text: onlyText(value), source, glob: value.kind === 'known' && value.values.some((item) => item.glob) };
}

export interface ParsedArgs {
  /** Operands in order (options and their values left out). */
  readonly operands: readonly Arg[];
  /** Option values by option name (`-t`, `--target-directory`), for options that take one. */
  readonly values: ReadonlyMap<string, Arg>;
  /** Every option given, short ones split (`-rf` gives `-r` and `-f`). */
  readonly flags: ReadonlySet<string>;
}

/**
 * Splits a command's arguments into options and operands, the way GNU tools read them: `--` ends the
 * options, `-abc` is three short options, and the options named in `takesValue` take the next word
 * (or `=value`, or the rest of a short cluster) as their value. An argument not known before the
 * command runs counts as an operand.
 */
export function parseArgs(args: readonly Arg[], takesValue: readonly string[] = []): ParsedArgs {
  const operands: Arg[] = [];
  const values = new Map<string, Arg>();
  const flags = new Set<string>();
  let index = 0;
  for (; index < args.length; index += 1) {
    const arg = args[index] as Arg;
    const text = arg.text;
    if (text === '--') {
      index += 1;
      break;
    }
    if (text === null || !text.startsWith('-') || text === '-') {
      operands.push(arg);
      continue;
    }
    if (text.startsWith('--')) {
      const [name, value] = text.includes('=') ? [text.slice(0, text.indexOf('=')), text.slice(text.indexOf('=') + 1)] : [text, null];
      flags.add(name);
      if (value !== null) values.set(name, { ...arg, text: value, value: { kind: 'known', values: [{ text: value, glob: false }] } });
      else if (takesValue.includes(name) && index + 1 < args.length) values.set(name, args[(index += 1)] as Arg);
      continue;
    }
    for (let at = 1; at < text.length; at += 1) {
      const flag = `-${text[at]}`;
      flags.add(flag);
      if (!takesValue.includes(flag)) continue;
      const rest = text.slice(at + 1);
      if (rest.length > 0) values.set(flag, { ...arg, text: rest, value: { kind: 'known', values: [{ text: rest, glob: false }] } });
      else if (index + 1 < args.length) values.set(flag, args[(index += 1)] as Arg);
      break;
    }
  }
  operands.push(...args.slice(index));
  return { operands, values, flags };
}

export const hasAny = (parsed: ParsedArgs, ...flags: string[]): boolean => flags.some((flag) => parsed.flags.has(flag));
