/*
 * The redirections, here-documents and pipes of a command line: what they write, and the code they feed to a shell.
 */

import type { RiskLevel } from '../../shared/domain';
import type { SyntaxNode } from './bash-parser';
import { argOf, type Arg, type Finding } from './command-args';
import { interpreters, runnerCommandStart, runners, shells } from './program-sets';
import { programOf } from './program-risk';
import type { ShellState, WordValue } from './shell-state';
import { evaluate, onlyText, type WordEnvironment } from './shell-words';

/** What the redirections and pipes of a line need from the walk that follows it. */
export interface ScriptSite {
  readonly environment: WordEnvironment;
  add(level: RiskLevel, reason: string): void;
  addAll(findings: readonly Finding[]): void;
  /** Runs a statement (the grammar hangs the rest of a line on a here-document). */
  visit(node: SyntaxNode, state: ShellState): ShellState;
  /** Runs the command substitutions inside a node. */
  substitutions(node: SyntaxNode, state: ShellState): void;
  /** What writing to a path means, by where each of its possible values lands. */
  targetFindings(arg: Arg, verb: string, state: ShellState): Finding[];
  /** A command line run by this one. */
  nested(text: string | null, what: string): Finding[];
}

/** What a here-document itself is made of; anything else in its node is more of the command line. */
const heredocParts = new Set([
  'heredoc_start',
  'heredoc_body',
  'heredoc_end',
  'heredoc_content',
  'file_redirect',
  'word',
  'string',
  'raw_string',
  'concatenation',
  'simple_expansion',
  'expansion',
]);

const writeOperators = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&', '&>|']);

export const clip = (text: string, length = 60): string => (text.length > length ? `${text.slice(0, length)}…` : text);

/** The values of a command's name (`command_name` wraps the word). */
export function programName(node: SyntaxNode, state: ShellState, environment: WordEnvironment): WordValue {
  const word = node.namedChildren.length === 1 ? node.namedChildren[0] : null;
  return word ? evaluate(word, state, environment) : { kind: 'computed', why: 'the program name is made of several parts' };
}

/**
 * A shell or an interpreter given no script and no code reads its code from its input: here, from `source`
 * (a pipe, a process substitution). Runners in front (`env sh`, `timeout 9 sh`) are looked through.
 */
export function readsCode(site: ScriptSite, member: SyntaxNode, state: ShellState, source: string): void {
  const command = member.type === 'redirected_statement' ? member.childForFieldName('body') : member;
  if (command?.type !== 'command') return;
  const name = command.childForFieldName('name');
  const program = name ? onlyText(programName(name, state, site.environment)) : null;
  if (program === null) return;
  let base = programOf(program);
  let args = command.childrenForFieldName('argument').map((arg) => onlyText(evaluate(arg, state, site.environment)));
  for (let depth = 0; depth < 4 && (runners.has(base) || base === 'xargs'); depth += 1) {
    const start = runnerCommandStart(base, args);
    const inner = start === null ? null : args[start];
    if (inner === null || inner === undefined || start === null) return;
    base = programOf(inner);
    args = args.slice(start + 1);
  }
  if (!shells.has(base) && !interpreters.has(base)) return;
  const noScript =
    args.every((arg) => arg === null || arg.startsWith('-')) && !args.some((arg) => arg !== null && /^-[a-zA-Z]*[ce]$/.test(arg));
  if (noScript)
    site.add(
      'destructive',
      source === 'the pipe' ? `piping into ${base} runs whatever the pipe carries` : `${base} in ${source} runs whatever is written to it`,
    );
}

/** A here-document or here-string: the commands the grammar hangs on it, and what a shell reading it runs. */
function inputRedirect(site: ScriptSite, node: SyntaxNode, state: ShellState, program: string | null): void {
  for (const inner of node.namedChildren) {
    if (!inner) continue;
    if (inner.type === 'file_redirect') redirect(site, inner, state, program);
    // The grammar hangs the rest of the line on a here-document: `<<X && rm -rf ~`, `<<X | sh`.
    else if (inner.type === 'pipeline') {
      for (const member of inner.namedChildren) {
        if (!member) continue;
        site.visit(member, state);
        readsCode(site, member, state, 'the pipe');
      }
    } else if (!heredocParts.has(inner.type) && node.childrenForFieldName('argument').every((arg) => arg.id !== inner.id))
      site.visit(inner, state);
  }
  if (program === null || (!shells.has(program) && !interpreters.has(program))) return;
  const body =
    node.type === 'herestring_redirect' ? node.namedChildren[0] : node.namedChildren.find((child) => child?.type === 'heredoc_body');
  let literal: string | null = null;
  if (node.type === 'herestring_redirect') literal = body ? onlyText(evaluate(body, state, site.environment)) : null;
  else if (body && body.namedChildren.every((child) => child?.type === 'heredoc_content')) literal = body.text;
  if (shells.has(program)) site.addAll(site.nested(literal, `${program} reading its input`));
  else if (literal === null) site.add('destructive', `${program} runs code only known when it runs`);
  else site.add('write_high', `${program} runs code`);
}

/**
 * One redirection of a command run by `program` (null when not known): what it writes, what it feeds a shell,
 * and the commands inside it.
 */
export function redirect(site: ScriptSite, node: SyntaxNode, state: ShellState, program: string | null): void {
  site.substitutions(node, state);
  if (node.type === 'heredoc_redirect' || node.type === 'herestring_redirect') {
    inputRedirect(site, node, state, program);
    return;
  }
  if (node.type !== 'file_redirect') return;
  const operator = node.children.find((child) => child !== null && !child.isNamed)?.type ?? '';
  const destination = node.childForFieldName('destination');
  if (!destination) return;
  if (operator === '<' && program !== null && (shells.has(program) || interpreters.has(program))) {
    if (destination.type === 'process_substitution') site.add('destructive', `${program} runs code that arrives through a pipe`);
    else site.add('write_high', `${program} runs the script ${destination.text}`);
    return;
  }
  if (!writeOperators.has(operator)) return;
  if ((operator === '>&' || operator === '<&') && /^(\d+|-)$/.test(destination.text)) return;
  const target = argOf(evaluate(destination, state, site.environment), destination.text);
  const places = site.targetFindings(target, 'writes into', state);
  if (
    target.value.kind === 'known' &&
    target.value.values.every((value) => /^(\/dev\/(null|stdout|stderr|tty)|\/dev\/fd\/\d+)$/.test(value.text))
  )
    return;
  site.add('write_high', `writes into ${clip(destination.text)} with ${operator}`);
  site.addAll(places);
}
