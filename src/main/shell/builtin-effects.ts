/*
 * What the shell's own builtins change in the walked state: the folder after cd, pushd and popd, the variables that
 * read, declare and their kin set, and the code eval and source run here, after which little is known.
 */

import { resolve } from 'node:path';
import type { SyntaxNode } from './bash-parser';
import type { Arg } from './command-args';
import type { ShellState } from './shell-state';
import type { WordEnvironment } from './shell-words';
import { letEffects, type WordEffects } from './word-effects';

/** Variables that change what a program loads or runs when set in front of it. */
export const loaderVariables =
  /^(PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|IFS|PYTHONPATH|PYTHONSTARTUP|NODE_OPTIONS|NODE_PATH|PERL5OPT|PERL5LIB|RUBYOPT|GIT_\w+|EDITOR|VISUAL|PAGER)$/;

/** Builtins that set the variables named in their words to what they read or format. */
const readers = new Set(['read', 'mapfile', 'readarray', 'printf', 'getopts']);

/** Whether a word is a variable's name. */
export const isName = (text: string | null): text is string => text !== null && /^[A-Za-z_][A-Za-z0-9_]*$/.test(text);

/** Whether a value runs a command and keeps what it prints (`$(…)`, backticks), outside arithmetic. */
export function holdsOutput(node: SyntaxNode): boolean {
  const stack: SyntaxNode[] = [node];
  while (stack.length > 0) {
    const current = stack.pop() as SyntaxNode;
    if (current.type === 'command_substitution') return true;
    if (current.type === 'arithmetic_expansion') continue;
    for (const child of current.namedChildren) if (child) stack.push(child);
  }
  return false;
}

/** Whether a program changes the shell's folder when run as a command of its own. */
export const changesFolder = (program: string): boolean => program === 'cd' || program === 'pushd' || program === 'popd';

/** The folder after `cd`, `pushd` or `popd`: where known, every folder it can be; else unknown. */
export function changedFolder(program: string, args: readonly Arg[], state: ShellState, environment: WordEnvironment): ShellState {
  const operand = args.find((arg) => !arg.text?.startsWith('-') || arg.text === '-');
  if (program === 'popd' || operand?.text === '-') return state.withCwd(null);
  const home = state.variable('HOME');
  if (!operand) return home === undefined ? state.withCwd([environment.home]) : state.withCwd(home?.map((value) => value.text) ?? null);
  // CDPATH makes a relative name mean a folder elsewhere; `pushd +1` rotates the stack.
  const elsewhere = state.variable('CDPATH') !== undefined || /^[+-]\d+$/.test(operand.text ?? '');
  if (elsewhere || operand.value.kind === 'computed' || operand.glob || state.cwd === null) return state.withCwd(null);
  const folders = state.cwd;
  return state.withCwd(operand.value.values.flatMap((value) => folders.map((cwd) => resolve(cwd, value.text))));
}

/** What a builtin changes in this shell: code it runs here, the folder, variables it sets. */
export function afterBuiltin(program: string, args: readonly Arg[], state: ShellState, environment: WordEnvironment): WordEffects {
  const unchanged = (after: ShellState): WordEffects => ({ state: after, findings: [] });
  // Code run in this shell (eval, source, cd behind builtin or command) changes its folder and variables in ways
  // not followed: from here on they are only known when it runs.
  if (['eval', 'source', '.'].includes(program)) return unchanged(state.forgetVariables().withCwd(null));
  if (['builtin', 'command', 'exec'].includes(program) && ['cd', 'pushd', 'popd'].includes(args[0]?.text ?? ''))
    return unchanged(state.withCwd(null));
  if (program === 'let') return letEffects(args, state, environment);
  let after = state;
  if (readers.has(program)) for (const arg of args) if (isName(arg.text)) after = after.withVar(arg.text, null, true);
  if (['declare', 'typeset', 'local', 'export', 'readonly'].includes(program)) {
    if (args.some((arg) => arg.text === null || /^-[A-Za-z]*n/.test(arg.text))) return unchanged(after.withAliases());
    for (const arg of args) {
      const name = arg.text?.split('=')[0] ?? '';
      if (isName(name)) after = after.withVar(name, null);
    }
  }
  return unchanged(after);
}
